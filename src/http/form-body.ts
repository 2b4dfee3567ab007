import type { FastifyReply, FastifyRequest } from 'fastify';

const FORM_ENCODED = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;

/**
 * An onRequest hook for Twilio's webhooks: Twilio posts application/x-www-form-urlencoded
 * and nothing else. Any other body (JSON, text, multipart) is refused with 415 before it
 * is read or parsed, so it can never reach signature checking, validation or storage.
 */
export async function requireFormEncodedBody(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const contentType = request.headers['content-type'];
  if (typeof contentType === 'string' && FORM_ENCODED.test(contentType)) return;
  request.log.warn({ contentType }, 'webhook body is not form-encoded; refused');
  return reply.code(415).type('text/plain').send('Unsupported Media Type: Twilio webhooks are application/x-www-form-urlencoded');
}
