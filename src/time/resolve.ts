import type { DateTime } from 'luxon';
import { Symbols } from './grammar/cursor.js';
import { parsePhrase, type Component } from './grammar/phrase.js';
import { interpret } from './interpret.js';
import { translate } from './lexicon.js';
import { isTimeLanguage, languageRules, timeLanguages, type TimeLanguage } from './languages/index.js';
import type { TimeOptions, TimeReading, TimeResolution } from './resolution.js';
import { partSpan } from './rules/spans.js';
import type { Placed } from './symbols.js';
import { MAX_PHRASE_LENGTH, tokenize } from './tokenize.js';

/** What the resolver needs besides the phrase. */
export interface ResolveContext {
  /** Now, in the user's zone. */
  now: DateTime;
  /** The language the user writes in, when known; otherwise the phrase's script decides, then English. */
  language?: string | undefined | null;
  /** The user's country (ISO 3166-1 alpha-2), for holidays, the week and numeric dates. */
  country?: string | undefined;
}

/** Countries whose weekend is Friday and Saturday, and whose week starts on Sunday. */
const fridayWeekend = new Set(['IL', 'SA', 'AE', 'EG', 'QA', 'KW', 'BH', 'OM', 'JO', 'IQ', 'SY', 'YE', 'DZ', 'LY', 'SD']);
/** Countries that write month first (3/12 is March 12). */
const monthFirst = new Set(['US', 'PH', 'FM', 'MH', 'PW', 'GU', 'PR', 'AS', 'VI', 'MP', 'UM', 'CA']);

/** Herald's calendar rules for a user of `country` writing `language`. */
function timeOptionsFor(language: TimeLanguage, country: string | undefined): TimeOptions {
  const friday = country ? fridayWeekend.has(country) : language === 'he' || language === 'ar';
  let dayFirst: boolean | undefined = true;
  if (language === 'en') dayFirst = country === undefined ? undefined : !monthFirst.has(country);
  return { weekStart: friday ? 7 : 1, weekend: friday ? [5, 6] : [6, 7], dayFirst, country };
}

/**
 * The languages to try, in order: the user's, the script's, English; the rest only when the
 * user's language is not known (any language reading a phrase its user did not write in is a
 * chance to misread it: Spanish "a 4 a 5").
 */
function candidates(phrase: string, language: string | undefined | null): TimeLanguage[] {
  const order: TimeLanguage[] = [];
  const add = (code: TimeLanguage): void => {
    if (!order.includes(code) && languageRules(code)) order.push(code);
  };
  if (isTimeLanguage(language)) add(language);
  // One pass over the characters, no regular expression on user text.
  for (const char of phrase) {
    const code = char.charCodeAt(0);
    if (code >= 0x590 && code <= 0x5ff) add('he');
    else if (code >= 0x600 && code <= 0x6ff) add('ar');
    else if (code >= 0x400 && code <= 0x4ff) add('ru');
  }
  add('en');
  if (!isTimeLanguage(language)) for (const code of timeLanguages) add(code);
  return order;
}

/** Reads `phrase` with one language's rules. */
function readAs(phrase: string, language: TimeLanguage, context: ResolveContext): TimeResolution {
  const rules = languageRules(language);
  if (!rules) return { kind: 'error', reason: 'unread', message: `Dates in "${language}" are not read yet.` };
  const fallback = language === 'en' ? undefined : languageRules('en')?.lexicon;
  const placed = translate(tokenize(phrase), rules.lexicon, fallback);
  const options = timeOptionsFor(language, context.country);
  const parse = parsePhrase(new Symbols(placed, { hourToMinutes: rules.hourToMinutes, dayFirst: options.dayFirst, ordinalAfterWeekday: rules.ordinalAfterWeekday }));
  if (!parse.ok) return { kind: 'error', reason: 'unread', message: `Could not read "${parse.unread}" in "${phrase.trim()}".` };
  return interpret(parse.components, context.now, options);
}

/**
 * What `phrase` means as a moment, a day or a span, relative to `context.now`. It is read in
 * the user's language first (English words mixed in are understood), then in the language
 * its script suggests, then the others: a phrase that only one language reads fully is read
 * in that one. Any word no language reads makes it an error, never a partial guess.
 */
export function resolvePhrase(phrase: string, context: ResolveContext): TimeResolution {
  if (phrase.length > MAX_PHRASE_LENGTH) return { kind: 'error', reason: 'too-long', message: `A date phrase may be at most ${MAX_PHRASE_LENGTH} characters.` };
  if (phrase.trim() === '') return { kind: 'error', reason: 'empty', message: 'The phrase is empty.' };
  let first: TimeResolution | undefined;
  for (const language of candidates(phrase, context.language)) {
    const resolution = readAs(phrase, language, context);
    if (resolution.kind !== 'error' || resolution.reason !== 'unread') return resolution;
    first ??= resolution;
  }
  return first ?? { kind: 'error', reason: 'unread', message: `Could not read "${phrase}".` };
}

/** The phrase opens with "until" in its language ("until friday", "jusqu'à 14h", "עד מחר"). */
function startsWithUntil(phrase: string, context: ResolveContext): boolean {
  const [language] = candidates(phrase, context.language);
  if (!language) return false;
  const fallback = language === 'en' ? undefined : languageRules('en').lexicon;
  return translate(tokenize(phrase), languageRules(language).lexicon, fallback)[0]?.sym.k === 'until';
}

