import type { FastifyReply } from 'fastify';

/** The empty TwiML document: "received, nothing to say now" (the reply comes later via REST). */
export const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

/** Answers Twilio with 200 and empty TwiML. */
export function sendEmptyTwiml(reply: FastifyReply): FastifyReply {
  return reply.code(200).type('text/xml').send(EMPTY_TWIML);
}
