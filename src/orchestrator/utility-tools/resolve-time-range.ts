import { DateTime } from 'luxon';
import { z } from 'zod';
import { defineTool, ok, toolError, type ToolDefinition } from '../../tools/tool.js';
import { normalizeDateExpression, resolveDay } from './resolve-date.js';
import { startOfWeek, type ResolvedDay } from './resolved-day.js';
import { isValidTimezone } from '../../shared/time-zones.js';
import { formatIsoWithOffset, formattingLocale, invalidTimezoneMessage } from './time-context.js';

/*
 * Every range is built from local calendar days with luxon in the user's zone: a range starts
 * at local midnight (or the start of a part of the day) and ends at the last whole second of
 * its last day, 23:59:59 local. Across a DST change the start and end therefore carry
 * different UTC offsets, which is correct: the week still begins and ends at midnight on the
 * user's clock.
 */

/** What resolve_time_range returns. */
export interface ResolvedTimeRange {
  expression: string;
  /** First moment of the range, ISO 8601 with the UTC offset in force then. */
  start: string;
  /** Last moment of the range, inclusive (e.g. 23:59:59 local), ISO 8601 with its offset. */
  end: string;
  /** `YYYY-MM-DD` of `start` in the user's zone. */
  startDate: string;
  /** `YYYY-MM-DD` of `end` in the user's zone. */
  endDate: string;
  /** Calendar days the range touches, counting both ends. */
  days: number;
  /** Rules applied that the planner should know about. */
  note?: string;
}

/** Options for {@link resolveTimeRange} and {@link createResolveTimeRangeTool}. */
export interface TimeRangeOptions {
  /**
   * First day of the week: 0 = Sunday … 6 = Saturday. Default 1, Monday (ISO 8601 and most
   * of Herald's users); it may later come from the user's settings.
   */
  weekStartsOn?: number;
}

/** A range before it is shaped into tool output; `end` is inclusive. */
interface RangeBounds {
  start: DateTime;
  end: DateTime;
  notes: string[];
}

/** Either a range or a message saying why the expression is not one. */
export type TimeRangeResolution = ({ isError: false } & RangeBounds) | { isError: true; error: string };

/** Hours of the parts of a day; each ends one second before the next begins. */
const partsOfDay: Record<string, { from: number; to: number }> = {
  morning: { from: 6, to: 12 },
  afternoon: { from: 12, to: 18 },
  evening: { from: 18, to: 24 },
  night: { from: 18, to: 24 },
};

const monthNumbers: Record<string, number> = {
  january: 1, jan: 1,
  february: 2, feb: 2,
  march: 3, mar: 3,
  april: 4, apr: 4,
  may: 5,
  june: 6, jun: 6,
  july: 7, jul: 7,
  august: 8, aug: 8,
  september: 9, sep: 9, sept: 9,
  october: 10, oct: 10,
  november: 11, nov: 11,
  december: 12, dec: 12,
};

const countWords: Record<string, number> = {
  a: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  couple: 2, 'a couple': 2, 'couple of': 2, 'a couple of': 2, few: 3, 'a few': 3,
};

/** The message for an expression that could not be read; it tells the planner to use words (UT-6). */
function notUnderstoodMessage(expression: string): string {
  return `Could not understand "${expression}" as a time range; describe it in words in the plan instead.`;
}

/** The last whole second of `day`: 23:59:59 local, whatever the offset. */
function endOfDay(day: DateTime): DateTime {
  return day.endOf('day').startOf('second');
}

/** Whole days from `firstDay` through `lastDay`. */
function wholeDays(firstDay: DateTime, lastDay: DateTime, notes: string[] = []): RangeBounds {
  return { start: firstDay.startOf('day'), end: endOfDay(lastDay), notes };
}

/** The Saturday and Sunday of "this weekend": the current one on a weekend day, otherwise the coming one. */
function thisWeekend(today: DateTime): DateTime {
  if (today.weekday === 6) return today;
  if (today.weekday === 7) return today.minus({ days: 1 });
  return today.plus({ days: 6 - today.weekday });
}

