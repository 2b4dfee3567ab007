import * as chrono from 'chrono-node';
import { DateTime, FixedOffsetZone } from 'luxon';

/*
 * chrono-node's fields read as wall-clock time in the user's zone: its own `Date` results are
 * not trusted for wall-clock times (see resolve-date.ts).
 */

/** Everything chrono-node finds in the text, read from `now` in the user's zone. */
export function parseWithChrono(normalized: string, now: DateTime): chrono.ParsedResult[] {
  // chrono reads the text as if the clock showed the user's wall time at a fixed offset; it
  // ignores IANA names, so the offset of "now" in the user's zone is passed as a number.
  return chrono.parse(normalized, { instant: now.toJSDate(), timezone: now.offset }, { forwardDate: true });
}

/**
 * A month and day with no year ("Dec 25"): this year if that date is today or later,
 * otherwise the next year that has it (so "Feb 29" finds the next leap year).
 */
export function nextOccurrenceOfMonthDay(month: number, dayOfMonth: number, today: DateTime): DateTime | undefined {
  for (let year = today.year; year <= today.year + 8; year += 1) {
    const candidate = DateTime.fromObject({ year, month, day: dayOfMonth }, { zone: today.zone });
    if (candidate.isValid && candidate.startOf('day') >= today) return candidate.startOf('day');
  }
  return undefined;
}

/** Midnight of a calendar date in the user's zone, or undefined when the date does not exist. */
export function localDay(year: number, month: number, dayOfMonth: number, zone: DateTime['zone']): DateTime | undefined {
  const day = DateTime.fromObject({ year, month, day: dayOfMonth }, { zone });
  return day.isValid ? day.startOf('day') : undefined;
}

/** The time of day chrono found, as wall-clock fields, plus a note when am/pm was a guess. */
export interface WallTime {
  hour: number;
  minute: number;
  /** Minutes east of UTC when the text named its own zone ("3pm EST", an ISO `Z`). */
  offsetMinutes?: number;
  notes: string[];
}

export function wallTimeOf(result: chrono.ParsedResult | undefined): WallTime | undefined {
  if (!result || !result.start.isCertain('hour')) return undefined;
  const hour = result.start.get('hour') ?? 0;
  const minute = result.start.get('minute') ?? 0;
  const notes: string[] = [];
  const spelledTime = /\b(?:noon|midday|midnight|morning|afternoon|evening|night)\b/.test(result.text);
  // "02:00" or an ISO timestamp is clearly a 24-hour time; only "at 3" or "10:30" is a guess.
  const twentyFourHour = /\b0\d:\d{2}/.test(result.text) || result.tags().has('parser/ISOFormatParser');
  if (!result.start.isCertain('meridiem') && !spelledTime && !twentyFourHour && hour >= 1 && hour <= 11) {
    const pad = (value: number): string => String(value).padStart(2, '0');
    notes.push(`No am/pm was given, so ${pad(hour)}:${pad(minute)} was assumed; it may mean ${pad(hour + 12)}:${pad(minute)}.`);
  }
  const offsetMinutes = result.start.isCertain('timezoneOffset') ? result.start.get('timezoneOffset') ?? undefined : undefined;
  return offsetMinutes === undefined ? { hour, minute, notes } : { hour, minute, offsetMinutes, notes };
}

/**
 * Places a wall-clock time on a day in the user's zone (or in the zone the text named, then
 * converted to the user's), noting when DST skips that time.
 */
export function placeTime(day: DateTime, time: WallTime, notes: string[]): DateTime {
  const pad = (value: number): string => String(value).padStart(2, '0');
  if (time.offsetMinutes !== undefined) {
    return DateTime.fromObject(
      { year: day.year, month: day.month, day: day.day, hour: time.hour, minute: time.minute },
      { zone: FixedOffsetZone.instance(time.offsetMinutes) },
    ).setZone(day.zone);
  }
  const moment = day.set({ hour: time.hour, minute: time.minute, second: 0, millisecond: 0 });
  if (moment.hour !== time.hour || moment.minute !== time.minute) {
    notes.push(
      `${pad(time.hour)}:${pad(time.minute)} does not exist on ${day.toFormat('yyyy-MM-dd')} in ${day.zoneName ?? 'this zone'} (clocks spring forward), so ${moment.toFormat('HH:mm')} was used.`,
    );
  }
  return moment;
}
