import { randomBytes } from 'node:crypto';
import twilio from 'twilio';
import { signedUrl, type SignatureOptions } from '../channels/twilio-signed-url.js';

/** The path Twilio posts inbound messages to: the dev phone posts to the very same. */
export const INBOUND_WEBHOOK_PATH = '/twilio/messages';

/** A message SID as Twilio makes them: MM… for a message with media, SM… otherwise. */
export function devMessageSid(withMedia = false): string {
  return `${withMedia ? 'MM' : 'SM'}${randomBytes(16).toString('hex')}`;
}

/** Twilio's test number, Herald's own address when no sender is configured. */
export const DEFAULT_HERALD_NUMBER = '+15005550006';

/**
 * An inbound text as Twilio would post it (the fields Twilio sends for an SMS), signed
 * with the auth token when one is set. Without one, Herald's loopback rule accepts it
 * unsigned, exactly as it would a developer's curl.
 */
export function devInboundWebhook(
  message: { from: string; to: string; body: string; sid?: string; media?: Array<{ url: string; contentType: string }> },
  signature: SignatureOptions,
): { payload: string; headers: Record<string, string> } {
  const sid = message.sid ?? devMessageSid(message.media !== undefined && message.media.length > 0);
  const media = message.media ?? [];
  const form: Record<string, string> = {
    ToCountry: 'US',
    SmsMessageSid: sid,
    NumMedia: String(media.length),
    MessageSid: sid,
    AccountSid: `AC${'0'.repeat(32)}`,
    From: message.from,
    To: message.to,
    Body: message.body,
    NumSegments: '1',
    ApiVersion: '2010-04-01',
  };
  // As Twilio posts attachments: MediaUrlN and MediaContentTypeN.
  media.forEach((attachment, index) => {
    form[`MediaUrl${index}`] = attachment.url;
    form[`MediaContentType${index}`] = attachment.contentType;
  });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (signature.authToken) {
    headers['x-twilio-signature'] = twilio.getExpectedTwilioSignature(signature.authToken, signedUrl(signature.publicBaseUrl, INBOUND_WEBHOOK_PATH), form);
  }
  return { payload: new URLSearchParams(form).toString(), headers };
}