/** "this week", "next month", "last year", "weekend", "the week after next". */
function resolveCalendarSpan(normalized: string, today: DateTime, weekStartsOn: number): RangeBounds | undefined {
  if (/^(?:the\s+)?week after next$/.test(normalized)) {
    const start = startOfWeek(today, weekStartsOn).plus({ weeks: 2 });
    return wholeDays(start, start.plus({ days: 6 }));
  }
  const match = /^(?:the\s+)?(?:(this|next|last|past|previous|coming|this coming)\s+)?(week|weekend|month|year)$/.exec(normalized);
  if (!match) return undefined;
  const qualifier = match[1] ?? 'this';
  const unit = match[2];
  const offset = qualifier === 'next' || qualifier === 'coming' ? 1 : qualifier === 'this' || qualifier === 'this coming' ? 0 : -1;

  switch (unit) {
    case 'week': {
      const start = startOfWeek(today, weekStartsOn).plus({ weeks: offset });
      return wholeDays(start, start.plus({ days: 6 }));
    }
    case 'weekend': {
      const saturday = thisWeekend(today).plus({ weeks: offset });
      const notes = offset === 1
        ? [`"${normalized}" is read as the weekend after the coming one; the coming weekend starts ${thisWeekend(today).toFormat('yyyy-MM-dd')}.`]
        : [];
      return wholeDays(saturday, saturday.plus({ days: 1 }), notes);
    }
    case 'month': {
      const start = today.startOf('month').plus({ months: offset });
      return wholeDays(start, start.endOf('month'));
    }
    case 'year': {
      const start = today.startOf('year').plus({ years: offset });
      return wholeDays(start, start.endOf('year'));
    }
    default:
      return undefined;
  }
}

const rollingSpanPattern = new RegExp(
  `^(?:the\\s+|over the\\s+|in the\\s+)?(next|coming|following|last|past|previous)\\s+(\\d+|${Object.keys(countWords)
    .sort((left, right) => right.length - left.length)
    .join('|')})\\s+(day|days|week|weeks)$`,
);

/** "the next 3 days", "next two weeks", "the past 7 days". Today counts as the first (or last) day. */
function resolveRollingSpan(normalized: string, today: DateTime): RangeBounds | undefined {
  const match = rollingSpanPattern.exec(normalized);
  if (!match) return undefined;
  const countText = match[2] ?? '';
  const count = /^\d+$/.test(countText) ? Number(countText) : countWords[countText];
  if (count === undefined || count < 1 || count > 366) return undefined;
  const days = (match[3] ?? '').startsWith('week') ? count * 7 : count;
  const notes = [`"${normalized}" is read as ${days} calendar day${days === 1 ? '' : 's'} including today.`];
  if (!/^\d+$/.test(countText) && /few|couple/.test(countText)) notes.push(`"${countText}" was taken as ${count}.`);
  const forward = !['last', 'past', 'previous'].includes(match[1] ?? '');
  return forward
    ? wholeDays(today, today.plus({ days: days - 1 }), notes)
    : wholeDays(today.minus({ days: days - 1 }), today, notes);
}

/** "january", "in march", "jan 2027": a whole month; without a year, the next one, the current month included. */
function resolveMonth(normalized: string, today: DateTime): RangeBounds | undefined {
  const match = /^(?:(?:in|during|for|all of)\s+)?([a-z]+)(?:,?\s+(\d{4}))?$/.exec(normalized);
  if (!match) return undefined;
  const month = monthNumbers[match[1] ?? ''];
  if (month === undefined) return undefined;
  let year = match[2] ? Number(match[2]) : today.year;
  if (!match[2] && month < today.month) year += 1;
  const start = DateTime.fromObject({ year, month, day: 1 }, { zone: today.zone });
  if (!start.isValid) return undefined;
  return wholeDays(start, start.endOf('month'));
}

