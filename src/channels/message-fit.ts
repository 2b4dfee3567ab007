import { formatForChannel } from './format-message.js';
import type { ChannelName } from './phone-number.js';
import { isGsm7, plainSmsPunctuation, smsSegments } from './sms-encoding.js';
import { TWILIO_MAX_BODY_LENGTH } from './split-message.js';

/**
 * Whether a reply (Markdown) travels as one message on its channel, measured exactly as the
 * outbox will send it (converted for the channel; on SMS with plain punctuation when that
 * makes it GSM-7): on SMS within `smsMaxSegments` segments (SMS_MAX_SEGMENTS), on WhatsApp
 * within Twilio's 1,600 characters.
 */
export function fitsOneMessage(markdown: string, channel: ChannelName, smsMaxSegments: number): boolean {
  const formatted = formatForChannel(markdown, channel);
  if (channel === 'whatsapp') return formatted.length <= TWILIO_MAX_BODY_LENGTH;
  const plain = plainSmsPunctuation(formatted);
  return smsSegments(isGsm7(plain) ? plain : formatted) <= smsMaxSegments;
}
