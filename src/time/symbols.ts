/**
 * The language-independent vocabulary of time. Every language's words are translated into
 * these symbols (src/time/languages/), and one grammar (src/time/grammar.ts) reads them, so
 * "next friday", "el viernes que viene", "vendredi prochain" and "שישי הבא" are the same
 * two symbols: `next weekday:5`.
 */

/** Units of a duration or of a span. */
export type TimeUnit = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'fortnight' | 'month' | 'year' | 'weekend';

/** Parts of the day. `midday` is the Hebrew and Spanish "noon-time" (12:00–15:00). */
export type PartOfDay = 'morning' | 'midday' | 'afternoon' | 'evening' | 'night';

/** Words that carry no value of their own. */
export type Keyword =
  | 'next' // "next", "próximo", "prochain", "nächste", "הבא"
  | 'last' // "last", "pasado", "dernier", "letzte", "שעבר"
  | 'this' // "this", "este", "ce", "diese", "הזה"
  | 'coming' // "coming", "que viene" when it cannot mean "next" in Herald's sense: "הקרוב"
  | 'after-next' // "after next", "da próxima", "הבא אחריו"
  | 'in' // "in" before a duration: "in 3 days", "dentro de", "dans", "in", "em", "через", "בעוד", "بعد"
  | 'within' // "within", "en el plazo de"
  | 'ago' // "ago", "hace", "il y a", "vor", "há", "назад", "לפני"
  | 'from-now' // "from now", "later", "hence", "a partir de ahora"
  | 'past' // "past"/"after" in a clock time: "quarter past 3", "y cuarto" reads as 'and'
  | 'to' // "to"/"before" in a clock time: "20 to 2", "menos", "moins", "vor", "para", "без", "ל", "إلا"
  | 'half'
  | 'quarter'
  | 'three-quarters'
  | 'half-before' // German "halb drei" is 2:30
  | 'oclock' // "o'clock", "en punto", "heures", "Uhr", "horas", "час"
  | 'h' // the hour mark in "15h", "15h30", "15 h"
  | 'at'
  | 'on'
  | 'the'
  | 'of'
  | 'and'
  | 'a' // "a"/"an": one of a unit ("in an hour") or nothing
  | 'from'
  | 'until'
  | 'between'
  | 'after' // "2 days after tomorrow"
  | 'before' // "2 days before christmas"
  | 'end'
  | 'start'
  | 'mid'
  | 'rest'
  | 'eod' // "EOD", "close of business"
  | 'eve' // "Christmas eve", "ערב פסח"
  | 'now'
  | 'by' // "by friday": the day itself
  | 'every' // recurrence: not a single date
  | 'day-of-month' // "the 15th day of": the word "day" after an ordinal
  | 'filler'; // words that never change the meaning ("around", "about")

/** One symbol. `num` carries the digits as written when it came from digits (width matters: "08"). */
export type Sym =
  /** `vague`: "a few", "a couple": a count ("in a few days"), never an hour or a day of the month. */
  | { k: 'num'; v: number; digits?: string; word?: boolean; vague?: boolean }
  | { k: 'ord'; v: number }
  | { k: 'weekday'; v: number } // 1 = Monday … 7 = Sunday (luxon)
  | { k: 'month'; v: number } // 1 … 12
  | { k: 'rel'; v: number } // days from today: tomorrow = 1
  | { k: 'unit'; v: TimeUnit }
  | { k: 'part'; v: PartOfDay }
  | { k: 'clock'; v: number } // minutes after midnight: noon = 720
  | { k: 'ampm'; v: 'am' | 'pm' }
  | { k: 'holiday'; v: string }
  /** A time zone named in the text: an IANA name or minutes east of UTC ("3pm EST": -300). */
  | { k: 'tz'; v: string | number }
  | { k: 'punct'; v: string }
  | { k: 'word'; v: string } // a word no lexicon knows
  | { k: 'ord-suffix' } // "st", "nd", "er", "º", "-го": turns the number before it into an ordinal
  | { k: Keyword };

/** Where a symbol came from in the phrase, for error messages. */
export interface Placed {
  sym: Sym;
  /** The words it was read from, as written (folded). */
  text: string;
}

const keywords = new Set<string>([
  'next', 'last', 'this', 'coming', 'after-next', 'in', 'within', 'ago', 'from-now', 'past', 'to', 'half', 'quarter',
  'three-quarters', 'half-before', 'oclock', 'h', 'at', 'on', 'the', 'of', 'and', 'a', 'from', 'until', 'between', 'after',
  'before', 'end', 'start', 'mid', 'rest', 'eod', 'eve', 'now', 'by', 'every', 'day-of-month', 'filler',
]);

const units = new Set<string>(['second', 'minute', 'hour', 'day', 'week', 'fortnight', 'month', 'year', 'weekend']);
const parts = new Set<string>(['morning', 'midday', 'afternoon', 'evening', 'night']);

/**
 * Reads a lexicon's right-hand side: symbols separated by spaces, each `kind` or
 * `kind:value` ("rel:1", "weekday:5", "unit:hour", "next", "num:3 unit:hour"). Written as
 * text so a language's table reads like a phrasebook; a typo throws when the module loads,
 * which every test run does.
 */
export function parseSymbols(spec: string): Sym[] {
  return spec.split(' ').filter((part) => part !== '').map(parseSymbol);
}

function parseSymbol(spec: string): Sym {
  const colon = spec.indexOf(':');
  const kind = colon === -1 ? spec : spec.slice(0, colon);
  const value = colon === -1 ? '' : spec.slice(colon + 1);
  const number = Number(value);
  switch (kind) {
    case 'num':
      return { k: 'num', v: number, word: true };
    case 'vague':
      return { k: 'num', v: number, word: true, vague: true };
    case 'ord':
    case 'rel':
    case 'clock':
      if (value === '' || !Number.isFinite(number)) break;
      return { k: kind, v: number };
    case 'weekday':
      if (!Number.isInteger(number) || number < 1 || number > 7) break;
      return { k: 'weekday', v: number };
    case 'month':
      if (!Number.isInteger(number) || number < 1 || number > 12) break;
      return { k: 'month', v: number };
    case 'unit':
      if (!units.has(value)) break;
      return { k: 'unit', v: value as TimeUnit };
    case 'part':
      if (!parts.has(value)) break;
      return { k: 'part', v: value as PartOfDay };
    case 'ampm':
      if (value !== 'am' && value !== 'pm') break;
      return { k: 'ampm', v: value };
    case 'holiday':
      if (value === '') break;
      return { k: 'holiday', v: value };
    case 'ord-suffix':
      return { k: 'ord-suffix' };
    case 'tz':
      if (value === '') break;
      return { k: 'tz', v: Number.isFinite(number) ? number : value };
    default:
      if (colon === -1 && keywords.has(kind)) return { k: kind as Keyword };
  }
  throw new Error(`Unknown time symbol "${spec}" in a lexicon`);
}
