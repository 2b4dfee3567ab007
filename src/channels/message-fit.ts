import { formatForChannel } from './format-message.js';
import type { ChannelName } from './phone-number.js';
import { isGsm7, plainSmsPunctuation, smsSegments } from './sms-encoding.js';
import { CHANNEL_LIMITS } from './channel-limits.js';

/**
 * Whether a reply (Markdown) travels as one message on its channel, measured exactly as the
 * outbox will send it (converted for the channel; on SMS with plain punctuation when that
 * makes it GSM-7): on SMS within `smsMaxSegments` segments (SMS_MAX_SEGMENTS), on WhatsApp
 * and RCS within one message of Twilio's 1,600 characters (src/channels/channel-limits.ts).
 */
export function fitsOneMessage(markdown: string, channel: ChannelName, smsMaxSegments: number): boolean {
  const formatted = formatForChannel(markdown, channel);
  const limits = CHANNEL_LIMITS[channel];
  if (!limits.segmented) return formatted.length <= limits.maxBodyChars;
  const plain = plainSmsPunctuation(formatted);
  return smsSegments(isGsm7(plain) ? plain : formatted) <= smsMaxSegments;
}
