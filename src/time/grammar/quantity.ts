import type { TimeUnit } from '../symbols.js';
import type { Parsed, Symbols } from './cursor.js';

/** An amount of time as written: "3 days", "half an hour", "an hour and a half", "1 hour 30 minutes". */
export interface Quantity {
  /** Units and amounts, e.g. { hour: 1, minute: 30 }; fractions only for hours and minutes. */
  parts: Partial<Record<TimeUnit, number>>;
}

function unitAt(symbols: Symbols, index: number): TimeUnit | undefined {
  const sym = symbols.at(index);
  if (sym?.k === 'unit') return sym.v;
  if (sym?.k === 'h') return 'hour';
  return undefined;
}

/** A count before a unit: "3", "1.5", "1/2", "a", "half a(n)", "a quarter of an", or none ("בעוד שעה"). */
function countAt(symbols: Symbols, start: number): Parsed<number> | undefined {
  const number = symbols.num(start, true);
  if (number) {
    // "1.5 hours", "1,5 Stunden".
    const fraction = symbols.num(start + 2);
    if (symbols.punct(start + 1, '.', ',') && fraction?.digits !== undefined) {
      return { value: number.v + fraction.v / 10 ** fraction.digits.length, end: start + 3 };
    }
    // "1/2 hour".
    const denominator = symbols.num(start + 2);
    if (symbols.punct(start + 1, '/') && denominator && denominator.v > 0 && unitAt(symbols, start + 3) !== undefined) {
      return { value: number.v / denominator.v, end: start + 3 };
    }
    // "2 and a half hours", "1 y media horas".
    if (symbols.is(start + 1, 'and') && symbols.is(symbols.skip(start + 2, 'a'), 'half')) {
      return { value: number.v + 0.5, end: symbols.skip(start + 2, 'a') + 1 };
    }
    return { value: number.v, end: start + 1 };
  }
  let index = start;
  if (symbols.is(index, 'a')) index += 1;
  if (symbols.is(index, 'half')) return { value: 0.5, end: symbols.skip(index + 1, 'a', 'of') };
  if (symbols.is(index, 'quarter')) return { value: 0.25, end: symbols.skip(index + 1, 'a', 'of') };
  if (symbols.is(index, 'three-quarters')) return { value: 0.75, end: symbols.skip(index + 1, 'a', 'of') };
  if (index > start) return { value: 1, end: index };
  return undefined;
}

/**
 * A quantity at `start`. Several amounts join ("1 hour 30 minutes", "2h30", "an hour and a
 * half"); a unit with no count is one of it ("בעוד שעה", "dans une heure" reads "a"). Needs
 * at least one unit.
 */
export function parseQuantity(symbols: Symbols, start: number): Parsed<Quantity> | undefined {
  const parts: Partial<Record<TimeUnit, number>> = {};
  let index = start;
  let read = false;
  for (;;) {
    const counted = countAt(symbols, index) ?? (unitAt(symbols, index) !== undefined && !read ? { value: 1, end: index } : undefined);
    if (!counted) break;
    // "a couple of days", "un par de horas".
    const count = symbols.is(counted.end, 'of') && unitAt(symbols, counted.end + 1) !== undefined ? { value: counted.value, end: counted.end + 1 } : counted;
    const unit = unitAt(symbols, count.end);
    if (unit === undefined || parts[unit] !== undefined) {
      // "2h30": minutes after an hour mark with no unit of their own.
      if (read && parts.hour !== undefined && parts.minute === undefined && symbols.num(index) && symbols.at(index - 1)?.k === 'h' && count.end === index + 1) {
        parts.minute = count.value;
        index = count.end;
      }
      break;
    }
    parts[unit] = count.value;
    index = count.end + 1;
    read = true;
    // "an hour and a half", "una hora y media", "שעה וחצי".
    if (symbols.is(index, 'and') && symbols.is(symbols.skip(index + 1, 'a'), 'half')) {
      parts[unit] = count.value + 0.5;
      index = symbols.skip(index + 1, 'a') + 1;
    }
    // "1 hour and 30 minutes", "1 month, 21 days".
    if ((symbols.is(index, 'and') || symbols.punct(index, ',')) && symbols.num(index + 1) && unitAt(symbols, index + 2) !== undefined) index += 1;
  }
  if (!read) return undefined;
  return { value: { parts }, end: index };
}

/** True when a quantity has hours, minutes or seconds: it lands on an exact instant, not a day. */
export function isClockQuantity(quantity: Quantity): boolean {
  return Object.keys(quantity.parts).some((unit) => unit === 'second' || unit === 'minute' || unit === 'hour');
}
