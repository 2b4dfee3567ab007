import { longest, type Parsed, type Symbols } from './cursor.js';

/** A time of day as written, before the day and the am/pm rules decide the hour. */
export interface ClockTime {
  hour: number;
  minute: number;
  second: number;
  meridiem?: 'am' | 'pm' | undefined;
  /**
   * The hour cannot be a 12-hour one: written 24-hour ("15:30", "08:00", "15h"), a named
   * time (noon, midnight), or made from minutes to/past a 24-hour hour.
   */
  exact: boolean;
  /** The zone the text named for it ("3pm EST", an ISO "Z" or "+02:00"): IANA name or minutes east of UTC. */
  zone?: string | number | undefined;
}

/** How the hour was reached, for the minutes-past/to forms. */
interface Hour {
  hour: number;
  meridiem?: 'am' | 'pm' | undefined;
  exact: boolean;
}

function isTwoDigits(digits: string | undefined): boolean {
  return digits !== undefined && digits.length === 2;
}

/** "3", "3pm", "15", "noon", "3 o'clock", "at 3": an hour a minutes-past/to form can lean on. */
function hourWord(symbols: Symbols, start: number): Parsed<Hour> | undefined {
  const sym = symbols.at(start);
  if (sym?.k === 'clock' && sym.v % 60 === 0) return { value: { hour: sym.v / 60, exact: true }, end: start + 1 };
  const number = symbols.num(start);
  if (!number || !Number.isInteger(number.v) || number.v > 24) return undefined;
  let end = start + 1;
  if (symbols.is(end, 'oclock', 'h')) end += 1;
  const meridiem = ampmAt(symbols, end);
  if (meridiem) end = meridiem.end;
  const exact = number.v > 12 || number.v === 0 || (number.digits?.startsWith('0') ?? false);
  return { value: { hour: number.v, meridiem: meridiem?.value, exact }, end };
}

/** "pm", "p.m.", "a" after a number ("at 5a"); "a" is only am after "at" and when nothing makes it an article. */
function ampmAt(symbols: Symbols, start: number): Parsed<'am' | 'pm'> | undefined {
  const sym = symbols.at(start);
  if (sym?.k === 'ampm') return { value: sym.v, end: start + 1 };
  // "at 5a", "9:00a", "8:45a": after "at" or after minutes; "A4" or "4a" alone are not times.
  const afterMinutes = symbols.num(start - 1)?.digits?.length === 2 && symbols.punct(start - 2, ':');
  if (sym?.k === 'a' && (symbols.is(start - 2, 'at') || afterMinutes)) {
    const after = symbols.at(start + 1);
    if (after === undefined || after.k === 'punct' || after.k === 'part' || after.k === 'weekday' || after.k === 'rel' || after.k === 'on') {
      return { value: 'am', end: start + 1 };
    }
  }
  return undefined;
}

/** Minutes as a clock phrase says them: "quarter", "half", "20", "20 minutes", "a quarter". */
function minutesWord(symbols: Symbols, start: number): Parsed<number> | undefined {
  let index = symbols.skip(start, 'a', 'the');
  if (symbols.is(index, 'quarter')) return { value: 15, end: index + 1 };
  if (symbols.is(index, 'half')) return { value: 30, end: index + 1 };
  if (symbols.is(index, 'three-quarters')) return { value: 45, end: index + 1 };
  const number = symbols.num(index);
  if (!number || !Number.isInteger(number.v) || number.v < 1 || number.v > 59) return undefined;
  index += 1;
  const unit = symbols.at(index);
  if (unit?.k === 'unit' && unit.v === 'minute') index += 1;
  return { value: number.v, end: index };
}