/** "tonight", "this morning", "tomorrow afternoon", "friday evening". */
function resolvePartOfDay(normalized: string, now: DateTime, weekStartsOn: number): RangeBounds | undefined {
  const match = /^(?:(.+?)\s+)?(morning|afternoon|evening|night)$/.exec(normalized);
  const dayText = normalized === 'tonight' ? 'today' : match?.[1] ?? 'today';
  const part = partsOfDay[normalized === 'tonight' ? 'night' : match?.[2] ?? ''];
  if (!part) return undefined;
  let day: DateTime;
  if (dayText === 'this' || dayText === 'today' || dayText === 'this coming') {
    day = now.startOf('day');
  } else {
    const resolved = resolveDay(dayText, now, { weekStartsOn });
    if (resolved.isError) return undefined;
    day = resolved.day;
  }
  const start = day.set({ hour: part.from });
  const end = part.to === 24 ? endOfDay(day) : day.set({ hour: part.to }).minus({ seconds: 1 });
  const partName = normalized === 'tonight' ? 'tonight' : match?.[2] ?? '';
  return { start, end, notes: [`"${partName}" is read as ${start.toFormat('HH:mm')}–${end.toFormat('HH:mm')}.`] };
}

/** "rest of the week", "rest of today": from now to the end of that span. */
function resolveRestOf(normalized: string, now: DateTime, weekStartsOn: number): RangeBounds | undefined {
  const match = /^(?:the\s+)?rest of (?:the |this )?(day|today|week|month|year)$/.exec(normalized);
  if (!match) return undefined;
  const today = now.startOf('day');
  const lastDay = match[1] === 'week'
    ? startOfWeek(today, weekStartsOn).plus({ days: 6 })
    : match[1] === 'month' ? today.endOf('month') : match[1] === 'year' ? today.endOf('year') : today;
  return { start: now.startOf('second'), end: endOfDay(lastDay), notes: [] };
}

/** "2026-02-01 to 2026-02-07", "from friday until sunday", "between dec 28 and jan 3". */
function resolveExplicitRange(normalized: string, expression: string, now: DateTime, weekStartsOn: number): TimeRangeResolution | undefined {
  const match =
    /^between\s+(.+?)\s+and\s+(.+)$/.exec(normalized) ??
    /^(?:from\s+)?(.+?)(?:\s+(?:to|until|till|through|thru|-)\s+|\s*[–—]\s*)(.+)$/.exec(normalized);
  if (!match) return undefined;
  const startText = match[1] ?? '';
  const endText = match[2] ?? '';
  const first = resolveDay(startText, now, { weekStartsOn });
  if (first.isError) return undefined;
  // The end is read from the start, so "friday to monday" is the Monday after that Friday and
  // "dec 28 to jan 3" crosses into the next year.
  const anchor = first.moment ?? first.day;
  const last = resolveDay(endText, anchor, { weekStartsOn });
  if (last.isError) return undefined;
  const start = first.moment ?? first.day;
  const end = last.moment ?? endOfDay(last.day);
  if (end < start) {
    return { isError: true, error: `"${expression}" ends before it starts; describe it in words in the plan instead.` };
  }
  return { isError: false, start, end, notes: [...first.notes, ...last.notes] };
}

/** A single day ("friday", "tomorrow", "dec 25") as a whole-day range. */
function resolveSingleDay(resolved: ResolvedDay): RangeBounds {
  const notes = [...resolved.notes];
  if (resolved.moment) notes.push('The expression names one moment; the whole day around it is returned.');
  return wholeDays(resolved.day, resolved.day, notes);
}

/**
 * Reads a span of time from `expression`, relative to `now`, which must already be in the
 * user's zone. Weeks start on `weekStartsOn` (Monday by default); "this week" is the whole
 * calendar week, including days already past; a weekend is Saturday and Sunday, the current
 * one on a weekend day; a bare month name is its next occurrence, the current month included.
 */
export function resolveTimeRange(expression: string, now: DateTime, options: TimeRangeOptions = {}): TimeRangeResolution {
  const weekStartsOn = options.weekStartsOn ?? 1;
  const normalized = normalizeDateExpression(expression).replace(/^(?:during|over|for|within)\s+/, '');
  const today = now.startOf('day');
  if (normalized === '') return { isError: true, error: notUnderstoodMessage(expression) };

  const span =
    resolveCalendarSpan(normalized, today, weekStartsOn) ??
    resolveRollingSpan(normalized, today) ??
    resolveMonth(normalized, today) ??
    resolveRestOf(normalized, now, weekStartsOn) ??
    resolvePartOfDay(normalized, now, weekStartsOn);
  if (span) return { isError: false, ...span };

  const explicit = resolveExplicitRange(normalized, expression, now, weekStartsOn);
  if (explicit) return explicit;

  const single = resolveDay(normalized, now, { weekStartsOn });
  if (!single.isError) return { isError: false, ...resolveSingleDay(single) };
  return { isError: true, error: notUnderstoodMessage(expression) };
}

