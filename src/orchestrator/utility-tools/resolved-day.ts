import type { DateTime } from 'luxon';
import { formattingLocale } from './time-context.js';

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
export function describeDay(day: DateTime): string {
  return `${day.toFormat('yyyy-MM-dd')} (${day.setLocale(formattingLocale).toFormat('cccc')})`;
}
