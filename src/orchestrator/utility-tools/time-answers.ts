import { DateTime } from 'luxon';
import { z } from 'zod';
import { timeLanguages } from '../../time/languages/index.js';
import type { TimeReading, TimeResolution } from '../../time/resolution.js';
import { partSpan } from '../../time/rules/spans.js';
import { formatIsoWithOffset, formattingLocale } from './time-context.js';

/** One day (and time) as the planner reads it. */
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
  /** A part of the day named without a time ("tomorrow morning"): its hours. */
  partOfDay?: { name: string; start: string; end: string };
  /** Rules applied that the planner should know about (the weekday rule, guessed am/pm…). */
  note?: string;
}

/** A span as the planner reads it; `end` is the last moment, inclusive. */
export interface ResolvedTimeRange {
  expression: string;
  start: string;
  end: string;
  startDate: string;
  endDate: string;
  /** Calendar days the range touches, counting both ends. */
  days: number;
  note?: string;
}

/** Several readings: the planner asks the user which, or writes the time in words. */
export interface AmbiguousTime {
  expression: string;
  status: 'ambiguous';
  reason: string;
  readings: Array<{ label: string } & (ResolvedDate | ResolvedTimeRange)>;
  instruction: string;
}

const askInstruction = 'Do not pick one: ask the user which they mean (name the readings), or describe the time in words in the plan.';

function weekdayName(day: DateTime): string {
  return day.setLocale(formattingLocale).toFormat('cccc');
}

/** A moment or a day for resolve_date. */
export function describeDate(expression: string, reading: Extract<TimeReading, { kind: 'moment' | 'day' }>, now: DateTime): ResolvedDate {
  const today = now.startOf('day');
  const day = reading.kind === 'moment' ? reading.moment.startOf('day') : reading.day;
  const output: ResolvedDate = {
    expression,
    date: day.toFormat('yyyy-MM-dd'),
    weekday: weekdayName(day),
    isToday: day.hasSame(today, 'day'),
    isPast: reading.kind === 'moment' ? reading.moment < now.startOf('minute') : day < today,
  };
  const notes = [...reading.notes];
  if (reading.kind === 'moment') {
    output.time = reading.moment.toFormat('HH:mm');
    output.iso = formatIsoWithOffset(reading.moment);
    if (output.isPast && output.isToday) notes.push('That time has already passed today.');
  } else if (reading.part) {
    const span = partSpan(reading.day, reading.part);
    output.partOfDay = { name: reading.part, start: formatIsoWithOffset(span.start), end: formatIsoWithOffset(span.end.minus({ seconds: 1 })) };
  }
  if (notes.length > 0) output.note = notes.join(' ');
  return output;
}

/** A span for resolve_time_range: whole days end at 23:59:59 local, exact ends stay exact. */
export function describeRange(expression: string, reading: Extract<TimeReading, { kind: 'range' }>): ResolvedTimeRange {
  // The planner reads inclusive ends: 23:59:59 for a day, 11:59:59 for a morning; a named end ("to 5pm") stays.
  const end = reading.exactEnd === true ? reading.end : reading.end.minus({ seconds: 1 });
  const startDate = reading.start.toFormat('yyyy-MM-dd');
  const endDate = end.toFormat('yyyy-MM-dd');
  // Counted on plain calendar dates so a 23- or 25-hour DST day still counts as one day.
  const days = DateTime.fromISO(endDate, { zone: 'utc' }).diff(DateTime.fromISO(startDate, { zone: 'utc' }), 'days').days + 1;
  const output: ResolvedTimeRange = { expression, start: formatIsoWithOffset(reading.start), end: formatIsoWithOffset(end), startDate, endDate, days: Math.round(days) };
  if (reading.notes.length > 0) output.note = reading.notes.join(' ');
  return output;
}

/** The readings of an ambiguous answer, each shaped as the tool shapes one answer. */
export function describeAmbiguous(expression: string, resolution: Extract<TimeResolution, { kind: 'ambiguous' }>, now: DateTime): AmbiguousTime {
  return {
    expression,
    status: 'ambiguous',
    reason: resolution.reason,
    readings: resolution.readings.map((reading) => ({
      label: reading.label,
      ...(reading.kind === 'range' ? describeRange(expression, reading) : describeDate(expression, reading, now)),
    })),
    instruction: askInstruction,
  };
}

/** The error the planner reads: what was not understood, and what to do instead (UT-6). */
export function timeErrorMessage(resolution: Extract<TimeResolution, { kind: 'error' }>): string {
  return `${resolution.message} Ask the user, or describe the time in words in the plan; never guess.`;
}

/** The input of resolve_date and resolve_time_range: the words as written, and their language. */
export function phraseInput(examples: string) {
  return z.object({
    expression: z.string().trim().min(1).max(200).describe(`The words exactly as the user wrote them, in their language: ${examples}. Only the time words, not the rest of the request.`),
    language: z.enum(timeLanguages).optional().describe("The language the user wrote it in (ISO 639-1); default the user's language."),
  });
}
