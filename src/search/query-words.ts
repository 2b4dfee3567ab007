/** The most words of one phrasing that are searched: a pasted paragraph is not a query. */
const MAX_WORDS = 24;

/**
 * The words of a search phrasing, lower-cased, in order, without repeats: letters and
 * digits (any script), so punctuation and operators in what the model wrote can never
 * become query syntax. Empty for a phrasing with nothing to search for ("?", "   ").
 */
export function queryWords(phrasing: string): string[] {
  const words = phrasing.normalize('NFKC').toLowerCase().match(/[\p{L}\p{M}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
  const unique: string[] = [];
  for (const word of words) {
    const plain = word.replace(/['’]/g, '');
    if (plain.length === 0 || unique.includes(plain)) continue;
    unique.push(plain);
    if (unique.length === MAX_WORDS) break;
  }
  return unique;
}

/** Words shorter than this match whole only: "is" as a prefix would find every "island". */
const MIN_PREFIX_LENGTH = 4;

/**
 * A to_tsquery expression matching any of `words`, the longer ones also as a prefix
 * ("restaur" finds "restaurant"). Every word is quoted, so nothing in it is read as an
 * operator. Empty when no word is left (single letters are skipped).
 */
export function anyWordQuery(words: string[]): string {
  return words
    .filter((word) => word.length > 1 || /\p{N}/u.test(word))
    .map((word) => `'${word.replaceAll("'", "''").replaceAll('\\', '\\\\')}'${word.length >= MIN_PREFIX_LENGTH ? ':*' : ''}`)
    .join(' | ');
}
