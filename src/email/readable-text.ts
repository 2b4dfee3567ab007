import { convert, type SelectorDefinition } from 'html-to-text';

/** The longest message text handed to the model; longer ones are cut at a word and flagged `truncated`. */
export const MAX_TEXT_CHARS = 4000;

/** The longest snippet in a search result. */
export const MAX_SNIPPET_CHARS = 160;

// Text a person reading the mail cannot see is skipped: hidden text is a favourite place for
// instructions aimed at an assistant. Styles are normalised (no spaces, lower case) first,
// so "DISPLAY : none" is caught by the same selector as "display:none".
const hiddenSelectors = [
  '[hidden]',
  '[aria-hidden="true"]',
  '[style*="display:none"]',
  '[style*="visibility:hidden"]',
  '[style*="mso-hide:all"]',
  '[style*="font-size:0;"]',
  '[style*="font-size:0px"]',
  '[style*="font-size:0pt"]',
  '[style*="font-size:0em"]',
  '[style$="font-size:0"]',
  '[style*="opacity:0;"]',
  '[style$="opacity:0"]',
  '[style*="max-height:0"]',
  '[style*="width:0;"]',
  '[style*="height:0;"]',
];

const selectors: SelectorDefinition[] = [
  ...hiddenSelectors.map((selector) => ({ selector, format: 'skip' })),
  { selector: 'head', format: 'skip' },
  { selector: 'script', format: 'skip' },
  { selector: 'style', format: 'skip' },
  { selector: 'template', format: 'skip' },
  { selector: 'img', format: 'skip' },
  // Quoted history, as Gmail, Apple Mail, Outlook and Thunderbird mark it.
  { selector: 'blockquote', format: 'skip' },
  { selector: '.gmail_quote', format: 'skip' },
  { selector: '#divRplyFwdMsg', format: 'skip' },
  { selector: '#appendonsend', format: 'skip' },
  { selector: '.moz-cite-prefix', format: 'skip' },
  { selector: 'a', options: { ignoreHref: true } },
  { selector: 'h1', options: { uppercase: false } },
  { selector: 'h2', options: { uppercase: false } },
  { selector: 'h3', options: { uppercase: false } },
  { selector: 'table', format: 'block' },
  { selector: 'tr', format: 'block' },
  { selector: 'td', format: 'inline' },
  { selector: 'th', format: 'inline' },
];

/** An HTML body as the plain text a person would read: hidden elements, images and quoted history left out. */
export function htmlToText(html: string): string {
  const normalised = html.replace(/\bstyle\s*=\s*(["'])([\s\S]*?)\1/gi, (_match, quote: string, style: string) => `style=${quote}${style.replace(/\s+/g, '').toLowerCase()}${quote}`);
  return convert(normalised, { wordwrap: false, selectors, limits: { maxInputLength: 2_000_000 } });
}

// A line that starts the quoted history of a reply: "On Mon, 3 Mar 2025, Dana <d@x> wrote:" (also
// wrapped onto two lines), Outlook's "-----Original Message-----" or its "From: … Sent: …" block,
// and the common translations.
const quoteHeaders = [
  /^On\b[^\n]{0,200}(\n[^\n]{0,200})?\bwrote:\s*$/m,
  /^-{2,}\s*Original Message\s*-{2,}\s*$/im,
  /^-{2,}\s*Forwarded message\s*-{2,}\s*$/im,
  /^_{10,}\s*\nFrom:/m,
  /^From:[^\n]*\n(?:[^\n]*\n)?Sent:/m,
  /^Le\b[^\n]{0,200}a écrit\s*:\s*$/m,
  /^Am\b[^\n]{0,200}schrieb[^\n]{0,100}:\s*$/m,
  /^El\b[^\n]{0,200}escribió:\s*$/m,
];

/**
 * The new part of a message: everything from the first quoted-history header on is cut, and
 * so are trailing "> " lines. When that would leave nothing, the text is kept as it was.
 */
export function trimQuotedHistory(text: string): string {
  const normalised = text.replace(/\r\n?/g, '\n');
  let end = normalised.length;
  for (const header of quoteHeaders) {
    const found = header.exec(normalised);
    if (found && found.index < end) end = found.index;
  }
  const lines = normalised.slice(0, end).split('\n');
  while (lines.length > 0 && (/^\s*>/.test(lines.at(-1)!) || lines.at(-1)!.trim() === '')) lines.pop();
  const trimmed = lines.join('\n').trim();
  return trimmed.length > 0 ? trimmed : normalised.trim();
}

/** Text cut to `max` characters at a word boundary; `truncated` says whether anything was cut. */
export function capText(text: string, max = MAX_TEXT_CHARS): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const cut = text.slice(0, max);
  const boundary = cut.search(/\s\S*$/);
  return { text: `${(boundary > max * 0.8 ? cut.slice(0, boundary) : cut).trimEnd()}…`, truncated: true };
}

/**
 * A message's readable text from its plain and HTML bodies: the HTML converted when there is
 * one (it is what the person sees in their mail app; a plain alternative can say something
 * else entirely), else the plain text; quoted history trimmed; blank runs collapsed; capped.
 */
export function readableText(bodies: { text?: string | undefined; html?: string | undefined }, max = MAX_TEXT_CHARS): { text: string; truncated: boolean } {
  const plain = bodies.html?.trim() ? htmlToText(bodies.html) : (bodies.text ?? '');
  const tidy = trimQuotedHistory(plain)
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n');
  return capText(tidy, max);
}

/** A one-line preview: whitespace collapsed, at most {@link MAX_SNIPPET_CHARS}. */
export function snippetOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return capText(line, MAX_SNIPPET_CHARS).text;
}
