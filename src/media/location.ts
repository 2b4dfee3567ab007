import { find } from 'geo-tz';
import { DateTime } from 'luxon';
import { z } from 'zod';
import type { LocationPin } from '../channels/twilio-webhook-schemas.js';
import type { ConfirmationAsk } from '../questions/pending-action.js';
import { mediaReply } from '../texts/media-replies.js';

/** The held action YES runs to take a pin's time zone: Herald's own ("system"), resolved in runtime.ts. */
export const TIMEZONE_FROM_PIN_ACTION = { agent: 'system', tool: 'set_timezone_from_location' } as const;

/** A pin as stored on its message (Message.location). */
export const storedPinSchema = z.object({
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  address: z.string().optional(),
  label: z.string().optional(),
});

/** "set my time zone from here", "use this for my timezone", "קבע את אזור הזמן שלי לפי המיקום". */
const ASKS_FOR_TIMEZONE = /\btime ?zone\b|אזור ה?זמן/i;

/**
 * The IANA time zone at a point, found offline (geo-tz: the timezone-boundary-builder
 * polygons shipped in the package; no service is called). Undefined at sea, where only
 * the nautical Etc/GMT zones apply.
 */
function timezoneAt(latitude: number, longitude: number): string | undefined {
  const zone = find(latitude, longitude)[0];
  return zone && !zone.startsWith('Etc/') ? zone : undefined;
}

/** What a pin means for this turn: the planner's line and, when it applies, Herald's time-zone offer. */
export interface PinReading {
  /** One short line for the planner. */
  line: string;
  zone: string | undefined;
  /** Herald's own question and the held action its YES runs, when the pin's zone is not the user's. */
  offer?: { question: string; confirmation: ConfirmationAsk };
  /** The message only asks to set the time zone from the pin: answered without a model. */
  answerAlone?: string;
}

/**
 * Reads a shared pin. The planner gets one line (label, address, coordinates, the zone
 * there). When the user asks to take their time zone from it ("set my time zone from
 * here"), or the pin is in a zone whose clock differs from theirs, Herald itself offers the
 * zone, held for YES; a message that says nothing else is answered without a model.
 */
export function readPin(pin: LocationPin, user: { timezone: string; language: string | null }, text: string, now: Date): PinReading {
  const zone = timezoneAt(pin.latitude, pin.longitude);
  const where = [pin.label ? `"${pin.label}"` : undefined, pin.address, `${pin.latitude.toFixed(5)}, ${pin.longitude.toFixed(5)}`].filter(Boolean).join(', ');
  const line = `(The user shared a location pin: ${where}${zone ? `; time zone there: ${zone}` : ''}.)`;
  const asked = ASKS_FOR_TIMEZONE.test(text);
  const alone = asked && text.trim().length <= 80;
  if (!zone) return { line, zone, ...(alone ? { answerAlone: mediaReply('zoneUnknown', user.language, {}, text) } : {}) };
  const differs = zone !== user.timezone && offsetMinutes(zone, now) !== offsetMinutes(user.timezone, now);
  if (zone === user.timezone || (!differs && !asked)) {
    return { line, zone, ...(alone ? { answerAlone: mediaReply('zoneSame', user.language, { zone }, text) } : {}) };
  }
  const time = DateTime.fromJSDate(now, { zone }).toFormat('HH:mm');
  const question = mediaReply('zoneQuestion', user.language, { zone, time }, text);
  const confirmation: ConfirmationAsk = {
    question,
    actions: [{ ...TIMEZONE_FROM_PIN_ACTION, input: { timezone: zone }, question, done: mediaReply('zoneDone', user.language, { zone }, text) }],
  };
  return { line, zone, offer: { question, confirmation }, ...(alone ? { answerAlone: question } : {}) };
}

function offsetMinutes(zone: string, now: Date): number | undefined {
  const time = DateTime.fromJSDate(now, { zone });
  return time.isValid ? time.offset : undefined;
}
