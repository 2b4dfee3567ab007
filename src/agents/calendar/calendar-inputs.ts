import { DateTime } from 'luxon';
import { z } from 'zod';
import type { TimeRange } from '../../calendar/calendar-event.js';
import { localToInstant } from '../../reminders/reminder-schedule.js';
import { dateTimeInputSchema, resolveDateTimeInput } from '../../tools/date-time-input.js';

const isoDate = z.string().trim().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date like 2026-03-06');

/** A start or end: the user's local date and time, or an ISO timestamp with an offset. */
export const dateTimeInput = dateTimeInputSchema.describe("The user's local date and time (2026-03-06T13:00), or an ISO timestamp with its UTC offset");

/** A range bound: a whole day ("2026-03-06") or a date and time. */
export const rangeBound = z.union([isoDate, dateTimeInputSchema]).describe('A date (2026-03-06, the whole day) or a local date and time (2026-03-06T12:00)');

export const whenAmbiguous = z
  .enum(['earlier', 'later'])
  .optional()
  .describe('Only when the user chose: which of the two times a local time that happens twice (the night the clocks go back) means');

/** A checked wall-clock time in the user's zone, with a note for the reply when the input named another offset. */
export type CheckedTime = { ok: true; local: string; instant: Date; note?: string } | { ok: false; error: string };

/**
 * Reads a new event's time. A time the clocks skip (DST) or show twice is refused with
 * the question to ask; nothing is saved on a guess.
 */
export function checkTime(value: string, zone: string, choice: 'earlier' | 'later' | undefined): CheckedTime {
  const resolved = resolveDateTimeInput(value, zone);
  if (!resolved.ok) return resolved;
  const instant = localToInstant(resolved.local, zone, resolved.whenAmbiguous ?? choice);
  if (!instant.ok) return { ok: false, error: `${instant.problem.message} Nothing was saved; ask the user which time they mean.` };
  return { ok: true, local: resolved.local, instant: instant.instant, ...(resolved.note ? { note: resolved.note } : {}) };
}

/** A listing range from two bounds: a date means the whole day (`to` inclusive of it). */
export function readRange(from: string, to: string | undefined, zone: string): { ok: true; range: TimeRange } | { ok: false; error: string } {
  const start = boundInstant(from, zone, 'start');
  const end = boundInstant(to ?? from, zone, 'end');
  if (!start.ok) return start;
  if (!end.ok) return end;
  if (end.instant.getTime() <= start.instant.getTime()) return { ok: false, error: '"to" must be after "from".' };
  if (end.instant.getTime() - start.instant.getTime() > 366 * 86_400_000) return { ok: false, error: 'The range can be at most a year long; ask for a shorter one.' };
  return { ok: true, range: { from: start.instant, to: end.instant } };
}

function boundInstant(value: string, zone: string, side: 'start' | 'end'): { ok: true; instant: Date } | { ok: false; error: string } {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value.trim())) {
    const day = DateTime.fromISO(value.trim(), { zone });
    if (!day.isValid) return { ok: false, error: `"${value}" is not a valid date` };
    return { ok: true, instant: (side === 'start' ? day.startOf('day') : day.plus({ days: 1 }).startOf('day')).toJSDate() };
  }
  const resolved = resolveDateTimeInput(value, zone);
  if (!resolved.ok) return resolved;
  const instant = localToInstant(resolved.local, zone, resolved.whenAmbiguous ?? 'earlier');
  return { ok: true, instant: instant.ok ? instant.instant : DateTime.fromISO(resolved.local, { zone }).toJSDate() };
}

/** The date after `date` (an all-day event's exclusive end). */
export function dayAfter(date: string): string {
  return DateTime.fromISO(date, { zone: 'UTC' }).plus({ days: 1 }).toISODate()!;
}

export { isoDate };
