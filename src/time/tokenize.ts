/**
 * Splits a phrase into words, numbers and punctuation, in one pass over its characters and
 * without regular expressions on the phrase itself: nothing here can take longer than the
 * phrase is long. Letters are folded (lower case, accents and vowel points dropped), so the
 * lexicons are written without them.
 */

/** One piece of a phrase. */
export type Token =
  | { kind: 'word'; text: string }
  | { kind: 'number'; text: string; value: number }
  | { kind: 'punct'; text: string };

/** Longest phrase read, in characters; the tools accept 200. */
export const MAX_PHRASE_LENGTH = 300;
/** Most tokens read from one phrase. */
const MAX_TOKENS = 80;

const apostrophes = new Set(["'", '’', '‘', '׳', '״', '"', '`', '´']);
const punctuation = new Set([':', '/', '.', '-', ',', '+', '(', ')', '–', '—', '!', '?', ';', '&', '@', '#', '%']);

/** Arabic-Indic and Persian digits as ASCII. */
function asciiDigit(char: string): string | undefined {
  const code = char.charCodeAt(0);
  if (code >= 0x30 && code <= 0x39) return char;
  if (code >= 0x660 && code <= 0x669) return String(code - 0x660);
  if (code >= 0x6f0 && code <= 0x6f9) return String(code - 0x6f0);
  return undefined;
}

function isLetter(char: string): boolean {
  return char.toLowerCase() !== char.toUpperCase() || /\p{L}/u.test(char);
}

/**
 * Folds text for matching: NFKD, combining marks dropped (é → e, niqqud and harakat gone),
 * lower case, and the letter variants that carry no meaning here unified (ё → е, Arabic
 * alef forms → ا, ta marbuta → ه, final alef maqsura → ي).
 */
function fold(text: string): string {
  let out = '';
  for (const char of text.normalize('NFKD')) {
    if (/\p{M}/u.test(char)) continue;
    switch (char) {
      case 'أ':
      case 'إ':
      case 'آ':
        out += 'ا';
        continue;
      case 'ة':
        out += 'ه';
        continue;
      case 'ى':
        out += 'ي';
        continue;
      case 'ـ': // tatweel
        continue;
      default:
        out += char.toLowerCase();
    }
  }
  return out.replace(/ё/g, 'е').replace(/ß/g, 'ss');
}

/**
 * The tokens of `phrase` (already length-checked by the caller). A word is a run of letters;
 * an apostrophe or gershayim between letters stays inside it and is dropped ("o'clock" →
 * "oclock", "סופ״ש" → "סופש"). A number is a run of digits. Letters and digits written
 * together are split ("5pm", "15h30", "3rd", "ב5").
 */
export function tokenize(phrase: string): Token[] {
  const text = fold(phrase);
  const tokens: Token[] = [];
  let index = 0;
  const chars = Array.from(text);
  while (index < chars.length && tokens.length <= MAX_TOKENS) {
    const char = chars[index] ?? '';
    const digit = asciiDigit(char);
    if (digit !== undefined) {
      let digits = '';
      while (index < chars.length) {
        const next = asciiDigit(chars[index] ?? '');
        if (next === undefined) break;
        digits += next;
        index += 1;
      }
      tokens.push({ kind: 'number', text: digits, value: Number(digits) });
      continue;
    }
    if (isLetter(char)) {
      let word = '';
      while (index < chars.length) {
        const current = chars[index] ?? '';
        if (isLetter(current)) {
          word += current;
          index += 1;
        } else if (apostrophes.has(current) && word !== '' && isLetter(chars[index + 1] ?? '')) {
          index += 1;
        } else {
          break;
        }
      }
      tokens.push({ kind: 'word', text: word });
      continue;
    }
    if (punctuation.has(char)) tokens.push({ kind: 'punct', text: char === '–' || char === '—' ? '-' : char });
    // Anything else (spaces, quotes, emoji) separates tokens and is dropped.
    index += 1;
  }
  return tokens;
}
