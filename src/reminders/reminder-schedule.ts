import { DateTime } from 'luxon';
import rrule from 'rrule';
import { z } from 'zod';

const { RRule } = rrule;

const weekdays = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

/** How a reminder repeats: the model fills this in; Herald turns it into an RFC 5545 rule. */
export const recurrenceSchema = z
  .object({
    frequency: z.enum(['daily', 'weekly', 'monthly', 'yearly']),
    interval: z.number().int().min(1).max(366).optional().describe('Every N periods, e.g. 2 for "every other week"'),
    weekdays: z.array(z.enum(weekdays)).min(1).max(7).optional().describe('For weekly: which days, e.g. ["MO","TU","WE","TH","FR"] for weekdays'),
    monthDays: z.array(z.number().int().min(-31).max(31).refine((day) => day !== 0, 'days are 1..31, or -1 for the last day')).min(1).max(31).optional(),
    until: z
      .string()
      .trim()
      // A model may write the last day as a date-time: the day is what counts.
      .regex(/^\d{4}-\d{2}-\d{2}([T ].*)?$/, 'must be a date like 2026-06-30')
      .transform((value) => value.slice(0, 10))
      .optional()
      .describe('Last day (inclusive, local)'),
    count: z.number().int().min(1).max(1000).optional().describe('Stop after this many reminders'),
  })
  .refine((rule) => !(rule.until && rule.count), 'give an end date or a count, not both')
  // Combinations that can match no day at all for thousands of years ("every 7 days, on
  // Mondays" from a Tuesday) make rrule step period by period up to the year 9999, seconds
  // of blocked event loop, before it can say "never". They have natural spellings instead.
  .refine(
    (rule) => !(rule.frequency === 'daily' && (rule.interval ?? 1) > 1 && (rule.weekdays || rule.monthDays)),
    'for particular weekdays or days of the month use frequency "weekly" or "monthly", not "daily" with an interval',
  )
  .refine((rule) => !(rule.frequency === 'weekly' && rule.monthDays), 'for days of the month use frequency "monthly", not "weekly"');

export type Recurrence = z.infer<typeof recurrenceSchema>;

/** A wall-clock time that does not exist or happens twice in the zone. */
export type LocalTimeProblem =
  | { kind: 'invalid'; message: string }
  | { kind: 'nonexistent'; message: string; after: string }
  | { kind: 'ambiguous'; message: string; earlier: Date; later: Date };

/**
 * The instant of a local wall-clock time in `zone`. A time skipped by a DST change
 * ("02:30" on the spring-forward night) does not exist; one repeated by it ("01:30" on
 * the fall-back night) is ambiguous unless `whenAmbiguous` picks the earlier or later.
 */
export function localToInstant(
  local: string,
  zone: string,
  whenAmbiguous?: 'earlier' | 'later',
): { ok: true; instant: Date } | { ok: false; problem: LocalTimeProblem } {
  const fields = parseLocal(local);
  if (!fields) return { ok: false, problem: { kind: 'invalid', message: `"${local}" is not a valid local date and time` } };
  const candidates = wallClockCandidates(fields, zone);
  if (candidates.length === 1) return { ok: true, instant: new Date(candidates[0]!) };
  if (candidates.length === 0) {
    const shifted = DateTime.fromObject(fields, { zone });
    return {
      ok: false,
      problem: {
        kind: 'nonexistent',
        after: shifted.toFormat("yyyy-MM-dd'T'HH:mm"),
        message: `${local.slice(11, 16)} does not exist on ${local.slice(0, 10)} in ${zone}: the clocks jump forward that night (the nearest existing time is ${shifted.toFormat('HH:mm')}).`,
      },
    };
  }
  const [earlier, later] = [new Date(candidates[0]!), new Date(candidates[candidates.length - 1]!)];
  if (whenAmbiguous) return { ok: true, instant: whenAmbiguous === 'earlier' ? earlier : later };
  return {
    ok: false,
    problem: {
      kind: 'ambiguous',
      earlier,
      later,
      message: `${local.slice(11, 16)} happens twice on ${local.slice(0, 10)} in ${zone} (the clocks go back that night): the first time is ${DateTime.fromJSDate(earlier, { zone }).toFormat('HH:mm ZZ')}, the second ${DateTime.fromJSDate(later, { zone }).toFormat('HH:mm ZZ')}.`,
    },
  };
}

