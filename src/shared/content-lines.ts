/**
 * vCard (RFC 6350 §3.2) and iCalendar (RFC 5545 §3.1) content lines, unfolded in one pass with
 * each one capped (issue 32): a line that starts with a space or a tab continues the one before.
 * A line longer than the cap keeps only its first `cap` characters and says it was cut, so a
 * 3 MB property costs its cap, never a copy of itself, and the reader decides what a cut line
 * means (refused, cut, or skipped when it is a property nobody reads, such as a PHOTO).
 */

/** The longest vCard or iCalendar content line Herald reads whole, unfolded, in characters. */
export const MAX_CONTENT_LINE_LENGTH = 10_000;

/** One unfolded content line. */
export interface ContentLine {
  /** Its first physical line's number, from 1. */
  number: number;
  /** The unfolded text, at most the cap. */
  text: string;
  /** True when the line was longer than the cap (`text` is its beginning). */
  cut: boolean;
}

/** Every content line of `text`, unfolded and capped at `cap` characters. A byte-order mark at the start is dropped. */
export function unfoldContentLines(text: string, cap = MAX_CONTENT_LINE_LENGTH): ContentLine[] {
  const physical = (text.startsWith('\uFEFF') ? text.slice(1) : text).split(/\r\n|\r|\n/);
  const lines: ContentLine[] = [];
  let parts: string[] = [];
  let length = 0;
  let current: ContentLine | undefined;
  const flush = () => {
    if (current) lines.push({ ...current, text: parts.join('') });
  };
  for (const [index, line] of physical.entries()) {
    const continues = current !== undefined && (line.startsWith(' ') || line.startsWith('\t'));
    if (!continues) {
      flush();
      current = { number: index + 1, text: '', cut: false };
      parts = [];
      length = 0;
    }
    const piece = continues ? line.slice(1) : line;
    if (current!.cut) continue;
    if (length + piece.length > cap) {
      parts.push(piece.slice(0, cap - length));
      length = cap;
      current!.cut = true;
    } else {
      parts.push(piece);
      length += piece.length;
    }
  }
  flush();
  return lines;
}