/** A zone after a time: "EST", "Pacific time", "Z", "+02:00", "-0500". */
function zoneAt(symbols: Symbols, start: number): Parsed<string | number> | undefined {
  const sym = symbols.at(start);
  if (sym?.k === 'tz') return { value: sym.v, end: start + 1 };
  const sign = symbols.punct(start, '+') ? 1 : symbols.punct(start, '-') ? -1 : 0;
  const hours = symbols.num(start + 1);
  if (sign === 0 || !hours?.digits) return undefined;
  if (hours.digits.length === 4) return { value: sign * (Math.floor(hours.v / 100) * 60 + (hours.v % 100)), end: start + 2 };
  const minutes = symbols.punct(start + 2, ':') ? symbols.num(start + 3) : undefined;
  if (hours.digits.length !== 2 || hours.v > 14) return undefined;
  if (minutes?.digits?.length === 2) return { value: sign * (hours.v * 60 + minutes.v), end: start + 4 };
  return undefined;
}

/** Applies a trailing am/pm, o'clock or zone ("half past seven pm", "a quarter to 3 o'clock", "3pm EST"). */
function trailing(symbols: Symbols, parsed: Parsed<ClockTime>): Parsed<ClockTime> {
  let end = parsed.end;
  if (symbols.is(end, 'oclock')) end += 1;
  let value = parsed.value;
  const meridiem = value.meridiem === undefined ? ampmAt(symbols, end) : undefined;
  if (meridiem) {
    value = { ...value, meridiem: meridiem.value };
    end = meridiem.end;
  }
  const zone = zoneAt(symbols, end);
  if (zone) return { value: { ...value, zone: zone.value }, end: zone.end };
  return { value, end };
}

/** "15:30", "3:30pm", "08:00:00", "15.30 Uhr" (a dot needs a mark after it: "3.12" is a date). */
function colonTime(symbols: Symbols, start: number, dotAllowed: boolean): Parsed<ClockTime> | undefined {
  const hour = symbols.num(start);
  if (!hour || !symbols.punct(start + 1, ':', '.')) return undefined;
  const minute = symbols.num(start + 2);
  if (!minute || !isTwoDigits(minute.digits)) return undefined;
  const dot = symbols.punct(start + 1, '.');
  let end = start + 3;
  let second = 0;
  if (!dot && symbols.punct(end, ':') && isTwoDigits(symbols.num(end + 1)?.digits)) {
    second = symbols.num(end + 1)?.v ?? 0;
    end += 2;
    // ISO fractions of a second: "10:00:00.000Z".
    if (symbols.punct(end, '.') && symbols.num(end + 1)) end += 2;
  }
  if (dot && !dotAllowed && !(symbols.is(end, 'oclock', 'h') || symbols.at(end)?.k === 'ampm' || symbols.at(end)?.k === 'part')) return undefined;
  const exact = hour.v > 12 || hour.v === 0 || (hour.digits?.startsWith('0') ?? false) || (hour.digits?.length ?? 0) === 2;
  return trailing(symbols, { value: { hour: hour.v, minute: minute.v, second, exact }, end });
}

/** "15h", "15h30", "15 h 30", "8h" (French, Portuguese): 24-hour. */
function hourMarkTime(symbols: Symbols, start: number): Parsed<ClockTime> | undefined {
  const hour = symbols.num(start);
  if (!hour || !symbols.is(start + 1, 'h')) return undefined;
  // "15h30", "sept heures dix", "huit heures 20 minutes".
  const minute = symbols.num(start + 2);
  if (minute && (isTwoDigits(minute.digits) || (minute.word === true && minute.v <= 59))) {
    const unit = symbols.at(start + 3);
    const end = unit?.k === 'unit' && unit.v === 'minute' ? start + 4 : start + 3;
    return trailing(symbols, { value: { hour: hour.v, minute: minute.v, second: 0, exact: true }, end });
  }
  if (minute && minute.v <= 59 && symbols.at(start + 3)?.k === 'unit' && (symbols.at(start + 3) as { v?: string }).v === 'minute') {
    return trailing(symbols, { value: { hour: hour.v, minute: minute.v, second: 0, exact: true }, end: start + 4 });
  }
  return trailing(symbols, { value: { hour: hour.v, minute: 0, second: 0, exact: true }, end: start + 2 });
}

/**
 * A number that is a time: "3pm", "3 o'clock", "15 Uhr 30", "eight forty". A bare number
 * is a time only where the caller says it may be (after "at", or beside a day).
 */
