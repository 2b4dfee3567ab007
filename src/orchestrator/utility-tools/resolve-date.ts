import * as chrono from 'chrono-node';
import { DateTime, FixedOffsetZone } from 'luxon';
import { z } from 'zod';
import { defineTool, ok, toolError } from '../../tools/tool.js';
import { normalizeDateExpression } from './hebrew-date-words.js';
import { formatIsoWithOffset, formattingLocale, invalidTimezoneMessage, isValidTimezone } from './time-context.js';

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

/** Luxon weekday numbers (1 = Monday … 7 = Sunday) by English name and abbreviation. */
const weekdayNumbers: Record<string, number> = {
  monday: 1, mon: 1,
  tuesday: 2, tue: 2, tues: 2,
  wednesday: 3, wed: 3,
  thursday: 4, thu: 4, thur: 4, thurs: 4,
  friday: 5, fri: 5,
  saturday: 6, sat: 6,
  sunday: 7, sun: 7,
};

const weekdayAlternation = Object.keys(weekdayNumbers)
  .sort((left, right) => right.length - left.length)
  .join('|');

/** "friday", "this friday", "next fri", "last friday", "on friday". */
const weekdayPattern = new RegExp(
  `\\b(?:(this coming|coming|this|next|last|past|previous)\\s+)?(${weekdayAlternation})\\b`,
);

/** "friday next week", "friday of this week", "friday in last week". */
const weekdayThenWeekPattern = new RegExp(
  `\\b(${weekdayAlternation})\\b,?\\s+(?:of\\s+|in\\s+)?(this|next|last)\\s+week\\b`,
);

/** "next week friday", "next week on friday", "this week's friday". */
const weekThenWeekdayPattern = new RegExp(
  `\\b(this|next|last)\\s+week(?:'s)?,?\\s+(?:on\\s+)?(${weekdayAlternation})\\b`,
);

