/**
 * The public date corpora (test/fixtures/dates/) scored against Herald's resolver: shared by
 * the corpus test and `npm run bench -- dates`. Each example is run at its reference time
 * and its outcome is one of:
 *
 * - exact: Herald's answer is one of the corpus's values;
 * - convention: it differs where Herald's documented convention deliberately differs
 *   (named; src/time/README.md), e.g. "next friday" on a Thursday is 8 days ahead;
 * - ambiguous: Herald named several readings, one of them the corpus's;
 * - none: Herald refused the phrase (an error the planner reads: it asks or uses words);
 * - wrong: Herald answered something else with confidence. The one that matters.
 */
import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import { fileURLToPath } from 'node:url';
import { resolvePhrase, resolveRangePhrase } from '../../src/time/resolve.js';
import type { TimeReading, TimeResolution } from '../../src/time/resolution.js';
import { partSpan } from '../../src/time/rules/spans.js';
import { translate } from '../../src/time/lexicon.js';
import { languageRules, type TimeLanguage } from '../../src/time/languages/index.js';
import { tokenize } from '../../src/time/tokenize.js';

/** One corpus record (test/fixtures/dates/README.md). */
export interface CorpusExample {
  id: string;
  phrase: string;
  reference: string;
  type: string;
  values: Array<{ value?: string; start?: string; end?: string; mod?: string; readingType?: string; type?: string }>;
  notSupported?: string;
  convention?: string | null;
  category?: string;
}

export interface CorpusFile {
  source: string;
  language: TimeLanguage;
  zone?: string;
  /** Duckling's reference is local time at a fixed offset (UTC-2). */
  referenceOffsetMinutes?: number;
  examples: CorpusExample[];
  negative?: string[];
}

export type Outcome = 'exact' | 'convention' | 'ambiguous' | 'none' | 'wrong';

export interface Scored {
  example: CorpusExample;
  set: 'instants' | 'holidays' | 'spans';
  outcome: Outcome;
  /** The named convention, for outcome "convention". */
  convention?: string | undefined;
  answer: string;
  micros: number;
  /** For an ambiguous answer: one of its readings is the corpus's. */
  ambiguousHit?: boolean;
}

const fixtures = fileURLToPath(new URL('../fixtures/dates/', import.meta.url));

export function loadCorpus(path: string): CorpusFile {
  return JSON.parse(readFileSync(`${fixtures}${path}`, 'utf8')) as CorpusFile;
}

/** The country whose conventions a corpus's language was written in. */
const corpusCountry: Record<string, string> = { en: 'US', es: 'ES', fr: 'FR', de: 'DE', pt: 'BR', ar: 'AE', ru: 'RU', he: 'IL' };

const instantTypes = new Set(['date', 'datetime', 'time']);
const spanTypes = new Set(['daterange', 'datetimerange']);

function symbolKinds(phrase: string, language: TimeLanguage): Set<string> {
  const rules = languageRules(language);
  const english = languageRules('en');
  if (!rules) return new Set();
  return new Set(translate(tokenize(phrase), rules.lexicon, language === 'en' ? undefined : english?.lexicon).map((placed) => placed.sym.k));
}

/** Which set an example is scored in, or undefined when it is not a single instant or a span (durations, recurrences, open ranges). */
function setOf(example: CorpusExample, kinds: Set<string>): Scored['set'] | undefined {
  if (example.values.length === 0 && example.type !== 'none') return undefined;
  if (example.values.some((value) => value.mod !== undefined || value.value === 'not resolved')) return undefined;
  const holiday = example.type === 'holiday' || example.id.startsWith('HolidayParser') || kinds.has('holiday');
  if (instantTypes.has(example.type) || example.type === 'none' || example.type === 'ambiguous' || example.type === 'holiday') return holiday ? 'holidays' : 'instants';
  if (spanTypes.has(example.type)) return holiday ? 'holidays' : 'spans';
  return undefined;
}

const dateTimeFormat = 'yyyy-MM-dd HH:mm:ss';

/** An answer in the corpus's shape: "2026-01-02", "2026-01-02 15:00:00", or a span "start/end". */
function shapes(reading: TimeReading): { date?: string; datetime?: string; time?: string; span?: { start: string; end: string; dates: boolean } } {
  switch (reading.kind) {
    case 'moment':
      return { date: reading.moment.toFormat('yyyy-MM-dd'), datetime: reading.moment.toFormat(dateTimeFormat), time: reading.moment.toFormat('HH:mm:ss') };
    case 'day': {
      if (reading.part) {
        const span = partSpan(reading.day, reading.part);
        return { span: { start: span.start.toFormat(dateTimeFormat), end: span.end.toFormat(dateTimeFormat), dates: false } };
      }
      const date = reading.day.toFormat('yyyy-MM-dd');
      return { date, span: { start: date, end: reading.day.plus({ days: 1 }).toFormat('yyyy-MM-dd'), dates: true } };
    }
    case 'range': {
      const whole = reading.start.equals(reading.start.startOf('day')) && reading.end.equals(reading.end.startOf('day'));
      const format = whole ? 'yyyy-MM-dd' : dateTimeFormat;
      return { span: { start: reading.start.toFormat(format), end: reading.end.toFormat(format), dates: whole } };
    }
  }
}

