/** The most words of one phrasing that are searched: a pasted paragraph is not a query. */
const MAX_WORDS = 24;

/**
 * The words of a search phrasing, lower-cased, in order, without repeats: letters and
 * digits (any script), so punctuation and operators in what the model wrote can never
 * become query syntax. Empty for a phrasing with nothing to search for ("?", "   ").
 */
export function queryWords(phrasing: string): string[] {
  const words = phrasing.normalize('NFKC').toLowerCase().match(/[\p{L}\p{M}\p{N}]+(?:['’]\p{L}+)?/gu) ?? [];
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
  return searchable(words).map(term).join(' | ');
}

/**
 * The same words, all required ("meeting & avi & tuesday":*): the documents holding every
 * word are ranked first, whatever the number of documents holding one of them.
 */
export function allWordsQuery(words: string[]): string {
  return searchable(words).map(term).join(' & ');
}

/** A to_tsquery expression matching any of `words` whole (words found in the user's vocabulary, not typed). */
export function exactWordsQuery(words: string[]): string {
  return searchable(words).map(quoted).join(' | ');
}

function searchable(words: string[]): string[] {
  return words.filter((word) => word.length > 1 || /\p{N}/u.test(word));
}

/** A quoted word, the longer ones also as a prefix. */
function term(word: string): string {
  return `${quoted(word)}${word.length >= MIN_PREFIX_LENGTH ? ':*' : ''}`;
}

function quoted(word: string): string {
  return `'${word.replaceAll("'", "''").replaceAll('\\', '\\\\')}'`;
}
