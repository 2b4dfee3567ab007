import { longest, type Parsed, type Symbols } from './cursor.js';
import { isClockQuantity, parseQuantity, type Quantity } from './quantity.js';

/** Which one of a weekday: Herald's conventions are in src/time/README.md. */
type WeekdayQualifier = 'bare' | 'this' | 'next' | 'last' | 'after-next';

/** A day as written, before it is placed on the calendar (src/time/interpret.ts). */
export type DaySpec =
  | { d: 'rel'; days: number }
  | { d: 'weekday'; weekday: number; qualifier: WeekdayQualifier }
  /** "friday next week": the weekday in the calendar week `weeks` from this one. */
  | { d: 'weekday-in-week'; weekday: number; weeks: number }
  /** A calendar date; a missing month is the next month with that day, a missing year the next such date. */
  | { d: 'date'; day: number; month?: number | undefined; year?: number | undefined; monthOffset?: number | undefined; weekday?: number | undefined }
  /** Numeric "3/12": the order is the language's or country's, or both readings. */
  | { d: 'numeric'; first: number; second: number; year?: number | undefined; twoDigitYear?: boolean | undefined }
  /** "the first tuesday of october", "last friday of the month" (n = -1). */
  | { d: 'nth-weekday'; n: number; weekday: number; month?: number | undefined; monthOffset?: number | undefined; year?: number | undefined }
  /** "christmas", "next easter", "last easter", "christmas of next year": `last` is the most recent before today. */
  | { d: 'holiday'; key: string; eve: boolean; year?: number | undefined; last?: boolean | undefined; yearOffset?: number | undefined }
  /** "in 3 days", "2 weeks from friday", "3 days ago". */
  | { d: 'offset'; quantity: Quantity; sign: 1 | -1; from?: DaySpec | undefined }
  /** "3 fridays from now". */
  | { d: 'weekday-count'; weekday: number; count: number }
  /** "end of the month", "start of next week", "mid march". */
  | { d: 'edge'; edge: 'start' | 'end' | 'mid'; unit: 'week' | 'month' | 'year'; offset: number; month?: number | undefined };

function qualifierAt(symbols: Symbols, index: number): WeekdayQualifier | undefined {
  const sym = symbols.at(index);
  if (!sym) return undefined;
  if (sym.k === 'this' || sym.k === 'coming') return 'this';
  if (sym.k === 'next') return 'next';
  if (sym.k === 'last' || sym.k === 'past') return 'last';
  if (sym.k === 'after-next') return 'after-next';
  return undefined;
}

/** "this", "next", "last" before or after a week/month word, as a count from now. */
function offsetOf(symbols: Symbols, index: number): number | undefined {
  const sym = symbols.at(index);
  if (sym?.k === 'this' || sym?.k === 'coming') return 0;
  if (sym?.k === 'next') return symbols.is(index + 1, 'after-next') ? 2 : 1;
  if (sym?.k === 'last') return -1;
  if (sym?.k === 'after-next') return 2;
  return undefined;
}

/** "next week", "this week", "week after next", "the following week", "la semana que viene": a week offset. */
function weekOffset(symbols: Symbols, start: number): Parsed<number> | undefined {
  let index = symbols.skip(start, 'the', 'of', 'in', 'on');
  const before = offsetOf(symbols, index);
  if (before !== undefined) index += symbols.is(index, 'next') && symbols.is(index + 1, 'after-next') ? 2 : 1;
  const unit = symbols.at(index);
  if (unit?.k !== 'unit' || unit.v !== 'week') return undefined;
  index += 1;
  const after = before === undefined ? offsetOf(symbols, index) : undefined;
  if (after !== undefined) index += 1;
  const offset = before ?? after;
  if (offset === undefined) return undefined;
  return { value: offset, end: index };
}