function matches(reading: TimeReading, type: string, value: CorpusExample['values'][number]): boolean {
  const shape = shapes(reading);
  switch (type) {
    case 'date':
      return reading.kind === 'day' && !reading.part ? shape.date === value.value : false;
    case 'holiday':
      // A holiday is a day ("christmas") or a span of one ("morning of xmas", "Rosh Hashanah 2018").
      if (value.start !== undefined) return matches(reading, 'daterange', value);
      return reading.kind === 'day' && !reading.part ? shape.date === value.value : false;
    case 'datetime':
      return shape.datetime !== undefined && shape.datetime === value.value;
    case 'time':
      return shape.time !== undefined && shape.time === value.value;
    default: {
      if (!shape.span || value.start === undefined || value.end === undefined) return false;
      const trim = (text: string): string => (text.endsWith(' 00:00:00') ? text.slice(0, 10) : text);
      return trim(shape.span.start) === trim(value.start) && trim(shape.span.end) === trim(value.end);
    }
  }
}

function describe(resolution: TimeResolution): string {
  switch (resolution.kind) {
    case 'error':
      return `error: ${resolution.message}`;
    case 'ambiguous':
      return `ambiguous: ${resolution.readings.map((reading) => describe(reading)).join(' | ')}`;
    default: {
      const shape = shapes(resolution);
      return shape.datetime ?? (shape.span && !shape.date ? `${shape.span.start}/${shape.span.end}` : shape.date ?? '?');
    }
  }
}

/** `later` is `earlier` moved on by whole years, whole months (same day of the month) or whole weeks. */
function isLaterOccurrence(later: DateTime, earlier: DateTime): boolean {
  const sameTime = later.toFormat('HH:mm:ss') === earlier.toFormat('HH:mm:ss');
  if (!sameTime) return false;
  if (later.day === earlier.day && (later.month === earlier.month || later.year * 12 + later.month > earlier.year * 12 + earlier.month)) return true;
  const days = Math.round(later.startOf('day').diff(earlier.startOf('day'), 'days').days);
  return days > 0 && days % 7 === 0;
}

/** A difference Herald makes on purpose, by name (src/time/README.md), or undefined. */
function conventionFor(reading: TimeReading, example: CorpusExample, kinds: Set<string>, reference: DateTime, language: TimeLanguage): string | undefined {
  if (reading.kind !== 'moment' && reading.kind !== 'day') return undefined;
  const ours = reading.kind === 'moment' ? reading.moment : reading.day;
  for (const value of example.values) {
    if (!value.value) continue;
    const expected = example.type === 'time'
      ? DateTime.fromFormat(`${ours.toFormat('yyyy-MM-dd')} ${value.value}`, dateTimeFormat, { zone: ours.zone })
      : DateTime.fromFormat(value.value.length === 10 ? `${value.value} 00:00:00` : value.value, dateTimeFormat, { zone: ours.zone });
    if (!expected.isValid) continue;
    const hours = ours.diff(reading.kind === 'day' ? expected.startOf('day') : expected, 'hours').hours;
    if (kinds.has('weekday') && (kinds.has('next') || kinds.has('after-next')) && Math.abs(hours) === 24 * 7) return 'next-weekday';
    if (kinds.has('weekday') && ours.hasSame(reference, 'day') && hours === -24 * 7) return 'bare-weekday-includes-today';
    if (kinds.has('weekday') && (kinds.has('last') || kinds.has('past')) && hours === 24 * 7) return 'last-weekday-is-the-most-recent';
    // "last week sunday" where weeks start on Sunday (Israel, the Arab world) is a week earlier than in a Monday week.
    if (kinds.has('weekday') && kinds.has('unit') && Math.abs(hours) === 24 * 7 && ['he', 'ar'].includes(example.id.startsWith('he#') ? 'he' : language)) return 'week-starts-on-sunday';
    // A date named without a year (or month, or week) is the next one, today included; the corpus chose
    // a past one. Only the same date a whole number of years, months or weeks later counts.
    if (expected < reference.startOf('day') && ours >= reference.startOf('day') && !kinds.has('last') && !kinds.has('ago') && isLaterOccurrence(ours, expected)) return 'next-occurrence';
    if (!kinds.has('ampm') && !kinds.has('part') && Math.abs(hours) === 12) return 'hour-without-am-pm';
    // Islamic holidays fall by the moon's sighting: a day either way, and Herald's answer says so.
    if (kinds.has('holiday') && Math.abs(hours) === 24 && reading.notes.some((note) => note.includes('moon'))) return 'islamic-moon-sighting';
    // "in 7 days", "a fortnight ago": a day, not an hour of it (Duckling keeps the hour).
    if (reading.kind === 'day' && kinds.has('unit') && (kinds.has('in') || kinds.has('ago') || kinds.has('from-now')) && ours.hasSame(expected, 'day')) return 'day-offset-is-a-day';
    if (!kinds.has('rel') && !kinds.has('weekday') && !kinds.has('month') && hours === 24 && reading.kind === 'moment') return 'past-time-is-tomorrow';
    if (!kinds.has('rel') && !kinds.has('weekday') && !kinds.has('ampm') && (hours === 12 || hours === 36)) return 'hour-without-am-pm';
  }
  return undefined;
}

