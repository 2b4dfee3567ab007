/**
 * The beginning of a long answer that fits in one message: the longest prefix that ends at
 * a sentence boundary (a paragraph or line end, or a sentence's final punctuation followed
 * by a space), or failing that at a space, and that `fits`. A cut is never inside a word, a
 * URL (URLs hold no spaces), an emoji or a combining sequence (every cut is checked against
 * grapheme boundaries). Returns '' when not even the first word fits (a lone 2,000-character
 * URL): the caller then sends the link alone.
 */

/** Sentence ends followed by whitespace: Latin, Hebrew sof pasuq, Arabic, Devanagari; then closing quotes or brackets. */
// A run of ends is tried from its first character only (the lookbehind): one try per run.
const SENTENCE_END = /(?<![.!?…‼⁇⁈⁉\u05C3\u06D4\u061F\u0964\u0965])[.!?…‼⁇⁈⁉\u05C3\u06D4\u061F\u0964\u0965]+["'”’»)\]}]*(?=\s)/g;
/** CJK and full-width sentence ends, which take no space after them. */
const UNSPACED_SENTENCE_END = /[。｡！？．]+[」』”’）】〕〉》]*/g;
/** Line ends (paragraph ends and list items included). */
const LINE_END = /\S(?=[^\S\n]*\n)/g;
const SPACE = /\S(?=\s)/g;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * @param text The whole answer (Markdown).
 * @param fits Whether a lead (trimmed, as it would be sent before the link) fits one message.
 * @param scanLimit Only prefixes up to this many UTF-16 units are considered (a message is far shorter).
 */
export function leadThatFits(text: string, fits: (lead: string) => boolean, scanLimit = 8_000): string {
  const window = text.slice(0, scanLimit + 1);
  const onGrapheme = graphemeBoundaries(window);
  const ends = (pattern: RegExp, offset: number) =>
    [...window.matchAll(pattern)].map((match) => match.index + match[0].length + offset).filter((end) => end <= scanLimit && onGrapheme.has(end));
  const sentences = unique([...ends(SENTENCE_END, 0), ...ends(UNSPACED_SENTENCE_END, 0), ...ends(LINE_END, 0)]);
  const best = longestFitting(window, sentences, fits);
  if (best) return best;
  return longestFitting(window, unique(ends(SPACE, 0)), fits);
}

/** The longest prefix ending at one of `cuts` that fits, by binary search (fitting shrinks with length). */
function longestFitting(text: string, cuts: number[], fits: (lead: string) => boolean): string {
  let low = 0;
  let high = cuts.length - 1;
  let found = '';
  while (low <= high) {
    const middle = (low + high) >> 1;
    const lead = text.slice(0, cuts[middle]).trim();
    if (lead && fits(lead)) {
      found = lead;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

function graphemeBoundaries(text: string): Set<number> {
  const boundaries = new Set<number>();
  for (const { index, segment } of graphemes.segment(text)) boundaries.add(index + segment.length);
  return boundaries;
}

function unique(values: number[]): number[] {
  return [...new Set(values)].sort((a, b) => a - b);
}
