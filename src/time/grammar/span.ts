import type { Parsed, Symbols } from './cursor.js';

/** A span of days as written: "this week", "next month", "january", "the next 3 days". */
export type SpanSpec =
  | { s: 'unit'; unit: 'week' | 'weekend' | 'month' | 'year' | 'fortnight'; offset: number }
  | { s: 'month'; month: number; year?: number | undefined }
  | { s: 'year'; year: number }
  | { s: 'rolling'; unit: 'day' | 'week' | 'month'; count: number; sign: 1 | -1 }
  | { s: 'rest'; unit: 'day' | 'week' | 'month' | 'year' };

const spanUnits = new Set(['week', 'weekend', 'month', 'year', 'fortnight']);

/** "this week", "next weekend", "last month", "the week after next", "la semana que viene", "week". */
function unitSpan(symbols: Symbols, start: number): Parsed<SpanSpec> | undefined {
  let index = symbols.skip(start, 'the', 'in', 'on', 'filler');
  let offset: number | undefined;
  if (symbols.is(index, 'this')) offset = 0;
  else if (symbols.is(index, 'next')) offset = 1;
  else if (symbols.is(index, 'last')) offset = -1;
  if (offset !== undefined) index += 1;
  if (offset === 1 && symbols.is(index, 'after-next')) {
    offset = 2;
    index += 1;
  }
  const unit = symbols.at(index);
  if (unit?.k !== 'unit' || !spanUnits.has(unit.v)) return undefined;
  index += 1;
  if (offset === undefined) {
    if (symbols.is(index, 'after-next')) offset = 2;
    else if (symbols.is(index, 'next') && symbols.is(index + 1, 'after-next')) offset = 2;
    else if (symbols.is(index, 'next')) offset = 1;
    else if (symbols.is(index, 'last')) offset = -1;
    else if (symbols.is(index, 'this')) offset = 0;
    if (offset !== undefined) index += offset === 2 && symbols.is(index, 'next') ? 2 : 1;
  }
  return { value: { s: 'unit', unit: unit.v as 'week', offset: offset ?? 0 }, end: index };
}

/** "january", "in march", "march 2027", "marzo de 2027". */
function monthSpan(symbols: Symbols, start: number): Parsed<SpanSpec> | undefined {
  const index = symbols.skip(start, 'in', 'the', 'of');
  const month = symbols.at(index);
  if (month?.k !== 'month') return undefined;
  let end = index + 1;
  const yearIndex = symbols.skip(symbols.punct(end, ',') ? end + 1 : end, 'of');
  const year = symbols.num(yearIndex);
  if (year?.digits?.length === 4) end = yearIndex + 1;
  return { value: { s: 'month', month: month.v, year: year?.digits?.length === 4 ? year.v : undefined }, end };
}

/** "2027", "in 2027". */
function yearSpan(symbols: Symbols, start: number): Parsed<SpanSpec> | undefined {
  const index = symbols.skip(start, 'in', 'the', 'of');
  const year = symbols.num(index);
  if (!year || year.digits?.length !== 4 || year.v < 1900 || year.v > 2200) return undefined;
  return { value: { s: 'year', year: year.v }, end: index + 1 };
}

/** "the next 3 days", "next two weeks", "the past 7 days", "los próximos 3 días". */
function rollingSpan(symbols: Symbols, start: number): Parsed<SpanSpec> | undefined {
  let index = symbols.skip(start, 'the', 'in', 'filler');
  const sign = symbols.is(index, 'next', 'this') ? 1 : symbols.is(index, 'last', 'past') ? -1 : undefined;
  if (sign === undefined) return undefined;
  index += 1;
  const count = symbols.num(index, true);
  if (!count || !Number.isInteger(count.v) || count.v < 1 || count.v > 366) return undefined;
  index += 1;
  const unit = symbols.at(index);
  if (unit?.k !== 'unit' || (unit.v !== 'day' && unit.v !== 'week' && unit.v !== 'month')) return undefined;
  index += 1;
  // "los 3 próximos días", "les 3 prochains jours" put the word after the count: handled by the lexicons' order.
  return { value: { s: 'rolling', unit: unit.v, count: count.v, sign }, end: index };
}

/** "the rest of the week", "rest of today". */
function restSpan(symbols: Symbols, start: number): Parsed<SpanSpec> | undefined {
  if (!symbols.is(start, 'rest')) return undefined;
  let index = symbols.skip(start + 1, 'of', 'the', 'this');
  const sym = symbols.at(index);
  let unit: 'day' | 'week' | 'month' | 'year' | undefined;
  if (sym?.k === 'rel' && sym.v === 0) unit = 'day';
  else if (sym?.k === 'unit' && (sym.v === 'day' || sym.v === 'week' || sym.v === 'month' || sym.v === 'year')) unit = sym.v;
  if (!unit) return undefined;
  index += 1;
  return { value: { s: 'rest', unit }, end: index };
}

/** A span at `start`, the longest reading. */
export function parseSpan(symbols: Symbols, start: number): Parsed<SpanSpec> | undefined {
  const parses = [rollingSpan(symbols, start), restSpan(symbols, start), unitSpan(symbols, start), monthSpan(symbols, start), yearSpan(symbols, start)];
  let best: Parsed<SpanSpec> | undefined;
  for (const parse of parses) if (parse && (!best || parse.end > best.end)) best = parse;
  return best;
}