/** What is scored: Herald's resolver, or a candidate library adapted to answer the same way (bench/dates.ts). */
export type Resolver = (phrase: string, context: { now: DateTime; language: TimeLanguage; country: string | undefined }, span: boolean) => TimeResolution;

/** Herald's own resolver. */
export const heraldResolver: Resolver = (phrase, context, span) => (span ? resolveRangePhrase(phrase, context) : resolvePhrase(phrase, context));

/** Scores one example. */
export function scoreExample(example: CorpusExample, language: TimeLanguage, zone = 'UTC', resolver: Resolver = heraldResolver): Scored | undefined {
  const kinds = symbolKinds(example.phrase, language);
  const set = setOf(example, kinds);
  if (!set) return undefined;
  const now = DateTime.fromISO(example.reference, { zone });
  const context = { now, language, country: corpusCountry[language] };
  const started = performance.now();
  const span = set === 'spans' || spanTypes.has(example.type) || example.values.some((value) => value.start !== undefined);
  const resolution = resolver(example.phrase, context, span);
  const micros = (performance.now() - started) * 1000;
  const answer = describe(resolution);
  const scored = (outcome: Outcome, convention?: string): Scored => ({ example, set, outcome, convention, answer, micros });
  // Recognizers writes 0001-01-01 for a date that does not exist ("Feb 30"): Herald must refuse it.
  const refused = example.type === 'none' || (example.values.length > 0 && example.values.every((value) => value.value?.startsWith('0001-01-01')));
  if (refused) return scored(resolution.kind === 'error' ? 'exact' : 'wrong');
  if (resolution.kind === 'error') return scored('none');
  const type = example.type === 'ambiguous' ? undefined : example.type;
  if (resolution.kind === 'ambiguous') {
    const any = resolution.readings.some((reading) => example.values.some((value) => matches(reading, type ?? value.readingType ?? value.type ?? 'date', value)));
    // An ambiguous answer is never acted on (the planner asks): not wrong, even when no reading is the corpus's.
    return { ...scored(any && example.type === 'ambiguous' ? 'exact' : 'ambiguous'), ambiguousHit: any };
  }
  if (example.type === 'ambiguous') return scored('wrong');
  if (example.values.some((value) => matches(resolution, example.type, value))) return scored('exact');
  const convention = conventionFor(resolution, example, kinds, now, language);
  return convention ? scored('convention', convention) : scored('wrong');
}

/** "UTC-2" for -120: the fixed zone a corpus's reference times are written in. */
function zoneOfOffset(minutes: number | undefined): string {
  if (!minutes) return 'UTC';
  const hours = Math.abs(minutes) / 60;
  return `UTC${minutes < 0 ? '-' : '+'}${hours}`;
}

/** Every scored example of a file. */
export function scoreCorpus(file: CorpusFile, resolver: Resolver = heraldResolver): Scored[] {
  const scored: Scored[] = [];
  for (const example of file.examples) {
    const result = scoreExample(example, file.language, file.zone ?? zoneOfOffset(file.referenceOffsetMinutes), resolver);
    if (result) scored.push(result);
  }
  return scored;
}

/** Counts per outcome, and the share right by Herald's rules (exact or a named convention). */
export function tally(scored: Scored[]): Record<Outcome, number> & { total: number; right: number; wrongShare: number } {
  const counts = { exact: 0, convention: 0, ambiguous: 0, none: 0, wrong: 0 };
  for (const item of scored) counts[item.outcome] += 1;
  const total = scored.length;
  return { ...counts, total, right: total === 0 ? 0 : (counts.exact + counts.convention) / total, wrongShare: total === 0 ? 0 : counts.wrong / total };
}

/** The targets of issue 30, by corpus: the share right (exact or a named convention) on these sets. */
export const rightTargets: Array<{ file: string; sets: Array<Scored['set']>; right: number }> = [
  { file: 'recognizers-text/en.json', sets: ['instants'], right: 0.9 },
  { file: 'recognizers-text/es.json', sets: ['instants'], right: 0.75 },
  { file: 'recognizers-text/fr.json', sets: ['instants'], right: 0.75 },
  { file: 'recognizers-text/de.json', sets: ['instants'], right: 0.75 },
  { file: 'recognizers-text/pt.json', sets: ['instants'], right: 0.75 },
  { file: 'recognizers-text/ar.json', sets: ['instants'], right: 0.6 },
  { file: 'duckling/ru.json', sets: ['instants'], right: 0.6 },
  { file: 'herald-hebrew.json', sets: ['instants', 'spans'], right: 0.9 },
];

/** At most this share confidently wrong on any corpus's single instants. */
export const wrongTarget = 0.02;
