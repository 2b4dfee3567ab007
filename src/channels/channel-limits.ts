import type { ChannelName } from './phone-number.js';
import { TWILIO_MAX_BODY_LENGTH } from './split-message.js';

/** What one channel can carry, as the outbox and the long-reply rule read it. */
export interface ChannelLimits {
  /** The longest body one message may have, in characters (Twilio refuses longer ones). */
  maxBodyChars: number;
  /** Billed and limited in SMS segments (SMS_MAX_SEGMENTS applies). */
  segmented: boolean;
  /** Quick-reply buttons and list pickers can be shown (WhatsApp only inside the 24-hour window). */
  buttons: boolean;
  /** The most quick-reply buttons one message may carry (twilio/quick-reply). */
  maxQuickReplies: number;
  /** The most items one list picker may carry (twilio/list-picker). */
  maxListItems: number;
  /** Media (photos, PDFs) can be sent. */
  media: boolean;
}

/**
 * Each channel's limits. RCS goes through a Messaging Service that falls back to SMS by
 * itself; what Herald sends on RCS is one message of Twilio's 1,600 characters at most (an
 * RCS message is not split into segments), so a longer answer becomes a lead and a page, as
 * on WhatsApp. Buttons: Twilio's Content API allows up to 3 quick replies in a session
 * message that must also render as a template fallback, and 10 list items.
 */
export const CHANNEL_LIMITS: Record<ChannelName, ChannelLimits> = {
  sms: { maxBodyChars: TWILIO_MAX_BODY_LENGTH, segmented: true, buttons: false, maxQuickReplies: 0, maxListItems: 0, media: true },
  whatsapp: { maxBodyChars: TWILIO_MAX_BODY_LENGTH, segmented: false, buttons: true, maxQuickReplies: 3, maxListItems: 10, media: true },
  rcs: { maxBodyChars: TWILIO_MAX_BODY_LENGTH, segmented: false, buttons: true, maxQuickReplies: 3, maxListItems: 10, media: true },
};

/** The most characters a quick reply's or list picker's body may have (Content API: 1,024). */
export const CONTENT_BODY_MAX_CHARS = 1024;
