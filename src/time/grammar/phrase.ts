import type { PartOfDay } from '../symbols.js';
import { parseClock, type ClockTime } from './clock.js';
import { longest, type Parsed, type Symbols } from './cursor.js';
import { parseDay, type DaySpec } from './day.js';
import { isClockQuantity, parseQuantity, type Quantity } from './quantity.js';
import { parseSpan, type SpanSpec } from './span.js';

/** One meaningful piece of a phrase. */
export type Component =
  | { c: 'day'; spec: DaySpec; text: string }
  | { c: 'time'; clock: ClockTime; text: string }
  | { c: 'part'; part: PartOfDay; text: string }
  | { c: 'span'; spec: SpanSpec; text: string }
  /** "in 20 minutes", "2 hours from now", "10 minutes ago": an exact instant from now. */
  | { c: 'offset'; quantity: Quantity; sign: 1 | -1; text: string }
  | { c: 'now'; text: string }
  /** "end of day", "EOD": the last second of the day. */
  | { c: 'eod'; text: string }
  | { c: 'every'; text: string };

/** A phrase read into components, or the words that could not be read. */
export type PhraseParse = { ok: true; components: Component[] } | { ok: false; unread: string };

/** Words that join components without meaning anything: "at 5", "on friday", ", ". A word left dangling at the end ("at a couple of") joins nothing. */
function isSoft(symbols: Symbols, index: number): boolean {
  if (symbols.punct(index, ',', '.', '!', '?', '(', ')', ';', '-', '@')) return true;
  return symbols.is(index, 'at', 'on', 'the', 'filler', 'by', 'of', 'from') && (index < symbols.length - 1 || symbols.is(index, 'filler'));
}

/** "in the evening", "de la tarde", "בערב", "morning". */
function partAt(symbols: Symbols, start: number): Parsed<PartOfDay> | undefined {
  const index = symbols.skip(start, 'in', 'the', 'at', 'of', 'filler');
  const sym = symbols.at(index);
  if (sym?.k !== 'part') return undefined;
  return { value: sym.v, end: index + 1 };
}

/** "in 20 minutes", "20 minutes from now", "in half an hour", "10 minutes ago", "hace 10 minutos". */
function instantOffset(symbols: Symbols, start: number): Parsed<{ quantity: Quantity; sign: 1 | -1 }> | undefined {
  const leading = symbols.is(start, 'in', 'within') ? 1 : symbols.is(start, 'ago') ? -1 : 0;
  const index = leading === 0 ? start : start + 1;
  const quantity = parseQuantity(symbols, index);
  if (!quantity || !isClockQuantity(quantity.value)) return undefined;
  if (leading !== 0) {
    const end = symbols.is(quantity.end, 'from-now') ? quantity.end + 1 : quantity.end;
    return { value: { quantity: quantity.value, sign: leading === 1 ? 1 : -1 }, end };
  }
  if (symbols.is(quantity.end, 'from-now')) return { value: { quantity: quantity.value, sign: 1 }, end: quantity.end + 1 };
  if (symbols.is(quantity.end, 'ago')) return { value: { quantity: quantity.value, sign: -1 }, end: quantity.end + 1 };
  return undefined;
}

/** "end of tomorrow", "end of the day", "end of friday": the day's last second (no day: today). */
function endOfDayAt(symbols: Symbols, start: number): Parsed<DaySpec | undefined> | undefined {
  if (!symbols.is(start, 'end')) return undefined;
  const index = symbols.skip(start + 1, 'of', 'the', 'this');
  const sym = symbols.at(index);
  if (sym?.k === 'unit' && sym.v === 'day') return { value: undefined, end: index + 1 };
  if (sym?.k !== 'rel' && sym?.k !== 'weekday') return undefined;
  const day = parseDay(symbols, symbols.is(start + 1, 'of') && symbols.is(index - 1, 'this') ? index - 1 : index);
  return day ? { value: day.value, end: day.end } : undefined;
}

