import { randomBytes } from 'node:crypto';
import twilio from 'twilio';
import { signedUrl, type SignatureOptions } from '../http/twilio-signature.js';

/** The path Twilio posts inbound messages to: the dev phone posts to the very same. */
export const INBOUND_WEBHOOK_PATH = '/twilio/messages';

/** Twilio's test number, Herald's own address when no sender is configured. */
export const DEFAULT_HERALD_NUMBER = '+15005550006';

/**
 * An inbound text as Twilio would post it (the fields Twilio sends for an SMS), signed
 * with the auth token when one is set. Without one, Herald's loopback rule accepts it
 * unsigned, exactly as it would a developer's curl.
 */
export function devInboundWebhook(
  message: { from: string; to: string; body: string },
  signature: SignatureOptions,
): { payload: string; headers: Record<string, string> } {
  const sid = `SM${randomBytes(16).toString('hex')}`;
  const form: Record<string, string> = {
    ToCountry: 'US',
    SmsMessageSid: sid,
    NumMedia: '0',
    MessageSid: sid,
    AccountSid: `AC${'0'.repeat(32)}`,
    From: message.from,
    To: message.to,
    Body: message.body,
    NumSegments: '1',
    ApiVersion: '2010-04-01',
  };
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (signature.authToken) {
    headers['x-twilio-signature'] = twilio.getExpectedTwilioSignature(signature.authToken, signedUrl(signature.publicBaseUrl, INBOUND_WEBHOOK_PATH), form);
  }
  return { payload: new URLSearchParams(form).toString(), headers };
}