/** Shapes range bounds for the model. */
export function describeTimeRange(expression: string, bounds: { start: DateTime; end: DateTime; notes: string[] }): ResolvedTimeRange {
  const startDate = bounds.start.toFormat('yyyy-MM-dd');
  const endDate = bounds.end.toFormat('yyyy-MM-dd');
  // Counted on plain calendar dates so a 23- or 25-hour DST day still counts as one day.
  const days = DateTime.fromISO(endDate, { zone: 'utc' }).diff(DateTime.fromISO(startDate, { zone: 'utc' }), 'days').days + 1;
  const output: ResolvedTimeRange = {
    expression,
    start: formatIsoWithOffset(bounds.start),
    end: formatIsoWithOffset(bounds.end),
    startDate,
    endDate,
    days: Math.round(days),
  };
  if (bounds.notes.length > 0) output.note = bounds.notes.join(' ');
  return output;
}

const resolveTimeRangeInput = z.object({
  expression: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe('The span as the user said it, e.g. "this week", "next weekend", "tonight", "the next 3 days", "january", "2026-02-01 to 2026-02-07", "השבוע".'),
});

/** The English name of a 0 = Sunday … 6 = Saturday weekday number. */
function weekStartName(weekStartsOn: number): string {
  return DateTime.fromObject({ year: 2026, month: 1, day: 4 + weekStartsOn }).setLocale(formattingLocale).toFormat('cccc');
}

/**
 * Builds the resolve_time_range tool. `weekStartsOn` is a parameter so it can later come from
 * the user's settings; a value outside 0–6 is a programming error and throws.
 */
export function createResolveTimeRangeTool(options: TimeRangeOptions = {}): ToolDefinition<typeof resolveTimeRangeInput> {
  const weekStartsOn = options.weekStartsOn ?? 1;
  if (!Number.isInteger(weekStartsOn) || weekStartsOn < 0 || weekStartsOn > 6) {
    throw new RangeError(`weekStartsOn must be an integer from 0 (Sunday) to 6 (Saturday), got ${weekStartsOn}`);
  }
  return defineTool({
    name: 'resolve_time_range',
    description: [
      'Converts a span of time the user mentioned ("this week", "next week", "last week", "this weekend", "next month", "today", "tomorrow", "tonight", "this morning", "the next 3 days", "january", "2026-02-01 to 2026-02-07", Hebrew "השבוע", "סוף השבוע") into start and end timestamps in the user\'s time zone.',
      `start is the first moment and end the last (inclusive, e.g. 23:59:59 local), both ISO 8601 with their UTC offset; startDate, endDate and days give the calendar dates. Weeks run ${weekStartName(weekStartsOn)} to ${weekStartName((weekStartsOn + 6) % 7)} and "this week" is the whole week, days already past included. A weekend is Saturday and Sunday: the current one on a weekend day, otherwise the coming one. "the next 3 days" is today and the 2 days after. A month name alone is its next occurrence, the current month included. Morning is 06:00–11:59, afternoon 12:00–17:59, evening and tonight 18:00–23:59.`,
      'Call it before planning and put the returned dates in every task description. If the tool returns an error, describe the span in words in the plan instead.',
    ].join(' '),
    inputSchema: resolveTimeRangeInput,
    mutates: false,
    async run(input, context) {
      if (!isValidTimezone(context.timezone)) return toolError(invalidTimezoneMessage(context.timezone));
      const now = DateTime.fromJSDate(context.clock.now(), { zone: context.timezone });
      const resolution = resolveTimeRange(input.expression, now, { weekStartsOn });
      if (resolution.isError) return toolError(resolution.error);
      return ok(describeTimeRange(input.expression, resolution));
    },
  });
}

/** resolve_time_range with weeks starting on Monday (UT-1, UT-5). */
export const resolveTimeRangeTool = createResolveTimeRangeTool();
