import { convert } from 'html-to-text';
import { hiddenByStylesheet, visibilityFormatter } from './html-visibility.js';
import { trimEndOf } from '../shared/text-ends.js';

/** The most characters of a mail's text the tools ever hand on (the rest is cut, and said so). */
export const MAIL_TEXT_CAP = 4000;
/** A search result's snippet. */
const SNIPPET_LENGTH = 160;

/** HTML as the text a person sees (src/email/html-visibility.ts): hidden elements, scripts, styles, images and quoted replies left out, links as their words. */
export function htmlToReadableText(html: string): string {
  return convert(html, {
    wordwrap: false,
    formatters: { visibleOnly: visibilityFormatter(html) },
    selectors: [
      ...hiddenByStylesheet(html).map((selector) => ({ selector, format: 'skip' })),
      { selector: '[style]', format: 'visibleOnly' },
      { selector: '[bgcolor]', format: 'visibleOnly' },
      { selector: 'font[color]', format: 'visibleOnly' },
      { selector: '[hidden]', format: 'skip' },
      { selector: 'head', format: 'skip' },
      { selector: 'script', format: 'skip' },
      { selector: 'style', format: 'skip' },
      { selector: 'template', format: 'skip' },
      { selector: 'img', format: 'skip' },
      // Quoted history in replies (Gmail, Apple Mail, Outlook): the new text is what matters.
      { selector: 'blockquote[type=cite]', format: 'skip' },
      { selector: 'div.gmail_quote', format: 'skip' },
      { selector: 'div#appendonsend', format: 'skip' },
      { selector: 'div#divRplyFwdMsg', format: 'skip' },
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'h1', options: { uppercase: false } },
      { selector: 'h2', options: { uppercase: false } },
      { selector: 'h3', options: { uppercase: false } },
      { selector: 'table', format: 'block' },
      { selector: 'tr', format: 'block' },
      { selector: 'td', format: 'inline' },
      { selector: 'th', format: 'inline' },
    ],
    limits: { maxInputLength: 2_000_000, maxDepth: 100 },
  });
}

/**
 * Plain text without the history a reply quotes: everything from an attribution line
 * ("On Tue, Dana wrote:", "-----Original Message-----", an Outlook "From: … Sent: …" block)
 * on, and any other "> " lines.
 */
export function trimQuotedHistory(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    const next = lines.slice(index + 1, index + 3).join(' ');
    if (/^\s*-{2,}\s*(?:Original Message|Forwarded message)\s*-{2,}\s*$/i.test(line)) break;
    if (/^\s*On\b.{1,200}\bwrote:\s*$/i.test(line) && (next.trim() === '' || /^\s*>/.test(lines[index + 1] ?? '') || /^\s*>/.test(lines[index + 2] ?? ''))) break;
    // "On Tue, 3 Mar 2026 at 09:00, Dana Levi <dana@example.com>" + "wrote:" on the next line.
    if (/^\s*On\b.{0,200}$/i.test(line) && /^\s*.{0,80}wrote:\s*$/i.test(lines[index + 1] ?? '') && /^\s*>/.test(lines[index + 2] ?? '')) break;
    if (/^\s*From:\s.+/i.test(line) && /^\s*(?:Sent|Date):\s/i.test(lines[index + 1] ?? '')) break;
    if (/^\s*>/.test(line)) continue;
    kept.push(line);
  }
  return kept.join('\n');
}

/** Tidy whitespace: no trailing spaces, at most one blank line in a row, no invisible characters. */
function tidyText(text: string): string {
  return text
    .replace(/[\u200B-\u200D\u2060\uFEFF\u00AD]/g, '')
    .replace(/\u00A0/g, ' ')
    .split('\n')
    .map((line) => trimEndOf(line, ' \t'))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Cuts text to `cap` characters at a word boundary when one is near. */
export function capText(text: string, cap = MAIL_TEXT_CAP): { text: string; truncated: boolean } {
  if (text.length <= cap) return { text, truncated: false };
  const cut = text.slice(0, cap);
  const space = cut.lastIndexOf(' ');
  return { text: `${(space > cap - 200 ? cut.slice(0, space) : cut).trimEnd()}…`, truncated: true };
}

/** The readable text of a mail: its plain-text part, or its HTML part as text; quoted history trimmed, tidied. */
export function readableText(parts: { text?: string | undefined; html?: string | undefined }): string {
  const plain = parts.text && parts.text.trim() !== '' ? parts.text : parts.html ? htmlToReadableText(parts.html) : '';
  return tidyText(trimQuotedHistory(plain));
}

/** A one-line snippet of readable text. */
export function snippetOf(text: string, length = SNIPPET_LENGTH): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= length ? line : `${line.slice(0, length - 1).trimEnd()}…`;
}