/** "friday", "next friday", "friday next", "vendredi prochain", "friday after next", "friday next week". */
function weekdayDay(symbols: Symbols, start: number): Parsed<DaySpec> | undefined {
  let index = start;
  const leading = qualifierAt(symbols, index);
  if (leading) index += 1;
  // "the friday after next", "this coming friday".
  if (leading === 'this' && symbols.is(index, 'next')) index += 1;
  const weekday = symbols.at(index);
  if (weekday?.k !== 'weekday') {
    // "next week friday", "this week's friday".
    const week = weekOffset(symbols, start);
    if (!week) return undefined;
    const after = symbols.skip(symbols.punct(week.end, '-', ',') ? week.end + 1 : week.end, 'on', 'the', 'filler');
    const named = symbols.at(after);
    if (named?.k !== 'weekday') return undefined;
    return { value: { d: 'weekday-in-week', weekday: named.v, weeks: week.value }, end: after + 1 };
  }
  index += 1;
  const week = weekOffset(symbols, index);
  if (week && leading === undefined) return { value: { d: 'weekday-in-week', weekday: weekday.v, weeks: week.value }, end: week.end };
  const trailing = leading === undefined ? qualifierAt(symbols, index) : symbols.is(index, 'after-next') ? 'after-next' : undefined;
  if (trailing) index += 1;
  const qualifier = trailing === 'after-next' ? 'after-next' : leading ?? trailing ?? 'bare';
  return { value: { d: 'weekday', weekday: weekday.v, qualifier }, end: index };
}

/** A 4-digit year, or "of 2027", or a year in words ("nineteen eighty six", "two thousand and eighteen"). */
function yearAt(symbols: Symbols, start: number): Parsed<number> | undefined {
  let index = start;
  if (symbols.punct(index, ',')) index += 1;
  index = symbols.skip(index, 'of');
  const year = symbols.num(index);
  if (year && year.digits?.length === 4 && year.v >= 1000 && year.v <= 2999) return { value: year.v, end: index + 1 };
  return yearInWords(symbols, index);
}

const wordNumber = (symbols: Symbols, index: number, low: number, high: number): number | undefined => {
  const sym = symbols.num(index);
  return sym?.word === true && Number.isInteger(sym.v) && sym.v >= low && sym.v <= high ? sym.v : undefined;
};

/** "nineteen eighty six" (1986), "nineteen zero one" (1901), "seventeen hundred thirty three", "two thousand and eighteen". */
function yearInWords(symbols: Symbols, start: number): Parsed<number> | undefined {
  const first = wordNumber(symbols, start, 1, 29);
  if (first === undefined) return undefined;
  // "two thousand (and) eighteen".
  if (first <= 2 && symbols.num(start + 1)?.v === 1000) {
    let index = start + 2;
    if (symbols.is(index, 'and')) index += 1;
    const rest = wordNumber(symbols, index, 1, 99);
    return rest === undefined ? { value: first * 1000, end: start + 2 } : { value: first * 1000 + rest, end: index + 1 };
  }
  if (first < 10) return undefined;
  // "seventeen hundred (and) thirty three".
  if (symbols.num(start + 1)?.v === 100) {
    let index = start + 2;
    if (symbols.is(index, 'and')) index += 1;
    const rest = wordNumber(symbols, index, 1, 99);
    return rest === undefined ? { value: first * 100, end: start + 2 } : { value: first * 100 + rest, end: index + 1 };
  }
  // "nineteen eighty six", "nineteen zero one" (zero and a digit).
  const second = wordNumber(symbols, start + 1, 0, 99);
  if (second === undefined) return undefined;
  if (second === 0) {
    const digit = wordNumber(symbols, start + 2, 1, 9);
    return digit === undefined ? undefined : { value: first * 100 + digit, end: start + 3 };
  }
  return second >= 10 ? { value: first * 100 + second, end: start + 2 } : undefined;
}

/**
 * A day of the month: "3", "3rd", "the 3rd", "3." (German); number words only after a month
 * ("may twenty nine"): before a unit they are a count ("two months").
 */
