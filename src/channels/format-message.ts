/**
 * Turns the model's Markdown into what each channel can show.
 *
 * WhatsApp has its own light markup: `*bold*`, `_italic_`, `~strike~`, ```` ```mono``` ````,
 * `- ` and `1.` lists and `> ` quotes. SMS shows plain text, so markup is removed and only
 * the words (and list dashes) remain. Neither renders tables, so table rows become lines.
 *
 * The conversion is deliberately conservative: emphasis markers only count at word
 * boundaries, so `2*3*4`, snake_case_words and file_names.txt survive, and URLs and email
 * addresses are set aside before any markers are looked at.
 */
import type { ChannelName } from './phone-number.js';
import { trimEndOf, trimStartOf } from '../shared/text-ends.js';

// Private-use characters stand in for protected text and emphasis while the text is being
// rewritten, so later rules can't re-read earlier output. Models never produce them; any
// in the input are dropped so they can't be mistaken for ours.
const TOKEN_START = '\uE000';
const TOKEN_END = '\uE001';
const BOLD = '\uE002';
const ITALIC = '\uE003';
const STRIKE = '\uE004';
const RESERVED = /[\uE000-\uE004]/g;
const TOKEN = /\uE000(\d+)\uE001/g;

const MARKERS: Record<ChannelName, Record<string, string>> = {
  whatsapp: { [BOLD]: '*', [ITALIC]: '_', [STRIKE]: '~' },
  sms: { [BOLD]: '', [ITALIC]: '', [STRIKE]: '' },
  // RCS text messages render no markup (and fall back to SMS): plain, like SMS.
  rcs: { [BOLD]: '', [ITALIC]: '', [STRIKE]: '' },
};

// A backtick fence's info string can't contain backticks, so "```x```" on one line is
// inline code, not the start of a block that would swallow the rest of the reply.
const CODE_FENCE = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})/;
const HORIZONTAL_RULE = /^ {0,3}([-*_])[ \t]*(?:\1[ \t]*){2,}$/;
// Each line rule is written so no two of its parts can take the same characters: a model's
// reply of any length is read in one pass (issue 32).
const HEADING_OPEN = /^ {0,3}#{1,6}(?=[ \t]|$)/;
const QUOTE_OPEN = /^ {0,3}>/;
const BULLET = /^([ \t]*)[*+-][ \t]+(\S.*)?$/;
const ORDERED_ITEM = /^([ \t]*)(\d{1,9}[.)])[ \t]+(\S.*)?$/;
/** A table's separator row once its spaces and tabs are taken out: `|:--|--:|`. */
const TABLE_SEPARATOR_CELLS = /^\|?:?-+:?(?:\|:?-+:?)*\|?$/;
const PIPED_ROW = /^[ \t]*\|.*\|[ \t]*$/;

