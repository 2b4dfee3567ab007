import { DateTime } from 'luxon';
import { isValidTimezone } from '../../shared/time-zones.js';

/**
 * "Now" as the user sees it on their own clock. Given to the planner (in the system prompt
 * and by `get_current_time`) so every relative date it reasons about starts from the same
 * moment in the user's time zone, not the server's.
 */
export interface TimeContext {
  /** The moment with its UTC offset and no milliseconds, e.g. `2026-01-28T10:30:00-08:00`. */
  iso: string;
  /** The user's local date, `YYYY-MM-DD`. */
  date: string;
  /** The user's local time, `HH:mm` (24-hour). */
  time: string;
  /** The English weekday name, e.g. `Wednesday`. */
  weekday: string;
  /** 0 = Sunday … 6 = Saturday, the JavaScript `Date#getDay` convention. */
  weekdayIndex: number;
  /** The IANA time zone the other fields are expressed in. */
  timezone: string;
  /** The zone's offset from UTC at this moment, e.g. `-08:00`. */
  utcOffset: string;
  /** e.g. `Wednesday, January 28, 2026 at 10:30 AM`. */
  humanReadable: string;
}

/**
 * Locale for every formatted name. Fixed rather than taken from the process so the planner
 * always sees English weekday and month names whatever machine Herald runs on.
 */
export const formattingLocale = 'en-US';

/**
 * Zone names already found valid. Luxon checks a zone by building an Intl formatter for it
 * (~0.1 ms), and every prompt checks the user's zone again; the runtime's zone database
 * does not change while the process runs. Only valid names are kept, so the set stays as
 * small as the zone database however many bad names users type.
 */

/**
 * The message a tool returns when the user's configured zone is unusable. Worded for the
 * planner: it cannot fix the setting, so it is told to fall back to words (UT-6).
 */
export function invalidTimezoneMessage(timezone: string): string {
  return `Unknown time zone "${timezone}" in the user's settings (expected an IANA name such as America/New_York); describe dates in words in the plan instead.`;
}

/**
 * Formats a moment as ISO 8601 with a numeric offset and no milliseconds. Luxon's `toISO`
 * would write `Z` for UTC and keep milliseconds; one fixed shape is easier for the model
 * and for the agents that read the plan.
 */
export function formatIsoWithOffset(moment: DateTime): string {
  return moment.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
}

/**
 * The latest description per zone. A turn builds its planner's and every agent's prompt
 * within a second or so, each with the user's current time, and luxon takes a few tenths
 * of a millisecond to format it.
 */
const lastDescribed = new Map<string, { second: number; context: TimeContext }>();

/**
 * Describes `now` in `timezone`.
 *
 * @throws RangeError when `timezone` is not a valid IANA zone; callers that take the zone
 * from user settings check {@link isValidTimezone} first and report a tool error instead.
 */
export function describeNow(now: Date, timezone: string): TimeContext {
  // Whole seconds: the description does not change within one.
  const second = Math.floor(now.getTime() / 1000);
  const last = lastDescribed.get(timezone);
  if (last?.second === second) return { ...last.context };
  if (!isValidTimezone(timezone)) throw new RangeError(`Invalid IANA time zone: ${timezone}`);
  const context = describe(DateTime.fromJSDate(now, { zone: timezone }).setLocale(formattingLocale).startOf('second'), timezone);
  // Keyed by valid zone names only, so the map stays as small as the zone database.
  lastDescribed.set(timezone, { second, context });
  return { ...context };
}

/** The description of a moment already in the user's zone and locale. */
function describe(local: DateTime, timezone: string): TimeContext {
  return {
    iso: formatIsoWithOffset(local),
    date: local.toFormat('yyyy-MM-dd'),
    time: local.toFormat('HH:mm'),
    weekday: local.toFormat('cccc'),
    // Luxon numbers weekdays 1 = Monday … 7 = Sunday; modulo 7 turns Sunday into 0.
    weekdayIndex: local.weekday % 7,
    timezone,
    utcOffset: local.toFormat('ZZ'),
    humanReadable: local.toFormat("cccc, LLLL d, yyyy 'at' h:mm a"),
  };
}

/**
 * One line for a system prompt, e.g. `Wednesday, January 28, 2026 at 10:30 AM
 * (2026-01-28T10:30:00-08:00), weekday Wednesday (3), time zone America/Los_Angeles, UTC-08:00`.
 */
export function formatTimeContextLine(context: TimeContext): string {
  return (
    `${context.humanReadable} (${context.iso}), weekday ${context.weekday} (${context.weekdayIndex}), ` +
    `time zone ${context.timezone}, UTC${context.utcOffset}`
  );
}