interface LocalFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function parseLocal(local: string): LocalFields | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(local);
  if (!match) return undefined;
  const [year, month, day, hour, minute] = match.slice(1, 6).map(Number) as [number, number, number, number, number];
  const second = Number(match[6] ?? 0);
  const check = DateTime.fromObject({ year, month, day, hour, minute, second }, { zone: 'UTC' });
  if (!check.isValid || check.day !== day || check.month !== month) return undefined;
  return { year, month, day, hour, minute, second };
}

/** Instants (ms) whose wall-clock time in `zone` is exactly `fields`: 0, 1 or 2 of them. */
function wallClockCandidates(fields: LocalFields, zone: string): number[] {
  const wallAsUtc = Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second);
  const offsets = new Set([-14, -2, 2, 14].map((hours) => DateTime.fromMillis(wallAsUtc + hours * 3_600_000, { zone }).offset));
  return [...offsets]
    .map((offsetMinutes) => wallAsUtc - offsetMinutes * 60_000)
    .filter((candidate) => {
      const local = DateTime.fromMillis(candidate, { zone });
      return (
        local.year === fields.year &&
        local.month === fields.month &&
        local.day === fields.day &&
        local.hour === fields.hour &&
        local.minute === fields.minute &&
        local.second === fields.second
      );
    })
    .sort((left, right) => left - right);
}

/** The RFC 5545 rule (without DTSTART) for a recurrence. */
export function toRrule(recurrence: Recurrence): string {
  const options: Partial<ConstructorParameters<typeof RRule>[0]> = {
    freq: { daily: RRule.DAILY, weekly: RRule.WEEKLY, monthly: RRule.MONTHLY, yearly: RRule.YEARLY }[recurrence.frequency],
  };
  if (recurrence.interval && recurrence.interval > 1) options.interval = recurrence.interval;
  if (recurrence.weekdays) options.byweekday = recurrence.weekdays.map((day) => RRule[day]);
  if (recurrence.monthDays) options.bymonthday = recurrence.monthDays;
  if (recurrence.count) options.count = recurrence.count;
  if (recurrence.until) {
    const [year, month, day] = recurrence.until.split('-').map(Number) as [number, number, number];
    options.until = new Date(Date.UTC(year, month - 1, day, 23, 59, 59));
  }
  return RRule.optionsToString(options).replace(/^RRULE:/, '');
}

/** Wall-clock fields of an instant in `zone`, as a "floating" Date (UTC fields = local time), the form rrule computes in. */
function floating(instant: Date, zone: string): Date {
  const local = DateTime.fromJSDate(instant, { zone });
  return new Date(Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second));
}

function floatingFromLocal(local: string): Date {
  const fields = parseLocal(local)!;
  return new Date(Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second));
}

/**
 * A floating wall-clock occurrence as an instant. Occurrences are computed in wall-clock
 * time, which is what keeps "every day at 9" at 9 across DST. An occurrence at a time
 * the clocks skip moves forward by the gap (02:30 → 03:30); one at a time that happens
 * twice is the first of the two.
 */
function occurrenceInstant(occurrence: Date, zone: string): Date {
  const fields = {
    year: occurrence.getUTCFullYear(),
    month: occurrence.getUTCMonth() + 1,
    day: occurrence.getUTCDate(),
    hour: occurrence.getUTCHours(),
    minute: occurrence.getUTCMinutes(),
    second: occurrence.getUTCSeconds(),
  };
  const candidates = wallClockCandidates(fields, zone);
  if (candidates.length > 0) return new Date(candidates[0]!);
  return DateTime.fromObject(fields, { zone }).toJSDate();
}

