/**
 * Splits long replies into parts Twilio accepts.
 *
 * Twilio rejects message bodies longer than 1600 characters, so a long reply goes out as
 * several messages, in order. Length is measured in JavaScript string length (UTF-16 code
 * units). Twilio counts characters, which for almost all text is the same number; where
 * they differ (emoji and other characters outside the Basic Multilingual Plane take two
 * code units but are one character) code units over-count, so a part that fits here
 * always fits there.
 */

/** Twilio's limit on the length of one message body. */
export const TWILIO_MAX_BODY_LENGTH = 1600;

/**
 * A boundary is only taken if it fills at least this share of a part; otherwise a weaker
 * but later boundary is preferred, so a newline near the start doesn't leave a tiny part.
 */
const MINIMUM_FILL = 0.5;

/**
 * Grapheme boundaries up to the limit depend only on the text up to just past it, so
 * segmenting a short overhang (enough to finish a surrogate pair) is exact and avoids
 * re-segmenting the whole rest of a long text for every part.
 */
const GRAPHEME_OVERHANG = 32;

/** Whitespace a line may break at: everything `\s` matches except the no-break spaces. */
const BREAKABLE_SPACE = /[^\S\u00A0\u2007\u202F]+/g;

/** One or more blank lines between paragraphs (CRLF too: "\r\n" is one grapheme). */
const PARAGRAPH_BREAK = /\r?\n[^\S\n]*\n/g;

/** A single line break. */
const LINE_BREAK = /\r?\n/g;

/**
 * Sentence ends that need a space after them: Latin . ! ? … (and the double forms),
 * Hebrew sof pasuq, Arabic full stop and question mark, Devanagari danda; possibly
 * repeated ("?!", "...") and followed by closing quotes or brackets.
 */
const SPACED_SENTENCE_END =
  // A run of ends is tried from its first character only (the lookbehind): one try per run.
  /(?<![.!?…‼⁇⁈⁉\u05C3\u06D4\u061F\u0964\u0965])[.!?…‼⁇⁈⁉\u05C3\u06D4\u061F\u0964\u0965]+["'”’»)\]}]*(?=[^\S\u00A0\u2007\u202F])/g;

/** CJK and full-width sentence ends, which are not followed by a space. */
const UNSPACED_SENTENCE_END = /[。｡！？．]+[」』”’）】〕〉》]*/g;

const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Splits a message body into parts of at most `maxLength` UTF-16 code units, in order.
 *
 * Each part ends at the best boundary that fits: a blank line, then a line break, then a
 * sentence end, then any breakable whitespace; text with no such boundary (a very long
 * URL) is cut hard, but never inside a grapheme, so emoji sequences and flags stay whole.
 * Parts are trimmed and never empty; joining them with whitespace gives back every word
 * in order. An empty or whitespace-only body gives no parts.
 *
 * @param body The reply to send.
 * @param maxLength The longest part allowed; at least 2, so any single character fits.
 * @returns The parts to send, in order.
 */
export function splitMessage(body: string, maxLength: number = TWILIO_MAX_BODY_LENGTH): string[] {
  if (!Number.isInteger(maxLength) || maxLength < 2) {
    throw new RangeError(`maxLength must be an integer of at least 2, got ${maxLength}`);
  }
  const parts: string[] = [];
  let remaining = trimGraphemes(body);
  while (remaining.length > maxLength) {
    const cut = findCut(remaining, maxLength);
    parts.push(remaining.slice(0, cut).trimEnd());
    remaining = trimGraphemes(remaining.slice(cut));
  }
  if (remaining.length > 0) parts.push(remaining);
  return parts;
}

/**
 * Where to end the next part of `text` (which is longer than `maxLength` and starts with
 * a non-space): an index in (0, maxLength] that lies on a grapheme boundary.
 */
function findCut(text: string, maxLength: number): number {
  const boundaries = graphemeBoundaries(text, maxLength);
  // One character past the limit, so whitespace right after a part that fills the limit
  // exactly still counts as a boundary.
  const window = text.slice(0, maxLength + 1);
  const candidatesByPreference = [
    lastMatchStart(window, PARAGRAPH_BREAK, boundaries),
    lastMatchStart(window, LINE_BREAK, boundaries),
    Math.max(
      lastMatchEnd(window, SPACED_SENTENCE_END, boundaries, maxLength),
      lastMatchEnd(window, UNSPACED_SENTENCE_END, boundaries, maxLength),
    ),
    lastMatchStart(window, BREAKABLE_SPACE, boundaries),
  ];
  const wellFilled = candidatesByPreference.find((cut) => cut >= maxLength * MINIMUM_FILL);
  if (wellFilled !== undefined) return wellFilled;
  const latestSoft = Math.max(...candidatesByPreference);
  if (latestSoft > 0) return latestSoft;
  return hardCut(text, maxLength, boundaries);
}

/** The last grapheme boundary that fits, or a code point boundary if one grapheme is too long. */
function hardCut(text: string, maxLength: number, boundaries: Set<number>): number {
  const fitting = Math.max(...boundaries);
  if (fitting > 0) return fitting;
  // A single grapheme longer than the limit (a pile of combining marks) has to be broken;
  // still never break a surrogate pair.
  const lastUnit = text.charCodeAt(maxLength - 1);
  const isHighSurrogate = lastUnit >= 0xd800 && lastUnit <= 0xdbff;
  return isHighSurrogate ? maxLength - 1 : maxLength;
}

/** Every grapheme boundary in `text` from 0 up to `maxLength` inclusive. */
function graphemeBoundaries(text: string, maxLength: number): Set<number> {
  const boundaries = new Set<number>([0]);
  const overhang = text.slice(0, maxLength + GRAPHEME_OVERHANG);
  for (const { index, segment } of graphemeSegmenter.segment(overhang)) {
    const end = index + segment.length;
    if (end > maxLength) break;
    boundaries.add(end);
  }
  return boundaries;
}

/** The start of the last match that sits on a grapheme boundary after the text's start, or 0. */
function lastMatchStart(window: string, pattern: RegExp, boundaries: Set<number>): number {
  let best = 0;
  for (const match of window.matchAll(pattern)) {
    if (match.index > 0 && boundaries.has(match.index)) best = match.index;
  }
  return best;
}

/** The end of the last match that fits and sits on a grapheme boundary, or 0. */
function lastMatchEnd(window: string, pattern: RegExp, boundaries: Set<number>, maxLength: number): number {
  let best = 0;
  for (const match of window.matchAll(pattern)) {
    const end = match.index + match[0].length;
    if (end <= maxLength && boundaries.has(end)) best = end;
  }
  return best;
}

/**
 * Trims whitespace without orphaning a combining mark: a space followed by a combining
 * mark is one grapheme, so leading space is only dropped a whole grapheme at a time.
 * (Trailing whitespace can never be part of an earlier grapheme, so `trimEnd` is safe.)
 */
function trimGraphemes(text: string): string {
  const trimmed = text.trimEnd();
  const leading = trimmed.length - trimmed.trimStart().length;
  if (leading === 0) return trimmed;
  const head = trimmed.slice(0, leading + GRAPHEME_OVERHANG);
  for (const { index, segment } of graphemeSegmenter.segment(head)) {
    if (segment.trim().length > 0) return trimmed.slice(index);
  }
  return '';
}
