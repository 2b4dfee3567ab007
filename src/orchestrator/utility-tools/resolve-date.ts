import * as chrono from 'chrono-node';
import { DateTime } from 'luxon';
import { z } from 'zod';
import { defineTool, ok, toolError } from '../../tools/tool.js';
import { normalizeDateExpression } from './hebrew-date-words.js';
import { isValidTimezone } from '../../shared/time-zones.js';
import { formatIsoWithOffset, formattingLocale, invalidTimezoneMessage } from './time-context.js';
import { localDay, nextOccurrenceOfMonthDay, parseWithChrono, placeTime, wallTimeOf } from './chrono-fields.js';
import { notUnderstoodMessage, type DayResolution, type ResolveDayOptions, type ResolvedDay } from './resolved-day.js';
import { resolveOrdinalDay, resolveWeekday, weekdayThenWeekPattern, weekThenWeekdayPattern } from './weekday-rules.js';

export { normalizeDateExpression } from './hebrew-date-words.js';

/*
 * How resolve_date reads an expression, in order:
 *
 * 1. The text is lower-cased and Hebrew date words are translated to English
 *    ({@link normalizeDateExpression}); chrono-node has no Hebrew locale.
 * 2. Phrases chrono-node gets wrong or does not know are handled here: "day after tomorrow"
 *    (chrono reads only "tomorrow"), weekdays (see {@link resolveWeekday}; chrono's "next"
 *    and "last" differ from Herald's rule, and with `forwardDate` it puts "last friday" in
 *    the future), and bare ordinals like "the 1st" (chrono finds nothing).
 * 3. Everything else goes to chrono-node with `forwardDate`; a month and day without a year
 *    ("Dec 25") is the next such date, today included.
 *
 * chrono-node is used to read calendar fields (year, month, day, hour, minute) from the text;
 * its own `Date` results are not trusted for wall-clock times. Its `timezone` reference
 * accepts abbreviations such as "PST" but silently ignores IANA names (falling back to the
 * server's zone), and a numeric offset stays fixed at the offset of "now", so "tomorrow at
 * 9am" across a DST change came out an hour off. The fields are turned into moments with
 * luxon in the user's IANA zone instead. Only a duration from now ("in 3 hours", "now") uses
 * chrono's instant, which is zone-independent; a time that names its own zone ("3pm EST", an
 * ISO `Z`) is built in that offset and converted to the user's zone.
 */

/** How far from today a resolved date may be before it is treated as a misreading. */
const maximumYearsAway = 100;

/** Phrases that name a span (a week, a month…) rather than a single day. */
const spanPattern = /^(?:the\s+)?(?:this|next|last|coming|this coming|past|previous)?\s*(?:week|weekend|month|year)$/;

/** A day found by one of the rules, with the notes explaining it. */
type DayFinding = { day: DateTime; notes: string[] } | { error: string } | undefined;

