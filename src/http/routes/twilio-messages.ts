import type { FastifyInstance } from 'fastify';
import { inboundMessageSchema } from '../../channels/twilio-webhook-schemas.js';
import type { InboundDelivery } from '../../conversation/inbound-service.js';
import type { GuardedOutcome } from '../../conversation/inbound-spool.js';
import { requireFormEncodedBody } from '../form-body.js';
import { SenderRateLimit } from '../sender-rate-limit.js';
import { sendEmptyTwiml, sendTwimlMessage } from '../twiml.js';
import type { SignatureOptions } from '../../channels/twilio-signed-url.js';
import { verifyTwilioSignature } from '../twilio-signature.js';

/** What the inbound route needs. */
export interface TwilioMessagesRouteOptions {
  signature: SignatureOptions;
  /** Stores the message, or spools it while the database is away (src/conversation/inbound-spool.ts). */
  inbound: { receive(delivery: InboundDelivery): Promise<GuardedOutcome> };
  rateLimitPerMinute: number;
}

/**
 * `POST /twilio/messages`: Twilio's inbound SMS/WhatsApp webhook. Verify, validate,
 * store durably (message + turn job), answer at once. No model call happens here.
 */
export async function twilioMessagesRoute(app: FastifyInstance, options: TwilioMessagesRouteOptions): Promise<void> {
  const limiter = new SenderRateLimit(options.rateLimitPerMinute, 60_000);
  app.post(
    '/twilio/messages',
    {
      onRequest: requireFormEncodedBody,
      preValidation: verifyTwilioSignature(options.signature),
    },
    async (request, reply) => {
      const parsed = inboundMessageSchema.safeParse(request.body);
      if (!parsed.success) {
        const fields = parsed.error.issues.map((issue) => issue.path.join('.') || '(body)');
        request.log.warn({ fields }, 'inbound webhook malformed; nothing stored');
        return reply.code(400).type('text/plain').send(`Malformed webhook: ${fields.join(', ')}`);
      }
      const token = request.headers['i-twilio-idempotency-token'];
      // Over the sender's allowance the text is still stored (never a 429: Twilio would not
      // retry it, and a person's message would be lost); only its turn waits for the window
      // to end, when everything the sender sent meanwhile is answered together.
      const rate = limiter.check(parsed.data.From);
      if (rate.limited) request.log.warn({ resetAt: rate.resetAt.toISOString() }, 'sender over the webhook rate limit; message stored, its turn deferred');
      const outcome = await options.inbound.receive({
        webhook: parsed.data,
        idempotencyToken: typeof token === 'string' && token.length > 0 ? token.slice(0, 200) : undefined,
        ...(rate.limited ? { deferTurnUntil: rate.resetAt } : {}),
      });
      const log = request.log.child({ messageSid: parsed.data.MessageSid });
      if (outcome.kind === 'rejected') {
        log.warn({ reason: outcome.reason }, 'inbound message rejected');
        return reply.code(400).type('text/plain').send(outcome.reason);
      }
      if (outcome.kind === 'refused') {
        // Still 200: Twilio must not retry, and the sender learns only what the reply says.
        log.info({ reason: outcome.reason, replied: Boolean(outcome.reply) }, 'inbound message refused by access rules; nothing stored');
        return outcome.reply ? sendTwimlMessage(reply, outcome.reply) : sendEmptyTwiml(reply);
      }
      // Written to disk and fsync'd: the message is safe, and stored when the database is back.
      if (outcome.kind === 'spooled') return sendEmptyTwiml(reply);
      if (outcome.kind === 'duplicate') log.info('duplicate delivery ignored');
      else log.info({ userId: outcome.userId, messageId: outcome.messageId }, 'inbound message stored');
      return sendEmptyTwiml(reply);
    },
  );
}
