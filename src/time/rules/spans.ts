import { DateTime } from 'luxon';
import type { SpanSpec } from '../grammar/span.js';
import type { TimeOptions } from '../resolution.js';
import type { PartOfDay } from '../symbols.js';
import { startOfWeek } from './days.js';

/** A span with an exclusive end, and the notes that explain it. */
export interface SpanAnswer {
  start: DateTime;
  end: DateTime;
  notes: string[];
}

/** Hours of the parts of the day (end exclusive; 24 is midnight after). */
const partHours: Record<PartOfDay, { from: number; to: number }> = {
  morning: { from: 6, to: 12 },
  midday: { from: 12, to: 15 },
  afternoon: { from: 12, to: 18 },
  evening: { from: 18, to: 24 },
  night: { from: 18, to: 24 },
};

/** The part of the day on `day`, as a span. */
export function partSpan(day: DateTime, part: PartOfDay): SpanAnswer {
  const hours = partHours[part];
  const start = day.set({ hour: hours.from });
  const end = hours.to === 24 ? day.plus({ days: 1 }).startOf('day') : day.set({ hour: hours.to });
  return { start, end, notes: [`"${part}" is read as ${start.toFormat('HH:mm')}–${hours.to === 24 ? '24:00' : end.toFormat('HH:mm')}.`] };
}

/** The weekend containing `today`, or the coming one. */
function currentWeekend(today: DateTime, weekend: [number, number]): DateTime {
  const [first, second] = weekend;
  if (today.weekday === first) return today;
  if (today.weekday === second) return today.minus({ days: 1 });
  return today.plus({ days: (first - today.weekday + 7) % 7 });
}

function days(start: DateTime, count: number, notes: string[] = []): SpanAnswer {
  return { start, end: start.plus({ days: count }), notes };
}

/** Places a written span on the calendar. */
export function resolveSpan(spec: SpanSpec, now: DateTime, options: TimeOptions): SpanAnswer | { error: string } {
  const today = now.startOf('day');
  switch (spec.s) {
    case 'unit':
      switch (spec.unit) {
        case 'week':
          return days(startOfWeek(today, options.weekStart).plus({ weeks: spec.offset }), 7);
        case 'fortnight':
          return days(startOfWeek(today, options.weekStart).plus({ weeks: 2 * spec.offset }), 14);
        case 'weekend': {
          const first = currentWeekend(today, options.weekend).plus({ weeks: spec.offset });
          const notes = spec.offset === 1 ? [`"next weekend" is the one after the coming weekend (which starts ${currentWeekend(today, options.weekend).toFormat('yyyy-MM-dd')}).`] : [];
          return days(first, 2, notes);
        }
        case 'month': {
          const start = today.startOf('month').plus({ months: spec.offset });
          return { start, end: start.plus({ months: 1 }), notes: [] };
        }
        case 'year': {
          const start = today.startOf('year').plus({ years: spec.offset });
          return { start, end: start.plus({ years: 1 }), notes: [] };
        }
      }
      return { error: 'Unknown span.' };
    case 'month': {
      let year = spec.year ?? today.year;
      if (spec.year === undefined && spec.month < today.month) year += 1;
      const start = DateTime.fromObject({ year, month: spec.month, day: 1 }, { zone: today.zone });
      return { start, end: start.plus({ months: 1 }), notes: [] };
    }
    case 'year': {
      const start = DateTime.fromObject({ year: spec.year, month: 1, day: 1 }, { zone: today.zone });
      return { start, end: start.plus({ years: 1 }), notes: [] };
    }
    case 'rolling': {
      const length = spec.unit === 'day' ? spec.count : spec.unit === 'week' ? spec.count * 7 : undefined;
      if (length === undefined) {
        const start = spec.sign === 1 ? today : today.minus({ months: spec.count }).plus({ days: 1 });
        return { start, end: spec.sign === 1 ? today.plus({ months: spec.count }) : today.plus({ days: 1 }), notes: [] };
      }
      const note = [`Read as ${length} calendar day${length === 1 ? '' : 's'} including today.`];
      return spec.sign === 1 ? days(today, length, note) : days(today.minus({ days: length - 1 }), length, note);
    }
    case 'rest': {
      const end =
        spec.unit === 'day'
          ? today.plus({ days: 1 })
          : spec.unit === 'week'
            ? startOfWeek(today, options.weekStart).plus({ weeks: 1 })
            : today.startOf(spec.unit).plus(spec.unit === 'month' ? { months: 1 } : { years: 1 });
      return { start: now.startOf('second'), end, notes: [] };
    }
  }
}