function dayNumber(symbols: Symbols, start: number, words = false): Parsed<number> | undefined {
  const index = symbols.skip(start, 'the');
  const sym = symbols.at(index);
  if (sym?.k === 'ord' && sym.v >= 1 && sym.v <= 31) return { value: sym.v, end: index + 1 };
  if (sym?.k === 'num' && sym.vague !== true && (sym.digits !== undefined || words) && Number.isInteger(sym.v) && sym.v >= 1 && sym.v <= 31 && (sym.digits?.length ?? 2) <= 2) {
    const end = symbols.punct(index + 1, '.') && symbols.at(index + 2)?.k === 'month' ? index + 2 : index + 1;
    return { value: sym.v, end };
  }
  return undefined;
}

/** "october 2", "oct 2nd, 2026", "2 oct", "2nd of october 2026", "3. Oktober", "el 3 de octubre". */
function monthDate(symbols: Symbols, start: number): Parsed<DaySpec> | undefined {
  // "2019/aug/01", "2019-sep-1": year, month, day.
  const leadingYear = symbols.num(start);
  if (leadingYear?.digits?.length === 4 && symbols.punct(start + 1, '/', '-', '.') && symbols.at(start + 2)?.k === 'month' && symbols.punct(start + 3, '/', '-', '.')) {
    const named = symbols.at(start + 2);
    const day = dayNumber(symbols, start + 4);
    if (named?.k === 'month' && day) return { value: { d: 'date', day: day.value, month: named.v, year: leadingYear.v }, end: day.end };
  }
  const month = symbols.at(start);
  if (month?.k === 'month') {
    let index = start + 1;
    if (symbols.punct(index, '.', '/', '-', ',')) index += 1;
    const day = dayNumber(symbols, symbols.skip(index, 'the'), true);
    if (!day) return undefined;
    const year = yearAt(symbols, day.end) ?? (symbols.punct(day.end, '-', '/') ? yearAt(symbols, day.end + 1) : undefined);
    return { value: { d: 'date', day: day.value, month: month.v, year: year?.value }, end: year?.end ?? day.end };
  }
  const day = dayNumber(symbols, start);
  if (!day) return undefined;
  // "the 15th day of next month".
  const dayWord = symbols.at(day.end);
  let index = symbols.skip(dayWord?.k === 'unit' && dayWord.v === 'day' && symbols.at(day.end - 1)?.k === 'ord' ? day.end + 1 : day.end, 'of');
  if (symbols.punct(index, '-', '/', '.') && symbols.at(index + 1)?.k === 'month') index += 1;
  const named = symbols.at(index);
  if (named?.k === 'month') {
    let end = index + 1;
    if (symbols.punct(end, '.')) end += 1;
    const year = yearAt(symbols, end) ?? (symbols.punct(end, '-', '/', '.') ? yearAt(symbols, end + 1) : undefined);
    return { value: { d: 'date', day: day.value, month: named.v, year: year?.value }, end: year?.end ?? end };
  }
  // "the 15th of next month", "the 20th of the month" (not "3 months": a count).
  const monthOffset = index > day.end || symbols.at(day.end)?.k !== 'unit' ? monthOffsetAt(symbols, index) : undefined;
  if (monthOffset) return { value: { d: 'date', day: day.value, monthOffset: monthOffset.value }, end: monthOffset.end };
  return undefined;
}

/**
 * "next month", "this month", "the month", "el mes que viene", "of next year": an offset of
 * `unit` from now, its qualifier before or after it. `bare`: the unit alone ("the month") is
 * this one; otherwise a qualifier is needed.
 */
function unitOffsetAt(symbols: Symbols, start: number, unit: 'month' | 'year', bare: boolean): Parsed<number> | undefined {
  let index = symbols.skip(start, 'the', 'of', 'in');
  const before = offsetOf(symbols, index);
  if (before !== undefined) index += 1;
  const sym = symbols.at(index);
  if (sym?.k !== 'unit' || sym.v !== unit) return undefined;
  index += 1;
  const after = before === undefined ? offsetOf(symbols, index) : undefined;
  if (after !== undefined) index += 1;
  const offset = before ?? after ?? (bare ? 0 : undefined);
  return offset === undefined ? undefined : { value: offset, end: index };
}