function numberTime(symbols: Symbols, start: number, bareAllowed: boolean): Parsed<ClockTime> | undefined {
  const hour = symbols.num(start);
  if (!hour || !Number.isInteger(hour.v)) return undefined;
  // "1140 a.m.", "340pm": hours and minutes run together, with a meridiem to say so.
  const digits = hour.digits?.length ?? 0;
  if ((digits === 3 || digits === 4) && ampmAt(symbols, start + 1) && hour.v % 100 < 60) {
    const meridiem = ampmAt(symbols, start + 1);
    return { value: { hour: Math.floor(hour.v / 100), minute: hour.v % 100, second: 0, meridiem: meridiem?.value, exact: false }, end: meridiem?.end ?? start + 1 };
  }
  if (hour.v > 24) return undefined;
  const exact = hour.v > 12 || hour.v === 0 || (hour.digits?.startsWith('0') ?? false);
  let end = start + 1;
  // "11-ish".
  if (symbols.punct(end, '-') && symbols.is(end + 1, 'oclock')) end += 1;
  const oclock = symbols.is(end, 'oclock');
  if (oclock) end += 1;
  // "five-thirty".
  if (hour.word === true && symbols.punct(end, '-') && symbols.num(end + 1)?.word === true) end += 1;
  // "15 heures 30", "3 часа 20 минут", "eight forty", "seven thirty pm", "eleven five".
  const minute = symbols.num(end);
  // "eleven five" is 11:05; "two three" is two numbers.
  const bothWords = minute?.word === true && hour.word === true && hour.v >= 10;
  if (minute && Number.isInteger(minute.v) && minute.v >= 0 && minute.v <= 59 && (oclock || minute.word === true || hour.word === true) && (minute.v >= 10 || isTwoDigits(minute.digits) || bothWords)) {
    let minuteEnd = end + 1;
    const unit = symbols.at(minuteEnd);
    if (unit?.k === 'unit' && unit.v === 'minute') minuteEnd += 1;
    return trailing(symbols, { value: { hour: hour.v, minute: minute.v, second: 0, exact }, end: minuteEnd });
  }
  // "9.am".
  const meridiem = ampmAt(symbols, end) ?? (symbols.punct(end, '.') ? ampmAt(symbols, end + 1) : undefined);
  if (meridiem) return trailing(symbols, { value: { hour: hour.v, minute: 0, second: 0, meridiem: meridiem.value, exact }, end: meridiem.end });
  if (oclock) return trailing(symbols, { value: { hour: hour.v, minute: 0, second: 0, exact }, end });
  if (bareAllowed) return trailing(symbols, { value: { hour: hour.v, minute: 0, second: 0, exact }, end });
  return undefined;
}

/** "quarter past 3", "20 past 8", "20 minutes after 3pm", "half past seven". */
function pastTime(symbols: Symbols, start: number): Parsed<ClockTime> | undefined {
  const minutes = minutesWord(symbols, start);
  if (!minutes || !symbols.is(minutes.end, 'past', 'after')) return undefined;
  const hour = hourWord(symbols, symbols.skip(minutes.end + 1, 'the'));
  if (!hour) return undefined;
  return trailing(symbols, { value: { hour: hour.value.hour, minute: minutes.value, second: 0, meridiem: hour.value.meridiem, exact: hour.value.exact }, end: hour.end });
}

/** "quarter to 6", "20 to 2pm", "20 minutes before 3", "רבע לשש": minutes before the hour. */
function toTime(symbols: Symbols, start: number): Parsed<ClockTime> | undefined {
  const minutes = minutesWord(symbols, start);
  if (!minutes || !symbols.is(minutes.end, 'to', 'before')) return undefined;
  // "5 to 6" is a range in English: only quarters, halves and counted minutes are clock words here.
  const spelled = symbols.is(start, 'quarter', 'half', 'three-quarters', 'a', 'the') || symbols.at(minutes.end - 1)?.k === 'unit' || symbols.num(start)?.word === true;
  if (!spelled) return undefined;
  const hour = hourWord(symbols, symbols.skip(minutes.end + 1, 'the'));
  if (!hour) return undefined;
  return trailing(symbols, { value: beforeHour(hour.value, minutes.value), end: hour.end });
}