// A link or image destination: no spaces, at most one level of balanced parentheses
// (Wikipedia-style `Foo_(bar)`), optionally in angle brackets and followed by a title.
const DESTINATION = String.raw`\(\s*<?((?:[^()\s<>]|\([^()\s]*\))+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`;
const CODE_SPAN = /(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)/g;
// CommonMark's escapable characters: ASCII punctuation.
const ESCAPE = /\\([!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~])/g;
const IMAGE = new RegExp(String.raw`!\[([^\]]*)\]` + DESTINATION, 'g');
// A label holds text and at most one level of brackets; it starts at a "[" no other "[" precedes,
// so a run of "[[[[" is tried once, not once per bracket.
const LINK = new RegExp(String.raw`(?<!\[)\[((?:[^[\]]|\[[^[\]]*\])*)\]` + DESTINATION, 'g');
const AUTOLINK = /<((?:https?:\/\/|mailto:)[^\s<>]+|[^\s@<>]+@[^\s@<>.]+(?:\.[^\s@<>.]+)+)>/gi;
const BARE_URL = /\b(?:https?:\/\/|www\.)[^\s<>]+/gi;
// Starts where the address's first character is not preceded by another: one try per address.
const EMAIL = /(?<![\p{L}\p{N}_.%+-])[\p{L}\p{N}_.%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;

/**
 * Emphasis rules, strongest first. A marker opens only when not preceded by a letter,
 * digit or the same marker, and closes only when not followed by one (nor by ".ext", as
 * in `__init__.py`); the text inside must not start or end with a space.
 */
function emphasis(marker: string, count: number): RegExp {
  const escaped = marker === '*' ? String.raw`\*` : marker;
  const run = escaped.repeat(count);
  return new RegExp(
    String.raw`(?<![\p{L}\p{N}${escaped}\\])${run}(?![\s${escaped}])(.+?)(?<![\s${escaped}])${run}(?![\p{L}\p{N}${escaped}]|\.[\p{L}\p{N}])`,
    'gu',
  );
}
const EMPHASIS_RULES: Array<{ pattern: RegExp; open: string; close: string }> = [
  { pattern: emphasis('*', 3), open: BOLD + ITALIC, close: ITALIC + BOLD },
  { pattern: emphasis('_', 3), open: BOLD + ITALIC, close: ITALIC + BOLD },
  { pattern: emphasis('*', 2), open: BOLD, close: BOLD },
  { pattern: emphasis('_', 2), open: BOLD, close: BOLD },
  { pattern: emphasis('~', 2), open: STRIKE, close: STRIKE },
  { pattern: emphasis('*', 1), open: ITALIC, close: ITALIC },
  { pattern: emphasis('_', 1), open: ITALIC, close: ITALIC },
];

/** Text set aside while markup is rewritten, restored at the end. */
class ProtectedText {
  private readonly values: string[] = [];

  /** Sets `value` aside and returns the placeholder that stands for it. */
  protect(value: string): string {
    this.values.push(value);
    return `${TOKEN_START}${this.values.length - 1}${TOKEN_END}`;
  }

  /** Puts every set-aside value back, including ones nested inside others. */
  restore(text: string): string {
    let current = text;
    let previous: string;
    do {
      previous = current;
      current = current.replace(TOKEN, (_token, index: string) => this.values[Number(index)] ?? '');
    } while (current !== previous);
    return current;
  }
}

/**
 * Converts Markdown to the markup a channel shows.
 *
 * @param markdown The model's reply.
 * @param channel `whatsapp` for WhatsApp's own markup, `sms` for plain text.
 * @returns The converted, trimmed text.
 */
export function formatForChannel(markdown: string, channel: ChannelName): string {
  const lines = markdown.replace(RESERVED, '').replace(/\r\n?/g, '\n').split('\n');
  const saved = new ProtectedText();
  const output: string[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? '';
    const fence = CODE_FENCE.exec(line);
    if (fence?.[1] !== undefined) {
      const closing = new RegExp(String.raw`^ {0,3}${fence[1][0]}{${fence[1].length},}[ \t]*$`);
      const code: string[] = [];
      index += 1;
      while (index < lines.length && !closing.test(lines[index] ?? '')) code.push(lines[index++] ?? '');
      index += 1; // the closing fence; an unclosed block runs to the end, as in CommonMark
      output.push(formatCodeBlock(code, channel, saved));
      continue;
    }
    if (isTableStart(lines, index)) {
      while (index < lines.length && isTableRow(lines[index] ?? '')) {
        const row = lines[index++] ?? '';
        if (!isTableSeparator(row)) output.push(formatTableRow(row, channel, saved));
      }
      continue;
    }
    output.push(formatLine(line, channel, saved));
    index += 1;
  }
  let text = saved.restore(output.join('\n'));
  for (const [marker, replacement] of Object.entries(MARKERS[channel])) text = text.replaceAll(marker, replacement);
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A fenced code block: WhatsApp's monospace block, or the bare code for SMS. */
function formatCodeBlock(code: string[], channel: ChannelName, saved: ProtectedText): string {
  const content = trimStartOf(code.join('\n'), '\n').trimEnd();
  if (content === '') return '';
  return saved.protect(channel === 'whatsapp' ? `\`\`\`${content}\`\`\`` : content);
}

/** One line outside code blocks and tables. */
function formatLine(line: string, channel: ChannelName, saved: ProtectedText): string {
  if (HORIZONTAL_RULE.test(line)) return '';
  const heading = headingText(line);
  if (heading !== undefined) {
    const title = saved.restore(formatInline(heading, channel, saved));
    // Emphasis inside a bold heading would close the bold early, so only the heading's own stays.
    return channel === 'whatsapp' && title !== '' ? `${BOLD}${title.replaceAll(BOLD, '')}${BOLD}` : title;
  }
  const quote = quotedText(line);
  if (quote !== undefined) {
    const content = formatLine(quote, channel, saved);
    return content === '' ? '' : `> ${content}`;
  }
  const bullet = BULLET.exec(line);
  if (bullet !== null) return `${bullet[1] ?? ''}- ${formatInline(bullet[2] ?? '', channel, saved)}`;
  const ordered = ORDERED_ITEM.exec(line);
  if (ordered !== null) {
    return `${ordered[1] ?? ''}${ordered[2] ?? ''} ${formatInline(ordered[3] ?? '', channel, saved)}`;
  }
  return formatInline(line.trim(), channel, saved);
}

/** Whether a table begins here: a piped row, or a header row over a separator row. */
function isTableStart(lines: string[], index: number): boolean {
  const line = lines[index] ?? '';
  const next = lines[index + 1] ?? '';
  if (PIPED_ROW.test(line) && line.split('|').length > 2) return true;
  return line.includes('|') && next.includes('|') && isTableSeparator(next);
}

/** A heading's text ("## Plan ##" → "Plan"), or undefined when the line is not a heading. */
function headingText(line: string): string | undefined {
  const open = HEADING_OPEN.exec(line);
  if (!open) return undefined;
  const text = line.slice(open[0].length).trim();
  // An optional closing run of "#" after a space ("## Plan ##").
  const closed = trimEndOf(text, '#');
  if (closed === '' || closed.endsWith(' ') || closed.endsWith('\t')) return closed.trimEnd();
  return text;
}

/** A block quote's text, its ">" markers (and one space after each) taken off; undefined when not quoted. */
function quotedText(line: string): string | undefined {
  if (!QUOTE_OPEN.test(line)) return undefined;
  let rest = trimStartOf(line, ' ');
  while (rest.startsWith('>')) {
    rest = rest.slice(1);
    if (rest.startsWith(' ') || rest.startsWith('\t')) rest = rest.slice(1);
  }
  return rest;
}

/** A table's separator row ("| --- | :--: |"). */
function isTableSeparator(line: string): boolean {
  const cells = line.replaceAll(' ', '').replaceAll('\t', '');
  return cells.includes('-') && TABLE_SEPARATOR_CELLS.test(cells);
}

/** Whether a line continues a table. */
function isTableRow(line: string): boolean {
  return line.trim() !== '' && line.includes('|');
}

/** A table row as its non-empty cells joined by dashes: `| a | b |` becomes `a — b`. */
function formatTableRow(row: string, channel: ChannelName, saved: ProtectedText): string {
  const cells = row
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replaceAll('\\|', '|'))
    .filter((cell) => cell !== '');
  return cells.map((cell) => formatInline(cell, channel, saved)).join(' — ');
}

/**
 * Inline markup in one line. Code, escapes, images, links, URLs and email addresses are
 * set aside first (in that order, so each is safe from the rules after it), then emphasis
 * is rewritten into channel-neutral markers.
 */
function formatInline(text: string, channel: ChannelName, saved: ProtectedText): string {
  return EMPHASIS_RULES.reduce(
    (current, { pattern, open, close }) => current.replace(pattern, (_match, inner: string) => open + inner + close),
    text
      .replace(CODE_SPAN, (_match, _ticks, code: string) =>
        saved.protect(channel === 'whatsapp' ? `\`\`\`${code.trim()}\`\`\`` : code.trim()),
      )
      .replace(ESCAPE, (_match, character: string) => saved.protect(character))
      .replace(IMAGE, (_match, alt: string, url: string) =>
        saved.protect(alt.trim() === '' ? url : `${formatInline(alt.trim(), channel, saved)}: ${url}`),
      )
      .replace(LINK, (_match, label: string, url: string) => saved.protect(formatLink(label, url, channel, saved)))
      .replace(AUTOLINK, (_match, url: string) => saved.protect(url.replace(/^mailto:/i, '')))
      .replace(BARE_URL, (match) => protectUrl(match, saved))
      .replace(EMAIL, (match) => saved.protect(match)),
  );
}

/** `text (url)`, or just the URL when the text already says it. */
function formatLink(label: string, url: string, channel: ChannelName, saved: ProtectedText): string {
  const shown = url.replace(/^mailto:/i, '');
  const plainLabel = saved.restore(label).trim();
  if (plainLabel === '' || comparableUrl(plainLabel) === comparableUrl(shown)) return shown;
  return `${formatInline(label.trim(), channel, saved)} (${shown})`;
}

/** A URL without scheme, trailing slash or case, for comparing a link's text to its target. */
function comparableUrl(url: string): string {
  return trimEndOf(url.replace(/^(?:https?:\/\/|mailto:)/i, ''), '/').toLowerCase();
}

/**
 * Sets a bare URL aside, leaving out trailing characters that end the sentence or the
 * emphasis around it rather than the URL: punctuation, emphasis markers, and closing
 * brackets that have no opening partner inside the URL.
 */
function protectUrl(candidate: string, saved: ProtectedText): string {
  let url = candidate;
  for (;;) {
    const last = url.at(-1) ?? '';
    const unbalanced =
      (last === ')' && count(url, '(') < count(url, ')')) || (last === ']' && count(url, '[') < count(url, ']'));
    if (!unbalanced && !/[.,;:!?'"*_~]/.test(last)) break;
    url = url.slice(0, -1);
  }
  return saved.protect(url) + candidate.slice(url.length);
}

/** How many times `character` occurs in `text`. */
function count(text: string, character: string): number {
  return text.split(character).length - 1;
}