/** "next month", "this month", "the month": a month offset. */
function monthOffsetAt(symbols: Symbols, start: number): Parsed<number> | undefined {
  return unitOffsetAt(symbols, start, 'month', true);
}

/** "the 15th", "on the 3rd", "ה-15", "le 15": a day of some month (with "the" or an ordinal). */
function bareDayOfMonth(symbols: Symbols, start: number): Parsed<DaySpec> | undefined {
  const hasArticle = symbols.is(start, 'the', 'on');
  const index = symbols.skip(start, 'on', 'the');
  if (symbols.punct(index, '-') && symbols.num(index + 1)) return bareDayOfMonth(symbols, index + 1);
  const sym = symbols.at(index);
  if (sym?.k === 'ord' && sym.v >= 1 && sym.v <= 31) {
    const end = symbols.is(index + 1, 'day-of-month') ? index + 2 : index + 1;
    return { value: { d: 'date', day: sym.v }, end };
  }
  if (hasArticle && sym?.k === 'num' && sym.vague !== true && Number.isInteger(sym.v) && sym.v >= 1 && sym.v <= 31 && (sym.digits?.length ?? 1) <= 2) {
    return { value: { d: 'date', day: sym.v }, end: index + 1 };
  }
  // "15 at 8:00", "15, 8pm": a bare day of the month when a time follows it.
  const clockAfter = (symbols.is(index + 1, 'at') || symbols.punct(index + 1, ',')) && symbols.num(index + 2) !== undefined;
  if (sym?.k === 'num' && sym.digits !== undefined && sym.digits.length <= 2 && sym.v >= 1 && sym.v <= 31 && clockAfter) {
    return { value: { d: 'date', day: sym.v }, end: index + 1 };
  }
  return undefined;
}

/** "friday the 13th", "friday, october 3", "vendredi 3 octobre": a weekday that names the date it falls on. */
function weekdayAndDate(symbols: Symbols, start: number): Parsed<DaySpec> | undefined {
  const weekday = symbols.at(start);
  if (weekday?.k !== 'weekday') return undefined;
  let index = symbols.punct(start + 1, ',', '-', '(') ? start + 2 : start + 1;
  if (symbols.punct(index, '(')) index += 1;
  if (symbols.options.ordinalAfterWeekday && nthAt(symbols, index)) return undefined;
  const date = longest(monthDate(symbols, index), bareDayOfMonth(symbols, index), numericDate(symbols, index), plainDayOfMonth(symbols, index));
  if (!date || (date.value.d !== 'date' && date.value.d !== 'numeric')) return undefined;
  const end = symbols.punct(date.end, ')') ? date.end + 1 : date.end;
  if (date.value.d === 'numeric') return { value: date.value, end };
  return { value: { ...date.value, weekday: weekday.v }, end };
}

/**
 * A bare number after a weekday that is the day of the month: "sunday 31", "lunes 21",
 * "sexta-feira 13", or "friday 3 at 4" (a time follows). "friday 3" stays a time; a 24-hour
 * time after a weekday is written as one ("21:00", "21h", "21 Uhr").
 */
function plainDayOfMonth(symbols: Symbols, start: number): Parsed<DaySpec> | undefined {
  const sym = symbols.num(start);
  if (!sym || sym.digits === undefined || !Number.isInteger(sym.v) || sym.v < 1 || sym.v > 31) return undefined;
  if (sym.v < 13 && !(symbols.is(start + 1, 'at') && symbols.num(start + 2))) return undefined;
  if (symbols.is(start + 1, 'oclock', 'h') || symbols.at(start + 1)?.k === 'ampm' || symbols.punct(start + 1, ':')) return undefined;
  return { value: { d: 'date', day: sym.v }, end: start + 1 };
}

