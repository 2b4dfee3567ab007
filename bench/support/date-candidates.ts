/**
 * The libraries Herald's date resolver is compared with in `npm run bench -- dates`, adapted to
 * its `Resolver` shape (test/time/date-corpus.ts) so they are scored on exactly the same
 * examples and rules:
 *
 * - chrono-node's locale parsers (`chrono.en.casual`, `chrono.es.casual`…), read with the
 *   reference instant at the example's UTC offset and `forwardDate: true`;
 * - Microsoft Recognizers-Text's JavaScript port (`recognizeDateTime`), the library whose
 *   specifications are half of the corpora (its .NET original reads more languages than the
 *   port: English, Spanish and French here).
 *
 * Both are held to Herald's bar: an answer counts only when the library's match covers the
 * whole phrase (surrounding spaces and punctuation aside), never a part of it. Their answers
 * are read as wall-clock fields and placed in the example's zone (`context.now.zone`): chrono's
 * and Recognizers' `Date`s are in the process's zone, which is not the user's.
 */
import * as chrono from 'chrono-node';
import { DateTimeRecognizer, recognizeDateTime } from '@microsoft/recognizers-text-date-time';
import { DateTime, FixedOffsetZone } from 'luxon';
import type { TimeLanguage } from '../../src/time/languages/index.js';
import type { TimeReading, TimeResolution } from '../../src/time/resolution.js';
import type { Resolver } from '../../test/time/date-corpus.js';

type Context = Parameters<Resolver>[1];

const error = (message: string): TimeResolution => ({ kind: 'error', reason: 'unread', message });

/** Where the phrase's words are: [start, end) without surrounding spaces and punctuation. */
function core(phrase: string): { start: number; end: number } {
  const leading = /^[\s\p{P}]*/u.exec(phrase)?.[0].length ?? 0;
  const trailing = /[\s\p{P}]*$/u.exec(phrase.slice(leading))?.[0].length ?? 0;
  return { start: leading, end: phrase.length - trailing };
}

/** True when a match of [start, end) covers the whole phrase. */
function coversWhole(phrase: string, start: number, end: number): boolean {
  const words = core(phrase);
  return start <= words.start && end >= words.end;
}

// ---- chrono-node -----------------------------------------------------------------------------

const chronoParsers: Partial<Record<TimeLanguage, chrono.Chrono>> = {
  en: chrono.en.casual,
  es: chrono.es.casual,
  fr: chrono.fr.casual,
  de: chrono.de.casual,
  pt: chrono.pt.casual,
  ru: chrono.ru.casual,
  ar: chrono.ar.casual,
};

/** The languages chrono-node 2.x has a parser for, of Herald's eight. */
export const chronoLanguages = new Set(Object.keys(chronoParsers) as TimeLanguage[]);

/** One side of a chrono result, as a moment (hour certain) or a day, in the example's zone. */
function chronoSide(components: chrono.ParsedComponents, now: DateTime): { at: DateTime; timed: boolean } | undefined {
  const field = (name: chrono.Component): number => components.get(name) ?? 0;
  const timed = components.isCertain('hour');
  const fields = { year: field('year'), month: field('month'), day: field('day') };
  if (!timed) {
    const day = DateTime.fromObject(fields, { zone: now.zone });
    return day.isValid ? { at: day.startOf('day'), timed } : undefined;
  }
  const time = { ...fields, hour: field('hour'), minute: field('minute'), second: field('second') };
  // A zone the text named ("3pm EST") is honoured, then converted to the example's.
  const offset = components.isCertain('timezoneOffset') ? components.get('timezoneOffset') : null;
  const at = offset === null ? DateTime.fromObject(time, { zone: now.zone }) : DateTime.fromObject(time, { zone: FixedOffsetZone.instance(offset) }).setZone(now.zone);
  return at.isValid ? { at, timed } : undefined;
}

/** chrono-node's reading of the whole phrase, or an error. */
export const chronoResolver: Resolver = (phrase, context, span) => {
  const parser = chronoParsers[context.language];
  if (!parser) return error(`chrono-node has no ${context.language} parser.`);
  // chrono reads the wall clock at a fixed offset (it ignores IANA names): the example's offset now.
  const results = parser.parse(phrase, { instant: context.now.toJSDate(), timezone: context.now.offset }, { forwardDate: true });
  const whole = results.find((result) => coversWhole(phrase, result.index, result.index + result.text.length));
  if (!whole) return error(results.length === 0 ? 'chrono-node found no date.' : `chrono-node read only "${results.map((result) => result.text).join('", "')}".`);
  return chronoReading(whole, context, span) ?? error('chrono-node gave an invalid date.');
};

function chronoReading(result: chrono.ParsedResult, context: Context, span: boolean): TimeReading | undefined {
  const start = chronoSide(result.start, context.now);
  if (!start) return undefined;
  if (result.end) {
    const end = chronoSide(result.end, context.now);
    if (!end) return undefined;
    // A day at the end is the whole day (end exclusive), as Herald's "friday to monday".
    return { kind: 'range', start: start.at, end: end.timed ? end.at : end.at.plus({ days: 1 }), notes: [], exactEnd: end.timed };
  }
  if (start.timed) return { kind: 'moment', moment: start.at, notes: [] };
  if (span) {
    // A span asked for: the grain chrono was certain of ("march" is the month, "2027" the year).
    if (!result.start.isCertain('day') && !result.start.isCertain('weekday')) {
      if (result.start.isCertain('month')) return { kind: 'range', start: start.at.startOf('month'), end: start.at.startOf('month').plus({ months: 1 }), notes: [] };
      if (result.start.isCertain('year')) return { kind: 'range', start: start.at.startOf('year'), end: start.at.startOf('year').plus({ years: 1 }), notes: [] };
    }
    return { kind: 'range', start: start.at, end: start.at.plus({ days: 1 }), notes: [] };
  }
  return { kind: 'day', day: start.at, notes: [] };
}