/** Finds the calendar day an expression names, ignoring any time of day. */
function findDay(
  expression: string,
  normalized: string,
  first: chrono.ParsedResult | undefined,
  today: DateTime,
  weekStartsOn: number,
): DayFinding {
  const dayShift = /\b(?:the\s+)?day after tomorrow\b|\bovermorrow\b/.test(normalized)
    ? 2
    : /\b(?:the\s+)?day before yesterday\b/.test(normalized) ? -2 : undefined;
  if (dayShift !== undefined) return { day: today.plus({ days: dayShift }), notes: [] };

  // Parts of today that chrono, with forwardDate, moves to tomorrow once they have begun.
  if (/^(?:tonight|this (?:morning|afternoon|evening|night))$/.test(normalized)) return { day: today, notes: [] };

  const relative = first?.tags().has('result/relativeDate') ?? false;
  const weekQualified = weekdayThenWeekPattern.test(normalized) || weekThenWeekdayPattern.test(normalized);
  if (first && first.start.isCertain('day') && !relative && !weekQualified) {
    const month = first.start.get('month') ?? today.month;
    const dayOfMonth = first.start.get('day') ?? today.day;
    const day = first.start.isCertain('year')
      ? localDay(first.start.get('year') ?? today.year, month, dayOfMonth, today.zone)
      : nextOccurrenceOfMonthDay(month, dayOfMonth, today);
    return day ? { day, notes: [] } : { error: notUnderstoodMessage(expression) };
  }

  // An ordinal first, so "friday the 13th" is a date and not just "friday".
  const ordinal = resolveOrdinalDay(normalized, today);
  if (ordinal) return ordinal;

  const weekday = resolveWeekday(normalized, today, weekStartsOn);
  if (weekday) return weekday;

  // Relative days ("in 3 days", "in 2 months"): chrono's fields are the user's wall date.
  if (first && relative) {
    const day = localDay(first.start.get('year') ?? today.year, first.start.get('month') ?? today.month, first.start.get('day') ?? today.day, today.zone);
    return day ? { day, notes: [] } : { error: notUnderstoodMessage(expression) };
  }

  if (first?.start.isCertain('month')) {
    return { error: `"${expression}" names a month, not a single date; use resolve_time_range for it, or describe it in words in the plan.` };
  }
  return undefined;
}

/**
 * Reads a single day (and optional time of day) from `expression`, relative to `now`, which
 * must already be in the user's zone. See {@link resolveWeekday} for the weekday rule; a
 * month and day without a year is the next such date, today included; a time alone
 * ("3pm") is today if it is still ahead, otherwise tomorrow.
 */
export function resolveDay(expression: string, now: DateTime, options: ResolveDayOptions = {}): DayResolution {
  const weekStartsOn = options.weekStartsOn ?? 1;
  const normalized = normalizeDateExpression(expression);
  const today = now.startOf('day');
  if (normalized === '') return { isError: true, error: notUnderstoodMessage(expression) };

  if (spanPattern.test(normalized)) {
    return {
      isError: true,
      error: `"${expression}" is a span of days, not a single date; use resolve_time_range for it, or describe it in words in the plan.`,
    };
  }

  const results = parseWithChrono(normalized, now);
  const first = results[0];

  // A duration from now ("in 3 hours", "in 30 minutes", "now"): chrono adds it to the
  // instant, which is right in any zone; the result is re-expressed in the user's zone.
  if (first?.tags().has('result/relativeDateAndTime') || first?.tags().has('casualReference/now')) {
    const moment = DateTime.fromJSDate(first.start.date(), { zone: now.zone }).startOf('minute');
    return { isError: false, day: moment.startOf('day'), moment, notes: [] };
  }

  const time = wallTimeOf(results.find((result) => result.start.isCertain('hour')));
  const notes: string[] = [...(time?.notes ?? [])];
  const found = findDay(expression, normalized, first, today, weekStartsOn);
  if (found && 'error' in found) return { isError: true, error: found.error };
  // Nothing Herald plans for is centuries away; "in 100000 years" is a joke, not a date.
  if (found && Math.abs(found.day.year - today.year) > maximumYearsAway) {
    return { isError: true, error: `"${expression}" is more than ${maximumYearsAway} years away; describe it in words in the plan instead.` };
  }

  if (found) {
    const allNotes = [...found.notes, ...notes];
    if (!time) return { isError: false, day: found.day, notes: allNotes };
    const moment = placeTime(found.day, time, allNotes);
    // A time in another zone can land on a different local day ("friday 11pm EST" in Jerusalem).
    return { isError: false, day: moment.startOf('day'), moment, notes: allNotes };
  }

  // A time with no day: the next time the clock shows it.
  if (time) {
    const todayAtTime = placeTime(today, time, notes);
    if (todayAtTime >= now.startOf('minute')) return { isError: false, day: todayAtTime.startOf('day'), moment: todayAtTime, notes };
    notes.push('No day was given and that time has passed today, so it means tomorrow.');
    const tomorrowAtTime = placeTime(today.plus({ days: 1 }), time, notes);
    return { isError: false, day: tomorrowAtTime.startOf('day'), moment: tomorrowAtTime, notes };
  }

  return { isError: true, error: notUnderstoodMessage(expression) };
}