/** "3/12", "3.12.26", "2026-12-03", "12/3/2026", "3-12", "20161016". */
function numericDate(symbols: Symbols, at: number): Parsed<DaySpec> | undefined {
  // "ה-5.12", "the 5/12".
  let start = symbols.skip(at, 'the');
  if (start > at && symbols.punct(start, '-')) start += 1;
  const first = symbols.num(start);
  if (!first || first.digits === undefined || !Number.isInteger(first.v)) return undefined;
  if (first.digits.length === 8) {
    const year = Math.floor(first.v / 10000);
    return { value: { d: 'date', year, month: Math.floor(first.v / 100) % 100, day: first.v % 100 }, end: start + 1 };
  }
  if (!symbols.punct(start + 1, '/', '.', '-')) return undefined;
  const separator = symbols.at(start + 1);
  const second = symbols.num(start + 2);
  if (!second || second.digits === undefined || !Number.isInteger(second.v)) return undefined;
  const sameSeparator = separator?.k === 'punct' && symbols.punct(start + 3, separator.v);
  const third = sameSeparator ? symbols.num(start + 4) : undefined;
  if (first.digits?.length === 4) {
    // ISO: year-month-day.
    if (!third) return undefined;
    return { value: { d: 'date', year: first.v, month: second.v, day: third.v }, end: start + 5 };
  }
  if ((first.digits?.length ?? 0) > 2 || (second.digits?.length ?? 0) > 2) return undefined;
  if (third) {
    const digits = third.digits?.length ?? 0;
    if (digits !== 2 && digits !== 4) return undefined;
    return { value: { d: 'numeric', first: first.v, second: second.v, year: third.v, twoDigitYear: digits === 2 }, end: start + 5 };
  }
  // "3.12" with a dot, "3-12" with a dash: a date only when one of its readings is a day of the
  // year ("20.30" and "2.30" are times).
  if (!plausibleDate(first.v, second.v) && !plausibleDate(second.v, first.v)) return undefined;
  return { value: { d: 'numeric', first: first.v, second: second.v }, end: start + 3 };
}

const longestMonths = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A day and month that exist in some year. */
function plausibleDate(day: number, month: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= (longestMonths[month - 1] ?? 0);
}

/** An ordinal for "the first/second/last … of": numbers 1–5, or "last". */
function nthAt(symbols: Symbols, start: number): Parsed<number> | undefined {
  const index = symbols.skip(start, 'the');
  const sym = symbols.at(index);
  if (sym?.k === 'ord' && sym.v >= 1 && sym.v <= 5) return { value: sym.v, end: index + 1 };
  // "the second tuesday": English "second" is also the unit.
  if (sym?.k === 'unit' && sym.v === 'second') return { value: 2, end: index + 1 };
  if (sym?.k === 'last') return { value: -1, end: index + 1 };
  return undefined;
}

/** "the first tuesday of october", "last friday of the month", "2nd monday in march 2027", "the first monday of next month". */
function nthWeekday(symbols: Symbols, start: number): Parsed<DaySpec> | undefined {
  // "primer lunes de octubre", "le premier lundi d'octobre", "יום שלישי הראשון של אוקטובר" (weekday first).
  const nthFirst = nthAt(symbols, start);
  let weekdayIndex: number;
  let n: number;
  let index: number;
  if (nthFirst && symbols.at(nthFirst.end)?.k === 'weekday') {
    n = nthFirst.value;
    weekdayIndex = nthFirst.end;
    index = nthFirst.end + 1;
  } else {
    if (symbols.at(start)?.k !== 'weekday') return undefined;
    const after = nthAt(symbols, start + 1);
    if (!after) return undefined;
    // "friday the 3rd" is a date in English; "שישי השלישי" is the third Friday in Hebrew.
    if (!symbols.options.ordinalAfterWeekday && after.value !== -1) return undefined;
    n = after.value;
    weekdayIndex = start;
    index = after.end;
  }
  const weekday = symbols.at(weekdayIndex);
  if (weekday?.k !== 'weekday') return undefined;
  const of = symbols.skip(index, 'of', 'in', 'the');
  const month = symbols.at(of);
  if (month?.k === 'month') {
    const year = yearAt(symbols, of + 1);
    return { value: { d: 'nth-weekday', n, weekday: weekday.v, month: month.v, year: year?.value }, end: year?.end ?? of + 1 };
  }
  const offset = monthOffsetAt(symbols, index);
  if (offset) return { value: { d: 'nth-weekday', n, weekday: weekday.v, monthOffset: offset.value }, end: offset.end };
  // "the third tuesday": of this month, or the next month when this month's has passed. ("last friday" alone is the most recent one.)
  if (n === -1) return undefined;
  if (weekdayIndex === start && !symbols.options.ordinalAfterWeekday) return undefined;
  return { value: { d: 'nth-weekday', n, weekday: weekday.v }, end: index };
}