/** May a lone number at `index` be an hour? After "at", or beside a day or a part of the day. */
function bareHourAllowed(symbols: Symbols, index: number, components: Component[]): boolean {
  let before = index - 1;
  while (before >= 0 && symbols.is(before, 'the')) before -= 1;
  // "at 5", "around 4", "about 6".
  if (symbols.is(before, 'at', 'filler')) return true;
  const previous = components[components.length - 1];
  // Beside "tomorrow" or "friday" a lone number is an hour; after a date ("april 14 15") it may be a year.
  if (previous?.c === 'part') return true;
  if (previous?.c === 'day' && previous.spec.d !== 'date' && previous.spec.d !== 'numeric') return true;
  let after = index + 1;
  if (symbols.is(after, 'oclock')) after += 1;
  if (symbols.punct(after, ',')) after += 1;
  return partAt(symbols, after) !== undefined || symbols.at(after)?.k === 'rel' || symbols.at(after)?.k === 'weekday';
}

/**
 * Reads a whole phrase into components. Every symbol must be part of one, or a joining word;
 * the first that is neither ends the parse with the words it could not read. This is what
 * keeps the resolver from being confidently wrong: "tomorrow at 9 to pay rent" is not
 * "tomorrow at 9".
 */
export function parsePhrase(symbols: Symbols): PhraseParse {
  const components: Component[] = [];
  let index = 0;
  while (index < symbols.length) {
    const sym = symbols.at(index);
    if (sym?.k === 'every') return { ok: false, unread: symbols.text(index, index + 1) };
    const candidates: Array<Parsed<Component> | undefined> = [];
    const offset = instantOffset(symbols, index);
    if (offset) candidates.push({ value: { c: 'offset', ...offset.value, text: symbols.text(index, offset.end) }, end: offset.end });
    const day = parseDay(symbols, index);
    if (day) candidates.push({ value: { c: 'day', spec: day.value, text: symbols.text(index, day.end) }, end: day.end });
    const clock = parseClock(symbols, symbols.skip(index, 'at'), bareHourAllowed(symbols, symbols.skip(index, 'at'), components));
    if (clock) candidates.push({ value: { c: 'time', clock: clock.value, text: symbols.text(index, clock.end) }, end: clock.end });
    const span = parseSpan(symbols, index);
    if (span) candidates.push({ value: { c: 'span', spec: span.value, text: symbols.text(index, span.end) }, end: span.end });
    const part = partAt(symbols, index);
    if (part) candidates.push({ value: { c: 'part', part: part.value, text: symbols.text(index, part.end) }, end: part.end });
    if (sym?.k === 'now') candidates.push({ value: { c: 'now', text: symbols.text(index, index + 1) }, end: index + 1 });
    if (sym?.k === 'eod') candidates.push({ value: { c: 'eod', text: symbols.text(index, index + 1) }, end: index + 1 });
    // "end of tomorrow", "the end of the day", "end of this sunday": the last second of that day.
    const endOfDay = endOfDayAt(symbols, index);
    if (endOfDay) {
      components.push({ c: 'eod', text: symbols.text(index, endOfDay.end) });
      if (endOfDay.value) components.push({ c: 'day', spec: endOfDay.value, text: symbols.text(index, endOfDay.end) });
      index = endOfDay.end;
      continue;
    }
    const best = longest(...candidates);
    if (best) {
      components.push(best.value);
      index = best.end;
      continue;
    }
    // A deadline is its day: "by friday", "until friday", "bis Freitag", "עד יום שישי".
    if (isSoft(symbols, index) || (index === 0 && symbols.is(index, 'until') && symbols.length > 1)) {
      index += 1;
      continue;
    }
    return { ok: false, unread: symbols.text(index, Math.min(symbols.length, index + 3)) };
  }
  return { ok: true, components };
}
