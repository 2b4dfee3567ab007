import { DateTime } from 'luxon';
import type { DaySpec } from '../grammar/day.js';
import type { Quantity } from '../grammar/quantity.js';
import { holidayDate } from '../holidays.js';
import type { TimeOptions } from '../resolution.js';

/** A day placed on the calendar, several candidate days, or why there is none. */
export type DayAnswer =
  | { ok: true; day: DateTime; notes: string[] }
  | { ok: 'ambiguous'; days: Array<{ day: DateTime; label: string }>; reason: string }
  | { ok: false; message: string };

const englishWeekdays = ['', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** "2026-01-30 (Friday)". */
function describeDay(day: DateTime): string {
  return `${day.toFormat('yyyy-MM-dd')} (${englishWeekdays[day.weekday] ?? ''})`;
}

/** The first day of the week containing `day`. */
export function startOfWeek(day: DateTime, weekStart: number): DateTime {
  return day.startOf('day').minus({ days: (day.weekday - weekStart + 7) % 7 });
}

function dayOf(today: DateTime, year: number, month: number, day: number): DateTime | undefined {
  const candidate = DateTime.fromObject({ year, month, day }, { zone: today.zone });
  return candidate.isValid ? candidate.startOf('day') : undefined;
}

/** A month and day with no year: the next such date, today included (Feb 29 finds the next leap year). */
function nextMonthDay(today: DateTime, month: number, day: number): DateTime | undefined {
  for (let year = today.year; year <= today.year + 8; year += 1) {
    const candidate = dayOf(today, year, month, day);
    if (candidate && candidate >= today) return candidate;
  }
  return undefined;
}

function weekday(today: DateTime, spec: Extract<DaySpec, { d: 'weekday' }>): DayAnswer {
  const name = englishWeekdays[spec.weekday] ?? '';
  const coming = today.plus({ days: (spec.weekday - today.weekday + 7) % 7 });
  switch (spec.qualifier) {
    case 'next':
      return {
        ok: true,
        day: coming.plus({ weeks: 1 }),
        notes: [`"next ${name}" is the ${name} after the coming one (7–13 days ahead); the coming ${name} is ${describeDay(coming)}.`],
      };
    case 'after-next':
      return { ok: true, day: coming.plus({ weeks: 2 }), notes: [`"${name} after next" is two weeks after the coming ${name} (${describeDay(coming)}).`] };
    case 'last': {
      const back = (today.weekday - spec.weekday + 7) % 7 || 7;
      return { ok: true, day: today.minus({ days: back }), notes: [] };
    }
    default: {
      const notes = coming.equals(today) ? [`Today is ${name}, so it means today; the ${name} after is ${describeDay(coming.plus({ weeks: 1 }))}.`] : [];
      return { ok: true, day: coming, notes };
    }
  }
}

function plusQuantity(day: DateTime, quantity: Quantity, sign: 1 | -1): DateTime | undefined {
  const { parts } = quantity;
  const days = (parts.day ?? 0) + 14 * (parts.fortnight ?? 0);
  const values = [days, parts.week ?? 0, parts.month ?? 0, parts.year ?? 0];
  if (values.some((value) => !Number.isInteger(value)) || parts.weekend !== undefined) return undefined;
  return day.plus({ days: sign * days, weeks: sign * (parts.week ?? 0), months: sign * (parts.month ?? 0), years: sign * (parts.year ?? 0) });
}

function nthWeekdayOf(monthStart: DateTime, n: number, weekdayNumber: number): DateTime | undefined {
  if (n === -1) {
    const last = monthStart.endOf('month').startOf('day');
    return last.minus({ days: (last.weekday - weekdayNumber + 7) % 7 });
  }
  const first = monthStart.plus({ days: (weekdayNumber - monthStart.weekday + 7) % 7 });
  const day = first.plus({ weeks: n - 1 });
  return day.month === monthStart.month ? day : undefined;
}

function ordinal(n: number): string {
  if (n === -1) return 'last';
  return ['', 'first', 'second', 'third', 'fourth', 'fifth'][n] ?? `${n}th`;
}

/** Places a date, checking a weekday written with it ("friday the 13th"). */
function calendarDate(today: DateTime, spec: Extract<DaySpec, { d: 'date' }>, options: TimeOptions): DayAnswer {
  const noSuchDate = (): DayAnswer => ({ ok: false, message: 'There is no such date.' });
  if (spec.month === undefined) {
    const base = today.startOf('month').plus({ months: spec.monthOffset ?? 0 });
    if (spec.monthOffset !== undefined) {
      const day = dayOf(today, base.year, base.month, spec.day);
      if (!day) return noSuchDate();
      if (spec.weekday !== undefined && day.weekday !== spec.weekday) {
        return conflict(day, weekday(today, { d: 'weekday', weekday: spec.weekday, qualifier: 'bare' }), 'The weekday does not match the date.');
      }
      return { ok: true, day, notes: [] };
    }
    // "the 15th": the next 15th, today included; with a weekday, the next one on that weekday.
    for (let months = 0; months < 28; months += 1) {
      const month = today.startOf('month').plus({ months });
      const day = dayOf(today, month.year, month.month, spec.day);
      if (!day || day < today) continue;
      if (spec.weekday !== undefined && day.weekday !== spec.weekday) continue;
      return { ok: true, day, notes: months > 0 && spec.weekday === undefined ? [`The next ${spec.day} is in ${day.toFormat('LLLL')}.`] : [] };
    }
    return noSuchDate();
  }
  if (spec.year !== undefined) {
    const day = dayOf(today, spec.year, spec.month, spec.day);
    if (!day) return noSuchDate();
    if (spec.weekday !== undefined && day.weekday !== spec.weekday) {
      return conflict(day, weekday(today, { d: 'weekday', weekday: spec.weekday, qualifier: 'bare' }), 'The weekday does not match the date.');
    }
    return { ok: true, day, notes: [] };
  }
  const day = nextMonthDay(today, spec.month, spec.day);
  if (!day) return noSuchDate();
  if (spec.weekday !== undefined && day.weekday !== spec.weekday) {
    return conflict(day, weekday(today, { d: 'weekday', weekday: spec.weekday, qualifier: 'bare' }), 'The weekday does not match the date.');
  }
  void options;
  return { ok: true, day, notes: [] };
}

function conflict(date: DateTime, other: DayAnswer, reason: string): DayAnswer {
  if (other.ok !== true) return other;
  return { ok: 'ambiguous', days: [{ day: date, label: 'the date' }, { day: other.day, label: 'the weekday' }], reason };
}

function numericDate(today: DateTime, spec: Extract<DaySpec, { d: 'numeric' }>, options: TimeOptions): DayAnswer {
  // Two-digit years: within the next 20 years they are this century's, else the last one's ("03/18/40" in 2026 is 2040; "89" is 1989).
  const year = spec.year !== undefined && spec.twoDigitYear ? (2000 + spec.year <= today.year + 20 ? 2000 + spec.year : 1900 + spec.year) : spec.year;
  const place = (day: number, month: number): DateTime | undefined =>
    year !== undefined ? dayOf(today, year, month, day) : nextMonthDay(today, month, day);
  const dayFirst = place(spec.first, spec.second);
  const monthFirst = place(spec.second, spec.first);
  if (!dayFirst && !monthFirst) return { ok: false, message: 'There is no such date.' };
  if (dayFirst && monthFirst && !dayFirst.equals(monthFirst)) {
    if (options.dayFirst === true) return { ok: true, day: dayFirst, notes: ['Numeric dates are read day first.'] };
    if (options.dayFirst === false) return { ok: true, day: monthFirst, notes: ['Numeric dates are read month first.'] };
    return {
      ok: 'ambiguous',
      days: [{ day: dayFirst, label: 'day first' }, { day: monthFirst, label: 'month first' }],
      reason: 'A numeric date can be read day first or month first.',
    };
  }
  const only = dayFirst ?? monthFirst;
  if (!only) return { ok: false, message: 'There is no such date.' };
  return { ok: true, day: only, notes: [] };
}

function holiday(today: DateTime, spec: Extract<DaySpec, { d: 'holiday' }>, options: TimeOptions): DayAnswer {
  const fixedYear = spec.year ?? (spec.yearOffset !== undefined ? today.year + spec.yearOffset : undefined);
  const years = fixedYear !== undefined ? [fixedYear] : spec.last ? [today.year, today.year - 1] : [today.year, today.year + 1];
  for (const year of years) {
    const found = holidayDate(spec.key, year, options.country);
    if ('error' in found) return { ok: false, message: found.error };
    const first = DateTime.fromISO(found.date, { zone: today.zone });
    const day = spec.eve ? first.minus({ days: 1 }) : first;
    if (fixedYear === undefined && (spec.last ? day >= today : day < today)) continue;
    return { ok: true, day, notes: found.note ? [found.note] : [] };
  }
  return { ok: false, message: `No date found for "${spec.key}".` };
}

function edge(today: DateTime, spec: Extract<DaySpec, { d: 'edge' }>, options: TimeOptions): DayAnswer {
  let start: DateTime;
  let end: DateTime;
  if (spec.month !== undefined) {
    const first = nextMonthDay(today.startOf('month'), spec.month, 1) ?? today;
    start = first;
    end = first.endOf('month').startOf('day');
  } else if (spec.unit === 'week') {
    start = startOfWeek(today, options.weekStart).plus({ weeks: spec.offset });
    end = start.plus({ days: 6 });
  } else {
    start = today.startOf(spec.unit).plus(spec.unit === 'month' ? { months: spec.offset } : { years: spec.offset });
    end = start.endOf(spec.unit).startOf('day');
  }
  if (spec.edge === 'start') return { ok: true, day: start, notes: [] };
  if (spec.edge === 'end') return { ok: true, day: end, notes: [`"end of" is read as the last day, ${describeDay(end)}.`] };
  const middle = spec.unit === 'week' ? start.plus({ days: 3 }) : spec.unit === 'year' && spec.month === undefined ? start.set({ month: 7, day: 1 }) : start.set({ day: 15 });
  return { ok: true, day: middle, notes: [`"mid" is read as ${describeDay(middle)}.`] };
}

/** Places a written day on the calendar, relative to `today` (midnight in the user's zone). */
export function resolveDaySpec(spec: DaySpec, today: DateTime, options: TimeOptions): DayAnswer {
  switch (spec.d) {
    case 'rel':
      return { ok: true, day: today.plus({ days: spec.days }), notes: [] };
    case 'weekday':
      return weekday(today, spec);
    case 'weekday-in-week': {
      const day = startOfWeek(today, options.weekStart).plus({ weeks: spec.weeks, days: (spec.weekday - options.weekStart + 7) % 7 });
      return { ok: true, day, notes: [] };
    }
    case 'date':
      return calendarDate(today, spec, options);
    case 'numeric':
      return numericDate(today, spec, options);
    case 'nth-weekday': {
      let monthStart: DateTime;
      if (spec.month !== undefined) {
        monthStart = DateTime.fromObject({ year: spec.year ?? today.year, month: spec.month, day: 1 }, { zone: today.zone });
        const found = nthWeekdayOf(monthStart, spec.n, spec.weekday);
        if (spec.year === undefined && (!found || found < today)) monthStart = monthStart.plus({ years: 1 });
      } else if (spec.monthOffset !== undefined) {
        monthStart = today.startOf('month').plus({ months: spec.monthOffset });
      } else {
        // "the third tuesday": this month's, or next month's once it has passed; a month without it is no answer.
        monthStart = today.startOf('month');
        const thisMonth = nthWeekdayOf(monthStart, spec.n, spec.weekday);
        if (thisMonth && thisMonth < today) monthStart = monthStart.plus({ months: 1 });
      }
      const day = nthWeekdayOf(monthStart, spec.n, spec.weekday);
      if (!day) return { ok: false, message: `${monthStart.toFormat('LLLL yyyy')} has no ${ordinal(spec.n)} ${englishWeekdays[spec.weekday] ?? ''}.` };
      return { ok: true, day, notes: [] };
    }
    case 'holiday':
      return holiday(today, spec, options);
    case 'offset': {
      const base = spec.from ? resolveDaySpec(spec.from, today, options) : { ok: true as const, day: today, notes: [] };
      if (base.ok !== true) return base;
      const day = plusQuantity(base.day, spec.quantity, spec.sign);
      if (!day) return { ok: false, message: 'That is not a whole number of days.' };
      return { ok: true, day, notes: base.notes };
    }
    case 'weekday-count': {
      const first = today.plus({ days: (spec.weekday - today.weekday + 7) % 7 || 7 });
      return { ok: true, day: first.plus({ weeks: spec.count - 1 }), notes: [] };
    }
    case 'edge':
      return edge(today, spec, options);
  }
}