/** A range answer from a single reading: a day is the whole day, a part of the day its hours. */
function asRange(reading: TimeResolution): TimeResolution {
  if (reading.kind === 'day') {
    if (reading.part) {
      const span = partSpan(reading.day, reading.part);
      return { kind: 'range', start: span.start, end: span.end, notes: [...reading.notes] };
    }
    return { kind: 'range', start: reading.day, end: reading.day.plus({ days: 1 }), notes: reading.notes };
  }
  if (reading.kind === 'moment') {
    const day = reading.moment.startOf('day');
    return { kind: 'range', start: day, end: day.plus({ days: 1 }), notes: [...reading.notes, 'The phrase names one moment; the whole day around it is returned.'] };
  }
  if (reading.kind === 'ambiguous') {
    return { ...reading, readings: reading.readings.map((one) => ({ ...(asRange(one) as TimeReading), label: one.label })) };
  }
  return reading;
}

/**
 * Where a range phrase splits: "friday to monday", "from 3 to 5pm", "between dec 28 and jan
 * 3", "1.2-7.2", and with words before the range ("tomorrow from 2 to 4", "demain de 14h à
 * 16h", "מחר בין 3 ל-5"): those words belong to the start (and its day to the end).
 */
function rangeSplits(placed: Placed[]): Array<{ left: Placed[]; right: Placed[] }> {
  const splits: Array<{ left: Placed[]; right: Placed[] }> = [];
  const opener = placed.findIndex((item) => item.sym.k === 'between' || item.sym.k === 'from' || item.sym.k === 'of');
  const openers = opener === -1 ? [-1] : [opener, -1];
  for (const open of openers) {
    const kind = open === -1 ? undefined : placed[open]?.sym.k;
    const prefix = open === -1 ? [] : placed.slice(0, open);
    const body = open === -1 ? placed : placed.slice(open + 1);
    body.forEach((item, index) => {
      const k = item.sym.k;
      const separator =
        kind === 'between'
          ? k === 'and' || k === 'to'
          : k === 'until' || k === 'to' || (item.sym.k === 'punct' && item.sym.v === '-') || (kind !== undefined && k === 'at');
      if (separator && index > 0 && index < body.length - 1) splits.push({ left: [...prefix, ...body.slice(0, index)], right: body.slice(index + 1) });
    });
  }
  return splits;
}

/**
 * What `phrase` means as a span (end exclusive): a span word ("this week"), a day (the whole
 * day), a part of a day, or two ends joined by "to", "until", "between … and". The end is
 * read from the start, so "friday to monday" is the Monday after that Friday and "dec 28 to
 * jan 3" crosses into the next year.
 */
export function resolveRangePhrase(phrase: string, context: ResolveContext): TimeResolution {
  const single = resolvePhrase(phrase, context);
  // "until friday", "bis 14 Uhr": from now to the end of it.
  if (single.kind !== 'error' && single.kind !== 'ambiguous' && startsWithUntil(phrase, context)) {
    const end = asRange(single);
    if (end.kind === 'range') return { kind: 'range', start: context.now.startOf('second'), end: single.kind === 'moment' ? single.moment : end.end, notes: end.notes, exactEnd: single.kind === 'moment' };
  }
  if (single.kind !== 'error' || single.reason === 'too-long' || single.reason === 'empty') return asRange(single);
  for (const language of candidates(phrase, context.language)) {
    const rules = languageRules(language);
    if (!rules) continue;
    const fallback = language === 'en' ? undefined : languageRules('en')?.lexicon;
    const placed = translate(tokenize(phrase), rules.lexicon, fallback);
    const options = timeOptionsFor(language, context.country);
    const grammar = { hourToMinutes: rules.hourToMinutes, dayFirst: options.dayFirst, ordinalAfterWeekday: rules.ordinalAfterWeekday };
    for (const split of rangeSplits(placed)) {
      const left = parsePhrase(new Symbols(split.left, grammar));
      const right = parsePhrase(new Symbols(split.right, grammar));
      if (!left.ok || !right.ok) continue;
      const start = interpret(left.components, context.now, options);
      if (start.kind === 'error' || start.kind === 'ambiguous' || start.kind === 'range') continue;
      const startMoment = start.kind === 'moment' ? start.moment : start.day;
      // A time alone at the end ("friday 3 to 5pm", "מחר מ-14:00 עד 16:00") is on the start's day;
      // an end with a day of its own is read from the start ("friday to monday", "dec 28 to jan 3").
      const rightHasDay = right.components.some((component) => component.c === 'day');
      const sameDay: Component = { c: 'day', spec: { d: 'rel', days: 0 }, text: '' };
      const endComponents = rightHasDay || start.kind !== 'moment' ? right.components : [sameDay, ...right.components];
      const end = interpret(endComponents, startMoment.startOf('day').equals(context.now.startOf('day')) ? context.now : startMoment.startOf('day'), options);
      if (end.kind === 'error' || end.kind === 'ambiguous' || end.kind === 'range') continue;
      const endMoment = end.kind === 'moment' ? end.moment : end.day.plus({ days: 1 });
      if (endMoment <= startMoment) return { kind: 'error', reason: 'invalid', message: `"${phrase}" ends before it starts.` };
      return { kind: 'range', start: startMoment, end: endMoment, notes: [...start.notes, ...end.notes], exactEnd: end.kind === 'moment' };
    }
  }
  return single;
}