function beforeHour(hour: Hour, minutes: number): ClockTime {
  const total = hour.hour * 60 - minutes;
  const wrapped = (total + 24 * 60) % (24 * 60);
  // "10 to 1pm" is 12:50 pm; "10 to 12am" is 11:50 pm the evening before: kept as written, the meridiem of the hour named.
  const earlier = Math.floor(wrapped / 60);
  const meridiem = hour.meridiem && hour.hour === 12 ? (hour.meridiem === 'pm' ? 'am' : 'pm') : hour.meridiem;
  return { hour: hour.meridiem && earlier === 0 ? 12 : earlier, minute: wrapped % 60, second: 0, meridiem: hour.meridiem && earlier === 0 ? meridiem : hour.meridiem, exact: hour.exact };
}

/** "3 and a quarter", "las 3 y media", "ב5 וחצי", "חמש ועשרים": hour, and, minutes. */
function andTime(symbols: Symbols, start: number): Parsed<ClockTime> | undefined {
  const hour = hourWord(symbols, start);
  if (!hour || !symbols.is(hour.end, 'and')) return undefined;
  const minutes = minutesWord(symbols, hour.end + 1);
  if (!minutes) return undefined;
  return trailing(symbols, { value: { hour: hour.value.hour, minute: minutes.value, second: 0, meridiem: hour.value.meridiem, exact: hour.value.exact }, end: minutes.end });
}

/** "6 menos cuarto", "6 heures moins le quart": hour, to, minutes (where the language says it). */
function hourToMinutesTime(symbols: Symbols, start: number): Parsed<ClockTime> | undefined {
  if (!symbols.options.hourToMinutes) return undefined;
  const hour = hourWord(symbols, start);
  if (!hour || !symbols.is(hour.end, 'to')) return undefined;
  const minutes = minutesWord(symbols, hour.end + 1);
  if (!minutes) return undefined;
  return trailing(symbols, { value: beforeHour(hour.value, minutes.value), end: minutes.end });
}

/** German "halb drei" (2:30) and "dreiviertel drei" (2:45): the half or three quarters before the hour. */
function halfBeforeTime(symbols: Symbols, start: number): Parsed<ClockTime> | undefined {
  const kind = symbols.is(start, 'half-before') ? 30 : symbols.is(start, 'three-quarters') ? 15 : undefined;
  if (kind === undefined) return undefined;
  const hour = hourWord(symbols, start + 1);
  if (!hour) return undefined;
  return trailing(symbols, { value: beforeHour(hour.value, kind), end: hour.end });
}

/** "noon", "midnight", "12 noon", "12 midnight". */
function namedTime(symbols: Symbols, start: number): Parsed<ClockTime> | undefined {
  let index = start;
  const twelve = symbols.num(index);
  if (twelve?.v === 12 && symbols.at(index + 1)?.k === 'clock') index += 1;
  const sym = symbols.at(index);
  if (sym?.k !== 'clock') return undefined;
  let end = index + 1;
  if (symbols.is(end, 'oclock')) end += 1;
  return { value: { hour: Math.floor(sym.v / 60), minute: sym.v % 60, second: 0, exact: true }, end };
}

/**
 * A time of day at `start`, the longest reading. `bareAllowed`: a lone number may be an hour
 * (after "at", or next to a day).
 */
export function parseClock(symbols: Symbols, start: number, bareAllowed: boolean): Parsed<ClockTime> | undefined {
  return longest(
    colonTime(symbols, start, bareAllowed),
    hourMarkTime(symbols, start),
    pastTime(symbols, start),
    toTime(symbols, start),
    andTime(symbols, start),
    hourToMinutesTime(symbols, start),
    halfBeforeTime(symbols, start),
    namedTime(symbols, start),
    numberTime(symbols, start, bareAllowed),
  );
}
