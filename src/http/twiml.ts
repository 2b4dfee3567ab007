import type { FastifyReply } from 'fastify';

/** The empty TwiML document: "received, nothing to say now" (the reply comes later via REST). */
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

/** Answers Twilio with 200 and empty TwiML. */
export function sendEmptyTwiml(reply: FastifyReply): FastifyReply {
  return reply.code(200).type('text/xml').send(EMPTY_TWIML);
}

/** XML text content, escaped. */
function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[character]!);
}

/**
 * Answers Twilio with 200 and a TwiML `<Message>`: Twilio sends it as the reply. Only for
 * senders Herald keeps nothing about (src/access), who have no user row for the outbox.
 */
export function sendTwimlMessage(reply: FastifyReply, text: string): FastifyReply {
  return reply.code(200).type('text/xml').send(`<?xml version="1.0" encoding="UTF-8"?><Response><Message>${escapeXml(text)}</Message></Response>`);
}

/** The text of a TwiML `<Message>` reply, unescaped; undefined for any other TwiML. */
export function twimlMessageText(twiml: string): string | undefined {
  const match = /<Message>([\s\S]*)<\/Message>/.exec(twiml);
  if (!match) return undefined;
  return match[1]!.replace(/&(lt|gt|quot|apos|amp);/g, (_entity, name: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[name]!);
}