/** "the 1st", "on the 15th", "3rd" — a day of the month with no month named. */
const ordinalDayPattern = /\b(?:on\s+)?(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b/;

/** Any English month name or abbreviation. */
const monthNamePattern =
  /\b(?:january|jan|february|feb|march|mar|april|apr|may|june|jun|july|jul|august|aug|september|sept|sep|october|oct|november|nov|december|dec)\b/;

/** How far from today a resolved date may be before it is treated as a misreading. */
const maximumYearsAway = 100;

/** Phrases that name a span (a week, a month…) rather than a single day. */
const spanPattern = /^(?:the\s+)?(?:this|next|last|coming|this coming|past|previous)?\s*(?:week|weekend|month|year)$/;

/** English names for the weekdays, by luxon weekday number. */
function weekdayName(weekday: number): string {
  return DateTime.fromObject({ year: 2026, month: 1, day: 4 + weekday }).setLocale(formattingLocale).toFormat('cccc');
}

/** Options for {@link resolveDay}. */
export interface ResolveDayOptions {
  /** First day of the week for "friday next week": 0 = Sunday … 6 = Saturday. Default 1 (Monday). */
  weekStartsOn?: number;
}

/** A day read from an expression, before it is shaped into tool output. */
export interface ResolvedDay {
  /** Midnight at the start of the day, in the user's zone. */
  day: DateTime;
  /** The exact moment, when the expression also gave a time of day. */
  moment?: DateTime;
  /** Rules applied that the planner should know about. */
  notes: string[];
}

/** Either a day or a message saying why the expression is not one. */
export type DayResolution = ({ isError: false } & ResolvedDay) | { isError: true; error: string };

/** The message for an expression that could not be read; it tells the planner to use words (UT-6). */
export function notUnderstoodMessage(expression: string): string {
  return `Could not understand "${expression}" as a date; describe it in words in the plan instead.`;
}

/** The most recent `weekStartsOn` day on or before `day` (midnight, local). */
export function startOfWeek(day: DateTime, weekStartsOn: number): DateTime {
  const daysSinceWeekStart = (day.weekday % 7 - weekStartsOn + 7) % 7;
  return day.startOf('day').minus({ days: daysSinceWeekStart });
}

/** "2026-01-30 (Friday)", for notes. */
function describeDay(day: DateTime): string {
  return `${day.toFormat('yyyy-MM-dd')} (${day.setLocale(formattingLocale).toFormat('cccc')})`;
}

/**
 * The weekday rule. With today being `now`'s date:
 *
 * - "friday", "this friday", "coming friday", "on friday": the next Friday, today included —
 *   on a Friday, "friday" is today (0–6 days ahead).
 * - "next friday": the Friday after that one, always 7–13 days ahead (on Wednesday
 *   2026-01-28, "friday" is 2026-01-30 and "next friday" 2026-02-06). It is never the
 *   tomorrow-ish Friday, even on a Thursday; a note names the coming Friday in case the user
 *   meant it.
 * - "last friday": the most recent Friday before today (1–7 days back).
 * - "friday this week" / "friday next week" / "friday last week": the Friday of that calendar
 *   week, weeks starting on `weekStartsOn` (Monday by default); may be in the past.
 */
export function resolveWeekday(
  normalized: string,
  today: DateTime,
  weekStartsOn: number,
): ResolvedDay | undefined {
  const weekQualified = weekdayThenWeekPattern.exec(normalized);
  const weekFirst = weekThenWeekdayPattern.exec(normalized);
  if (weekQualified ?? weekFirst) {
    const phrase = (weekQualified ?? weekFirst)?.[0] ?? '';
    const [weekdayText, week] = weekQualified ? [weekQualified[1], weekQualified[2]] : [weekFirst?.[2], weekFirst?.[1]];
    const weekday = weekdayNumbers[weekdayText ?? ''];
    if (weekday === undefined) return undefined;
    const weeksAhead = week === 'next' ? 1 : week === 'last' ? -1 : 0;
    const weekStart = startOfWeek(today, weekStartsOn).plus({ weeks: weeksAhead });
    const day = weekStart.plus({ days: (weekday % 7 - weekStartsOn + 7) % 7 });
    return { day, notes: [`"${phrase}" is read as that day in the calendar week (weeks start on ${weekdayName(weekStartsOn === 0 ? 7 : weekStartsOn)}).`] };
  }

  const match = weekdayPattern.exec(normalized);
  if (!match) return undefined;
  const qualifier = match[1];
  const weekdayText = match[2] ?? '';
  const weekday = weekdayNumbers[weekdayText];
  if (weekday === undefined) return undefined;
  const name = weekdayName(weekday);
  const daysUntilComing = (weekday - today.weekday + 7) % 7;
  const coming = today.plus({ days: daysUntilComing });

  if (qualifier === 'next') {
    const day = coming.plus({ weeks: 1 });
    return {
      day,
      notes: [
        `"next ${name}" is read as the ${name} after the coming one (always 7–13 days ahead); the coming ${name} is ${describeDay(coming)}. Confirm with the user if they may have meant that one.`,
      ],
    };
  }
  if (qualifier === 'last' || qualifier === 'past' || qualifier === 'previous') {
    const daysBack = (today.weekday - weekday + 7) % 7 || 7;
    return { day: today.minus({ days: daysBack }), notes: [`"${qualifier} ${name}" is read as the most recent ${name} before today.`] };
  }
  const notes = daysUntilComing === 0
    ? [`Today is ${name}, so "${match[0]}" means today; the ${name} after is ${describeDay(coming.plus({ weeks: 1 }))}.`]
    : [];
  return { day: coming, notes };
}

/**
 * "the 15th": the next 15th of a month, today included; months without that day are skipped
 * ("the 31st" in February is March 31). With a weekday ("monday the 2nd", "friday the 13th")
 * it is the next such date that falls on that weekday.
 */
function resolveOrdinalDay(normalized: string, today: DateTime): ResolvedDay | undefined {
  const match = ordinalDayPattern.exec(normalized);
  // With a month named ("31st of february") chrono owns the date; if it found none, neither do we.
  if (!match || monthNamePattern.test(normalized)) return undefined;
  const dayOfMonth = Number(match[1]);
  if (dayOfMonth < 1 || dayOfMonth > 31) return undefined;
  const ordinal = `${dayOfMonth}${ordinalSuffix(dayOfMonth)}`;
  const weekdayText = weekdayPattern.exec(normalized)?.[2];
  const weekday = weekdayText === undefined ? undefined : weekdayNumbers[weekdayText];

  const candidates: DateTime[] = [];
  // Two years always contain every weekday/day-of-month pairing that exists at all.
  for (let monthsAhead = 0; monthsAhead < 28; monthsAhead += 1) {
    const month = today.startOf('month').plus({ months: monthsAhead });
    if (dayOfMonth > (month.daysInMonth ?? 0)) continue;
    const day = month.set({ day: dayOfMonth });
    if (day >= today) candidates.push(day);
  }
  const first = candidates[0];
  if (!first) return undefined;
  const notes = [`A day of the month with no month named is read as the next ${ordinal}, today included.`];
  if (weekday === undefined) {
    if (first.month !== today.month && dayOfMonth > (today.daysInMonth ?? 31)) {
      notes.push(`${today.setLocale(formattingLocale).toFormat('LLLL')} has no ${ordinal}.`);
    }
    return { day: first, notes };
  }
  const onWeekday = candidates.find((candidate) => candidate.weekday === weekday);
  if (onWeekday) {
    if (onWeekday !== first) notes.push(`The next ${ordinal} on a ${weekdayName(weekday)} was used; the next ${ordinal} is ${describeDay(first)}.`);
    return { day: onWeekday, notes };
  }
  notes.push(`No ${ordinal} falls on a ${weekdayName(weekday)} soon, so the weekday was ignored.`);
  return { day: first, notes };
}

function ordinalSuffix(value: number): string {
  if (value % 100 >= 11 && value % 100 <= 13) return 'th';
  return value % 10 === 1 ? 'st' : value % 10 === 2 ? 'nd' : value % 10 === 3 ? 'rd' : 'th';
}

/** Everything chrono-node finds in the text, read from `now` in the user's zone. */
function parseWithChrono(normalized: string, now: DateTime): chrono.ParsedResult[] {
  // chrono reads the text as if the clock showed the user's wall time at a fixed offset; it
  // ignores IANA names, so the offset of "now" in the user's zone is passed as a number.
  return chrono.parse(normalized, { instant: now.toJSDate(), timezone: now.offset }, { forwardDate: true });
}

/**
 * A month and day with no year ("Dec 25"): this year if that date is today or later,
 * otherwise the next year that has it (so "Feb 29" finds the next leap year).
 */
function nextOccurrenceOfMonthDay(month: number, dayOfMonth: number, today: DateTime): DateTime | undefined {
  for (let year = today.year; year <= today.year + 8; year += 1) {
    const candidate = DateTime.fromObject({ year, month, day: dayOfMonth }, { zone: today.zone });
    if (candidate.isValid && candidate.startOf('day') >= today) return candidate.startOf('day');
  }
  return undefined;
}

/** Midnight of a calendar date in the user's zone, or undefined when the date does not exist. */
function localDay(year: number, month: number, dayOfMonth: number, zone: DateTime['zone']): DateTime | undefined {
  const day = DateTime.fromObject({ year, month, day: dayOfMonth }, { zone });
  return day.isValid ? day.startOf('day') : undefined;
}

/** The time of day chrono found, as wall-clock fields, plus a note when am/pm was a guess. */
interface WallTime {
  hour: number;
  minute: number;
  /** Minutes east of UTC when the text named its own zone ("3pm EST", an ISO `Z`). */
  offsetMinutes?: number;
  notes: string[];
}

function wallTimeOf(result: chrono.ParsedResult | undefined): WallTime | undefined {
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
function placeTime(day: DateTime, time: WallTime, notes: string[]): DateTime {
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