function ruleFor(rule: string, startLocal: string) {
  return new RRule({ ...RRule.parseString(rule), dtstart: floatingFromLocal(startLocal) });
}

/** How far ahead a rule is searched for its first occurrence. */
const HORIZON_MS = 10 * 366 * 86_400_000;

/** The first occurrence at or after the start, searching ten years ahead; undefined if the rule never fires. */
export function firstOccurrence(rule: string, startLocal: string, zone: string): Date | undefined {
  const parsed = ruleFor(rule, startLocal);
  const from = floatingFromLocal(startLocal);
  const horizon = new Date(from.getTime() + HORIZON_MS);
  const [first] = parsed.between(from, horizon, true, (_date, index) => index < 1);
  return first ? occurrenceInstant(first, zone) : undefined;
}

/** The next occurrence strictly after `after`, or undefined when the rule is exhausted. */
export function nextOccurrence(rule: string, startLocal: string, zone: string, after: Date): Date | undefined {
  return nextOccurrenceWithLocal(rule, startLocal, zone, after)?.instant;
}

/**
 * The next occurrence strictly after `after` that is not one of `skipped` (instants in
 * epoch milliseconds: occurrences of an event that was moved or deleted on its own).
 */
export function nextOccurrenceSkipping(rule: string, startLocal: string, zone: string, after: Date, skipped: ReadonlySet<number>): Date | undefined {
  let next = nextOccurrence(rule, startLocal, zone, after);
  // Each skipped instant can be stepped over once; a few more than that is the most needed.
  for (let step = 0; next && skipped.has(next.getTime()) && step <= skipped.size; step += 1) {
    next = nextOccurrence(rule, startLocal, zone, next);
  }
  return next && skipped.has(next.getTime()) ? undefined : next;
}

/**
 * The next occurrence strictly after `after`, with its wall-clock time as the rule names
 * it (before any DST shift). Occurrences are found in wall-clock time, but "after" is an
 * instant: in the hour the clocks repeat, a wall-clock time later than `after`'s can still
 * be an earlier instant (01:30 EDT is before 01:10 EST), so such occurrences are passed over.
 */
export function nextOccurrenceWithLocal(rule: string, startLocal: string, zone: string, after: Date): { instant: Date; local: string } | undefined {
  const parsed = ruleFor(rule, startLocal);
  let cursor = floating(after, zone);
  // At most a couple of wall-clock occurrences can fall inside a repeated hour.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const next = parsed.after(cursor, false);
    if (!next) return undefined;
    const instant = occurrenceInstant(next, zone);
    if (instant.getTime() > after.getTime()) return { instant, local: floatingToLocalString(next) };
    cursor = next;
  }
  return undefined;
}

function floatingToLocalString(floatingDate: Date): string {
  const iso = floatingDate.toISOString();
  return floatingDate.getUTCSeconds() === 0 ? iso.slice(0, 16) : iso.slice(0, 19);
}

/** "every weekday", "every 2 weeks on Monday until June 30, 2026"… */
export function describeRule(rule: string, startLocal: string): string {
  return ruleFor(rule, startLocal).toText();
}

/** An instant as the user reads it: "Mon, Mar 2, 9:00 AM". */
export function formatLocal(instant: Date, zone: string): string {
  return DateTime.fromJSDate(instant, { zone }).toFormat('ccc, LLL d, h:mm a');
}

/** An instant as a local wall-clock string (2026-03-02T09:00). */
export function toLocalString(instant: Date, zone: string): string {
  const local = DateTime.fromJSDate(instant, { zone });
  return local.toFormat(local.second === 0 ? "yyyy-MM-dd'T'HH:mm" : "yyyy-MM-dd'T'HH:mm:ss");
}
