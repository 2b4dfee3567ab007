import { CHANNEL_LIMITS } from '../channels/channel-limits.js';
import { isGsm7, plainSmsPunctuation, smsSegments } from '../channels/sms-encoding.js';
import { readerLanguage, say } from '../texts/texts.js';
import type { SendablePart } from './outbound-draft.js';

/** What deciding on the note needs of a part. */
type NotablePart = Pick<SendablePart, 'kind' | 'partIndex' | 'partCount' | 'contentSid' | 'unknownSince' | 'createdAt' | 'channel' | 'body'>;

/**
 * Whether a part is a reply's beginning that has waited longer than `afterMs` since it was
 * written (Twilio was down, say) and may still be given the note "Sorry for the delay —".
 * Never a template (its text is Twilio's), never a part whose send may have reached Twilio
 * already (the look-up before a resend knows it by its body, which must not change).
 */
export function needsLateNote(part: NotablePart, now: Date, afterMs: number | undefined): boolean {
  if (afterMs === undefined || part.kind !== 'reply' || part.partIndex !== 0 || part.contentSid || part.unknownSince) return false;
  return now.getTime() - part.createdAt.getTime() > afterMs;
}

/**
 * The body with the note in front, in the reader's language; undefined when it is there
 * already or would not fit: over Twilio's 1,600 characters, or on SMS (billed per segment) a
 * reply of several parts or one the note would take past `smsMaxSegments`.
 */
export function withLateNote(part: NotablePart, language: string | null | undefined, smsMaxSegments: number): string | undefined {
  const note = say(readerLanguage(language), 'replyLateNote');
  if (part.body.startsWith(note) || part.body.startsWith(plainSmsPunctuation(note))) return undefined;
  const text = `${note} ${part.body}`;
  const limits = CHANNEL_LIMITS[part.channel];
  if (!limits.segmented) return [...text].length <= limits.maxBodyChars ? text : undefined;
  // The note's dash is not GSM-7: plain punctuation when the rest is, as the outbox stores SMS.
  const plain = plainSmsPunctuation(text);
  const sms = isGsm7(plain) ? plain : text;
  if (part.partCount > 1 || [...sms].length > limits.maxBodyChars || smsSegments(sms) > smsMaxSegments) return undefined;
  return sms;
}