/** What resolve_date returns. */
export interface ResolvedDate {
  expression: string;
  /** `YYYY-MM-DD` in the user's zone. */
  date: string;
  /** English weekday name of `date`. */
  weekday: string;
  isToday: boolean;
  /** With a time: the moment has passed. Without: the date is before today. */
  isPast: boolean;
  /** `HH:mm`, when the expression included a time of day. */
  time?: string;
  /** The full moment with its UTC offset, when the expression included a time of day. */
  iso?: string;
  /** Rules applied that the planner should know about (the weekday rule, guessed am/pm…). */
  note?: string;
}

/** Shapes a {@link ResolvedDay} for the model. */
export function describeResolvedDay(expression: string, resolved: ResolvedDay, now: DateTime): ResolvedDate {
  const today = now.startOf('day');
  const output: ResolvedDate = {
    expression,
    date: resolved.day.toFormat('yyyy-MM-dd'),
    weekday: resolved.day.setLocale(formattingLocale).toFormat('cccc'),
    isToday: resolved.day.hasSame(today, 'day'),
    isPast: resolved.moment ? resolved.moment < now : resolved.day < today,
  };
  const notes = [...resolved.notes];
  if (resolved.moment) {
    output.time = resolved.moment.toFormat('HH:mm');
    output.iso = formatIsoWithOffset(resolved.moment);
    if (output.isPast && output.isToday) notes.push('That time has already passed today.');
  }
  if (notes.length > 0) output.note = notes.join(' ');
  return output;
}

const resolveDateInput = z.object({
  expression: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe('The date as the user said it, e.g. "friday", "next tuesday", "tomorrow at 9am", "in 3 days", "the 1st", "Dec 25", "2026-02-03", "מחר", "יום שישי".'),
});

/** Converts a relative date the user wrote into a calendar date in their time zone (UT-1, UT-5). */
export const resolveDateTool = defineTool({
  name: 'resolve_date',
  description: [
    "Converts a date the user mentioned (\"friday\", \"next tuesday\", \"tomorrow\", \"in 3 days\", \"the 1st\", \"Dec 25\", \"2026-02-03\", Hebrew \"מחר\", \"מחרתיים\", \"היום\", \"יום שישי\") into a YYYY-MM-DD date in the user's time zone, with the time as HH:mm and a full ISO timestamp when a time was given (\"friday at 3pm\").",
    'Call it before planning and put the returned date in every task description so all agents use the same day.',
    'Weekday rule: "friday" or "this friday" is the next Friday, today included (on a Friday it means today); "next friday" is the Friday after that one, always 7–13 days ahead (on Wednesday 2026-01-28, "friday" = 2026-01-30 and "next friday" = 2026-02-06); "last friday" is the most recent Friday before today; "friday next week" is the Friday of next calendar week (weeks start Monday).',
    'A date without a year is the next such date, today included. A time alone ("3pm") is the next time the clock shows it.',
    'For spans ("this week", "next month") use resolve_time_range. Read the note field: it explains any rule applied. If the tool returns an error, describe the date in words in the plan instead.',
  ].join(' '),
  inputSchema: resolveDateInput,
  mutates: false,
  async run(input, context) {
    if (!isValidTimezone(context.timezone)) return toolError(invalidTimezoneMessage(context.timezone));
    const now = DateTime.fromJSDate(context.clock.now(), { zone: context.timezone });
    const resolution = resolveDay(input.expression, now);
    if (resolution.isError) return toolError(resolution.error);
    return ok(describeResolvedDay(input.expression, resolution, now));
  },
});
