import type { DateTime } from 'luxon';
import type { PartOfDay } from './symbols.js';

/** Why a phrase has no single answer. */
type TimeErrorReason = 'unread' | 'invalid' | 'conflict' | 'span' | 'empty' | 'too-long' | 'recurring' | 'zone';

/** One answer: an exact moment, a whole day, or a span (end exclusive). */
export type TimeReading =
  | { kind: 'moment'; moment: DateTime; notes: string[] }
  | { kind: 'day'; day: DateTime; notes: string[]; part?: PartOfDay | undefined }
  /** `exactEnd`: the end is a moment the user named ("3pm to 5pm"), not the end of a day or part of one. */
  | { kind: 'range'; start: DateTime; end: DateTime; notes: string[]; exactEnd?: boolean | undefined };

/**
 * What a phrase means. `ambiguous` names every reading, and the planner asks the user or
 * writes the time in words; `error` says which words were not understood. Never a guess
 * (docs/ARCHITECTURE.md "Time").
 */
export type TimeResolution =
  | TimeReading
  | { kind: 'ambiguous'; readings: Array<TimeReading & { label: string }>; reason: string }
  | { kind: 'error'; reason: TimeErrorReason; message: string };

/** Herald's rules for a user: their zone's "now", week, weekend, and how they write dates. */
export interface TimeOptions {
  /** First day of the week, luxon numbering (1 = Monday … 7 = Sunday). */
  weekStart: number;
  /** The weekend's two days, luxon numbering: [6, 7] most places, [5, 6] in Israel and much of the Arab world. */
  weekend: [number, number];
  /** Numeric dates day first (3/12 = 3 December), month first, or unknown (both readings). */
  dayFirst: boolean | undefined;
  /** ISO 3166-1 alpha-2 of the user's number, for holidays. */
  country: string | undefined;
}
