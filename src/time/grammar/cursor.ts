import type { Keyword, Placed, Sym } from '../symbols.js';

/** A parse of some symbols: what was read and where the next one starts. */
export interface Parsed<T> {
  value: T;
  end: number;
}

/** What the grammar may assume about the language it reads. */
export interface GrammarOptions {
  /**
   * "6 menos cuarto", "6 heures moins le quart", "без четверти шесть" read the hour first:
   * hour, "to", minutes is a time. In English "5 to 6" is a range, so English leaves it off.
   */
  hourToMinutes: boolean;
  /** Numeric dates: 3/12 is the 3rd of December (true), March 12 (false), or ambiguous (undefined). */
  dayFirst: boolean | undefined;
  /**
   * An ordinal after a weekday counts weekdays: Hebrew "שישי השלישי", Arabic "الجمعة الثالثة" are
   * the third Friday. In English "friday the 3rd" is a date, so English leaves it off.
   */
  ordinalAfterWeekday?: boolean;
}

/** The symbols of one phrase, read by the grammar's small parsers. */
export class Symbols {
  constructor(
    readonly placed: Placed[],
    readonly options: GrammarOptions,
  ) {}

  get length(): number {
    return this.placed.length;
  }

  at(index: number): Sym | undefined {
    return this.placed[index]?.sym;
  }

  /** True when the symbol at `index` is the keyword (or one of the keywords) given. */
  is(index: number, ...keywords: Keyword[]): boolean {
    const sym = this.at(index);
    return sym !== undefined && (keywords as string[]).includes(sym.k);
  }

  punct(index: number, ...marks: string[]): boolean {
    const sym = this.at(index);
    return sym?.k === 'punct' && marks.includes(sym.v);
  }

  /** A number at `index` (not a vague count, unless `vague` says so: "a few" is only a count). */
  num(index: number, vague = false): Extract<Sym, { k: 'num' }> | undefined {
    const sym = this.at(index);
    return sym?.k === 'num' && (vague || sym.vague !== true) ? sym : undefined;
  }

  /** Skips the keywords given, returning the first index that is not one of them. */
  skip(index: number, ...keywords: Keyword[]): number {
    let position = index;
    while (this.is(position, ...keywords)) position += 1;
    return position;
  }

  text(start: number, end: number): string {
    return this.placed
      .slice(start, end)
      .map((placed) => placed.text)
      .filter((text, index, all) => index === 0 || text !== all[index - 1])
      .join(' ');
  }
}

/** The longest of several parses; the earliest listed wins a tie. */
export function longest<T>(...parses: Array<Parsed<T> | undefined>): Parsed<T> | undefined {
  let best: Parsed<T> | undefined;
  for (const parse of parses) {
    if (parse && (!best || parse.end > best.end)) best = parse;
  }
  return best;
}
