import type { FastifyInstance } from 'fastify';
import { deliveredChannel, statusCallbackSchema } from '../../channels/twilio-webhook-schemas.js';
import { requireFormEncodedBody } from '../form-body.js';
import { sendEmptyTwiml } from '../twiml.js';
import type { SignatureOptions } from '../../channels/twilio-signed-url.js';
import { verifyTwilioSignature } from '../twilio-signature.js';

/** What the status route needs. */
export interface TwilioStatusRouteOptions {
  signature: SignatureOptions;
  statusCallbacks: {
    applyStatusCallback(update: { sid: string; status: string; errorCode?: number | undefined; errorMessage?: string | undefined; channel?: 'sms' | 'whatsapp' | 'rcs' | undefined }): Promise<'updated' | 'ignored'>;
  };
}

/** `POST /twilio/status`: delivery updates for messages Herald sent; statuses only move forward. */
export async function twilioStatusRoute(app: FastifyInstance, options: TwilioStatusRouteOptions): Promise<void> {
  app.post('/twilio/status', { onRequest: requireFormEncodedBody, preValidation: verifyTwilioSignature(options.signature) }, async (request, reply) => {
    const parsed = statusCallbackSchema.safeParse(request.body);
    if (!parsed.success) {
      const fields = parsed.error.issues.map((issue) => issue.path.join('.') || '(body)');
      request.log.warn({ fields }, 'status callback malformed');
      return reply.code(400).type('text/plain').send(`Malformed status callback: ${fields.join(', ')}`);
    }
    const result = await options.statusCallbacks.applyStatusCallback({
      sid: parsed.data.MessageSid,
      status: parsed.data.MessageStatus,
      errorCode: parsed.data.ErrorCode,
      errorMessage: parsed.data.ErrorMessage,
      channel: deliveredChannel(parsed.data),
    });
    request.log.info({ messageSid: parsed.data.MessageSid, status: parsed.data.MessageStatus, errorCode: parsed.data.ErrorCode, result }, 'status callback');
    return sendEmptyTwiml(reply);
  });
}
