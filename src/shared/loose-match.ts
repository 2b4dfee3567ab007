import { distance } from 'fastest-levenshtein';

/**
 * Whether every one of `words` is a typo away from some word of `text` ("dentsit" and
 * "Dentist"): one edit for short words, two for longer ones, and never for words under
 * four letters (too many short words are one edit apart). For "Did you mean …?" when
 * nothing matches exactly; both sides already normalized (lower case, no punctuation).
 */
export function looselyMatches(text: string, words: string[]): boolean {
  const candidates = text.split(' ').filter((word) => word.length > 0);
  return (
    words.length > 0 &&
    words.every((word) => {
      if (word.length < 4) return candidates.includes(word);
      const allowed = word.length <= 6 ? 1 : 2;
      return candidates.some((candidate) => Math.abs(candidate.length - word.length) <= allowed && distance(candidate, word) <= allowed);
    })
  );
}
