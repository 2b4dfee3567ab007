import type { DateTime } from 'luxon';
import type { ClockTime } from '../grammar/clock.js';
import type { PartOfDay } from '../symbols.js';

/** An hour of the 24-hour clock, with the note that explains a guess. */
export type HourAnswer = { ok: true; hour: number; notes: string[]; guessed?: 'next' | 'daytime' } | { ok: false; message: string };

const pad = (value: number): string => String(value).padStart(2, '0');

/** The hour a part of the day gives a 1–12 hour ("8 in the evening" is 20:00, "2 at night" 02:00). */
function hourInPart(hour: number, part: PartOfDay): number | undefined {
  if (hour > 12) {
    // "15 de la tarde" is odd but not wrong; "15 in the morning" is.
    return part === 'morning' ? undefined : hour;
  }
  switch (part) {
    case 'morning':
      // "12 in the morning" is midnight to some and noon to others: no answer.
      return hour === 12 ? undefined : hour;
    case 'midday':
      return hour === 12 || hour === 11 ? hour : hour <= 5 ? hour + 12 : undefined;
    case 'afternoon':
      return hour === 12 ? 12 : hour + 12;
    case 'evening':
      return hour === 12 ? undefined : hour < 4 ? undefined : hour + 12;
    case 'night':
      return hour === 12 ? 0 : hour <= 5 ? hour : hour + 12;
  }
}

/**
 * The 24-hour hour of a written time. am/pm, a part of the day and a 24-hour form decide it;
 * otherwise (a bare "at 5") Herald's convention applies, with a note naming the other reading:
 * with no day, the next time a 12-hour clock shows it; with a day, 7–11 is morning, 12 noon,
 * 1–6 afternoon.
 */
export function hourOf(clock: ClockTime, part: PartOfDay | undefined, withDay: boolean): HourAnswer {
  const { hour, meridiem } = clock;
  if (hour > 24 || clock.minute > 59 || (hour === 24 && clock.minute > 0)) return { ok: false, message: `${hour}:${pad(clock.minute)} is not a time of day.` };
  if (hour === 24) return { ok: true, hour: 0, notes: [] };
  if (meridiem) {
    if (hour > 12) return meridiem === 'pm' ? { ok: true, hour, notes: [] } : { ok: false, message: `${hour} am is not a time of day.` };
    if (hour === 0) return { ok: false, message: `0 ${meridiem} is not a time of day.` };
    return { ok: true, hour: meridiem === 'am' ? hour % 12 : (hour % 12) + 12, notes: [] };
  }
  if (part) {
    const inPart = hourInPart(hour, part);
    if (inPart === undefined) return { ok: false, message: `${hour} o'clock is not in the ${part}.` };
    return { ok: true, hour: inPart, notes: [] };
  }
  if (clock.exact || hour === 0 || hour > 12) return { ok: true, hour, notes: [] };
  if (withDay) {
    const daytime = hour === 12 ? 12 : hour >= 7 ? hour : hour + 12;
    const other = daytime === 12 ? 0 : daytime >= 12 ? daytime - 12 : daytime + 12;
    return {
      ok: true,
      hour: daytime,
      guessed: 'daytime',
      notes: [`No am/pm was given, so ${pad(daytime)}:${pad(clock.minute)} was assumed (7–11 morning, 12–6 afternoon); it may mean ${pad(other)}:${pad(clock.minute)}.`],
    };
  }
  return { ok: true, hour, guessed: 'next', notes: [] };
}

/**
 * Puts a wall-clock time on a day in the user's zone. A time the clocks skip (spring forward)
 * moves forward by the gap, as calendars do; a time that happens twice (fall back) is the
 * first, with a note naming the second.
 */
export function placeOnDay(day: DateTime, hour: number, minute: number, second: number, notes: string[]): DateTime {
  const moment = day.set({ hour, minute, second, millisecond: 0 });
  if (moment.hour !== hour || moment.minute !== minute) {
    notes.push(`${pad(hour)}:${pad(minute)} does not exist on ${day.toFormat('yyyy-MM-dd')} in ${day.zoneName ?? 'this zone'} (the clocks spring forward), so ${moment.toFormat('HH:mm')} was used.`);
    return moment;
  }
  const later = moment.plus({ hours: 1 });
  if (later.hour === hour && later.minute === minute && later.offset !== moment.offset) {
    notes.push(`${pad(hour)}:${pad(minute)} happens twice on ${day.toFormat('yyyy-MM-dd')} in ${day.zoneName ?? 'this zone'} (the clocks fall back); the first, ${moment.toFormat('HH:mm ZZ')}, was used; the second is ${later.toFormat('HH:mm ZZ')}.`);
  }
  return moment;
}

/** "17:00", for notes. */
export function formatClock(hour: number, minute: number): string {
  return `${pad(hour)}:${pad(minute)}`;
}