/** "christmas", "christmas eve", "christmas 2027", "ערב פסח", "the eve of passover". */
function holidayDay(symbols: Symbols, start: number): Parsed<DaySpec> | undefined {
  let index = symbols.skip(start, 'the');
  const qualifier = qualifierAt(symbols, index);
  if (qualifier === 'this' || qualifier === 'next' || qualifier === 'last') index += 1;
  let eve = false;
  if (symbols.is(index, 'eve')) {
    eve = true;
    index = symbols.skip(index + 1, 'of', 'the');
  }
  const holiday = symbols.at(index);
  if (holiday?.k !== 'holiday') return undefined;
  index += 1;
  if (symbols.is(index, 'eve')) {
    eve = true;
    index += 1;
  }
  const year = yearAt(symbols, index);
  if (year) return { value: { d: 'holiday', key: holiday.v, eve, year: year.value }, end: year.end };
  // "christmas of next year", "independence day of this year", "navidad del año que viene".
  const yearOffset = yearOffsetAt(symbols, index);
  if (yearOffset) return { value: { d: 'holiday', key: holiday.v, eve, yearOffset: yearOffset.value }, end: yearOffset.end };
  // Qualifiers may follow the name ("pascua pasada", "פסח הבא").
  const trailing = qualifier ? undefined : qualifierAt(symbols, index);
  const last = (qualifier ?? trailing) === 'last';
  return { value: { d: 'holiday', key: holiday.v, eve, last }, end: trailing ? index + 1 : index };
}

/** "of next year", "this year", "del año que viene": a year offset. */
function yearOffsetAt(symbols: Symbols, start: number): Parsed<number> | undefined {
  return unitOffsetAt(symbols, start, 'year', false);
}

/** "today", "tomorrow", "the day after tomorrow". */
function relativeDay(symbols: Symbols, start: number): Parsed<DaySpec> | undefined {
  const index = symbols.skip(start, 'the');
  const sym = symbols.at(index);
  if (sym?.k !== 'rel') return undefined;
  return { value: { d: 'rel', days: sym.v }, end: index + 1 };
}

/** The day a day offset counts from: "tomorrow", "friday", "christmas", "now"/"today". */
function anchorDay(symbols: Symbols, start: number): Parsed<DaySpec> | undefined {
  return longest(relativeDay(symbols, start), weekdayDay(symbols, start), monthDate(symbols, start), holidayDay(symbols, start), numericDate(symbols, start));
}