// ---- Recognizers-Text ------------------------------------------------------------------------

/**
 * The cultures asked for. The JavaScript port (1.3.2) has date models for English, Spanish and
 * French only (and Chinese): German and Portuguese would silently fall back to the English model,
 * so a culture counts only when it has its own model, and the fallback is turned off.
 */
const recognizersCultures: Partial<Record<TimeLanguage, string>> = Object.fromEntries(
  Object.entries({ en: 'en-us', es: 'es-es', fr: 'fr-fr', de: 'de-de', pt: 'pt-br' }).filter(([, culture]) => {
    try {
      new DateTimeRecognizer(culture, undefined, true).getDateTimeModel(culture, false);
      return true;
    } catch {
      return false;
    }
  }),
);

/** The languages the JavaScript port of Recognizers-Text reads, of Herald's eight. */
export const recognizersLanguages = new Set(Object.keys(recognizersCultures) as TimeLanguage[]);

/** One resolution value of Recognizers-Text's DateTimeModel. */
interface RecognizersValue {
  type?: string;
  value?: string;
  start?: string;
  end?: string;
  Mod?: string;
}

/** A wall time in Recognizers' format ("2016-11-07", "2016-11-07 17:00:00", "17:00:00") in the example's zone. */
function wallTime(text: string | undefined, now: DateTime): DateTime | undefined {
  if (!text) return undefined;
  const zone = now.zone;
  let at: DateTime | undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) at = DateTime.fromFormat(text, 'yyyy-MM-dd', { zone });
  else if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text)) at = DateTime.fromFormat(text, 'yyyy-MM-dd HH:mm:ss', { zone });
  else if (/^\d{2}:\d{2}:\d{2}$/.test(text)) at = DateTime.fromFormat(`${now.toFormat('yyyy-MM-dd')} ${text}`, 'yyyy-MM-dd HH:mm:ss', { zone });
  return at?.isValid ? at : undefined;
}

/** Where a value sits on the calendar, to tell the future candidate from the past one. */
function valueAt(value: RecognizersValue, now: DateTime): DateTime | undefined {
  switch (value.type) {
    case 'date':
    case 'datetime':
    case 'time':
      return wallTime(value.value, now);
    case 'daterange':
    case 'datetimerange':
    case 'timerange':
      return wallTime(value.start, now);
    default:
      return undefined;
  }
}

function recognizersReading(value: RecognizersValue, now: DateTime): TimeReading | undefined {
  if (value.Mod !== undefined) return undefined; // "before friday", "around 3": open or approximate.
  switch (value.type) {
    case 'date': {
      const day = wallTime(value.value, now);
      return day ? { kind: 'day', day, notes: [] } : undefined;
    }
    case 'datetime': {
      const moment = wallTime(value.value, now);
      return moment ? { kind: 'moment', moment, notes: [] } : undefined;
    }
    case 'time': {
      // A time alone is on today's date; one that has passed is tomorrow's (the future reading).
      const moment = wallTime(value.value, now);
      if (!moment) return undefined;
      return { kind: 'moment', moment: moment < now ? moment.plus({ days: 1 }) : moment, notes: [] };
    }
    case 'daterange':
    case 'datetimerange':
    case 'timerange': {
      const start = wallTime(value.start, now);
      const end = wallTime(value.end, now);
      if (!start || !end) return undefined; // an open range ("since 2016")
      return { kind: 'range', start, end: end < start ? end.plus({ days: 1 }) : end, notes: [], exactEnd: value.type !== 'daterange' };
    }
    default:
      return undefined; // durations, sets (recurrences)
  }
}

/** Microsoft Recognizers-Text's reading of the whole phrase, or an error. */
export const recognizersResolver: Resolver = (phrase, context) => {
  const culture = recognizersCultures[context.language];
  if (!culture) return error(`Recognizers-Text (JavaScript) has no ${context.language} date model.`);
  const now = context.now;
  // Recognizers reads the reference's local fields: a Date showing the example's wall time here.
  const reference = new Date(now.year, now.month - 1, now.day, now.hour, now.minute, now.second);
  const results = recognizeDateTime(phrase, culture, undefined, reference, false);
  // `end` is the index of the last character.
  const whole = results.find((result) => coversWhole(phrase, result.start, result.end + 1));
  if (!whole) return error(results.length === 0 ? 'Recognizers-Text found no date.' : `Recognizers-Text read only "${results.map((result) => result.text).join('", "')}".`);
  const values = ((whole.resolution as { values?: RecognizersValue[] } | null)?.values ?? []).filter((value) => value.value !== 'not resolved');
  if (values.length === 0) return error(`Recognizers-Text did not resolve "${whole.text}" (${whole.typeName}).`);
  // Several values are the past and the future candidates: the future one (the last at or after
  // the reference; a date is compared with today), else the last.
  const future = values.filter((value) => {
    const at = valueAt(value, now);
    return at !== undefined && at >= (value.type === 'date' || value.type === 'daterange' ? now.startOf('day') : now);
  });
  const chosen = future.at(-1) ?? values.at(-1)!;
  return recognizersReading(chosen, now) ?? error(`Recognizers-Text answered a ${chosen.type ?? whole.typeName} ("${whole.text}"), not a date, time or span.`);
};