/** "in 3 days", "3 days from now", "in a fortnight", "a week from tomorrow", "2 days after christmas", "3 days ago". */
function dayOffset(symbols: Symbols, start: number): Parsed<DaySpec> | undefined {
  let index = start;
  const leadingIn = symbols.is(index, 'in', 'within');
  const leadingAgo = symbols.is(index, 'ago'); // "hace 3 días", "il y a 3 jours", "vor 3 Tagen"
  if (leadingIn || leadingAgo) index += 1;
  const quantity = parseQuantity(symbols, index);
  if (!quantity || isClockQuantity(quantity.value)) return undefined;
  index = quantity.end;
  if (leadingAgo) return { value: { d: 'offset', quantity: quantity.value, sign: -1 }, end: index };
  if (leadingIn) {
    // "in 2 weeks from friday" is unusual; "in 3 days" stands alone.
    if (symbols.is(index, 'from-now')) index += 1;
    return { value: { d: 'offset', quantity: quantity.value, sign: 1 }, end: index };
  }
  if (symbols.is(index, 'from-now')) return { value: { d: 'offset', quantity: quantity.value, sign: 1 }, end: index + 1 };
  if (symbols.is(index, 'ago')) return { value: { d: 'offset', quantity: quantity.value, sign: -1 }, end: index + 1 };
  // "two months after next friday": the lexicon read "after next" as one word.
  const weekdayAfter = symbols.at(index + 1);
  if (symbols.is(index, 'after-next') && weekdayAfter?.k === 'weekday') {
    const from: DaySpec = { d: 'weekday', weekday: weekdayAfter.v, qualifier: 'next' };
    return { value: { d: 'offset', quantity: quantity.value, sign: 1, from }, end: index + 2 };
  }
  if (symbols.is(index, 'after', 'from', 'before')) {
    const sign = symbols.is(index, 'before') ? -1 : 1;
    const from = anchorDay(symbols, index + 1);
    if (from) return { value: { d: 'offset', quantity: quantity.value, sign, from: from.value }, end: from.end };
  }
  return undefined;
}

/** "3 fridays from now", "in 2 mondays". */
function weekdayCount(symbols: Symbols, start: number): Parsed<DaySpec> | undefined {
  const leadingIn = symbols.is(start, 'in');
  const index = leadingIn ? start + 1 : start;
  const count = symbols.num(index);
  const weekday = symbols.at(index + 1);
  if (!count || weekday?.k !== 'weekday' || !Number.isInteger(count.v) || count.v < 1 || count.v > 52) return undefined;
  if (leadingIn) return { value: { d: 'weekday-count', weekday: weekday.v, count: count.v }, end: index + 2 };
  if (!symbols.is(index + 2, 'from-now')) return undefined;
  return { value: { d: 'weekday-count', weekday: weekday.v, count: count.v }, end: index + 3 };
}

/** "end of the month", "end of next week", "start of next month", "mid march", "end of year". */
function edgeDay(symbols: Symbols, start: number): Parsed<DaySpec> | undefined {
  const edge = symbols.is(start, 'end') ? 'end' : symbols.is(start, 'start') ? 'start' : symbols.is(start, 'mid') ? 'mid' : undefined;
  if (!edge) return undefined;
  let index = symbols.skip(start + 1, 'of', 'the');
  if (symbols.punct(index, '-')) index += 1;
  const month = symbols.at(index);
  if (month?.k === 'month') return { value: { d: 'edge', edge, unit: 'month', offset: 0, month: month.v }, end: index + 1 };
  const before = offsetOf(symbols, index);
  if (before !== undefined) index += 1;
  const unit = symbols.at(index);
  if (unit?.k !== 'unit' || (unit.v !== 'week' && unit.v !== 'month' && unit.v !== 'year')) return undefined;
  index += 1;
  const after = before === undefined ? offsetOf(symbols, index) : undefined;
  if (after !== undefined) index += 1;
  return { value: { d: 'edge', edge, unit: unit.v, offset: before ?? after ?? 0 }, end: index };
}

/** A day at `start`, the longest reading; "at" before it is allowed (Hebrew ב: "ב-15 בדצמבר", "ב-3.12"). */
export function parseDay(symbols: Symbols, at: number): Parsed<DaySpec> | undefined {
  const start = symbols.skip(at, 'at');
  if (symbols.punct(start, '-') && start > at) return parseDayAt(symbols, start + 1);
  return parseDayAt(symbols, start);
}

function parseDayAt(symbols: Symbols, start: number): Parsed<DaySpec> | undefined {
  return longest(
    relativeDay(symbols, start),
    nthWeekday(symbols, start),
    weekdayAndDate(symbols, start),
    monthDate(symbols, start),
    numericDate(symbols, start),
    holidayDay(symbols, start),
    dayOffset(symbols, start),
    weekdayCount(symbols, start),
    weekdayDay(symbols, start),
    edgeDay(symbols, start),
    bareDayOfMonth(symbols, start),
  );
}
