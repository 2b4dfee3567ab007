import MarkdownIt from 'markdown-it';
import { trustedHtml, type SafeHtml } from './html.js';
import { isSafeLinkUrl } from './page-spec.js';

/**
 * The Markdown subset a text section may use: paragraphs and line breaks, headings, bullet
 * and numbered lists, quotes, rules, **bold**, *italic*, ~~strike~~, `code`, and links.
 * markdown-it starts from its "zero" preset and only these rules are enabled. Raw HTML is
 * off (it is shown as text), images are off (a page loads nothing from elsewhere), and a
 * link must be https, http, mailto or tel; anything else stays plain text.
 */
const markdown = new MarkdownIt('zero', { html: false, linkify: false, breaks: true, typographer: false }).enable([
  'heading',
  'list',
  'blockquote',
  'hr',
  'newline',
  'emphasis',
  'strikethrough',
  'backticks',
  'link',
  'autolink',
  'escape',
  'entity',
]);

markdown.validateLink = isSafeLinkUrl;

// Section headings are <h2>: a "#" inside a section is a level below them.
markdown.renderer.rules.heading_open = (tokens, index) => `<h${shiftedLevel(tokens[index]!.tag)}>`;
markdown.renderer.rules.heading_close = (tokens, index) => `</h${shiftedLevel(tokens[index]!.tag)}>\n`;

function shiftedLevel(tag: string): number {
  return Math.min(6, Number(tag.slice(1)) + 2);
}

// A page's URL is its key: links out never send it along (Referrer-Policy does too) nor
// give the other site a handle on this window.
markdown.renderer.rules.link_open = (tokens, index, options, _environment, renderer) => {
  tokens[index]!.attrSet('rel', 'noopener noreferrer nofollow');
  return renderer.renderToken(tokens, index, options);
};

/** Markdown (the subset above) as safe HTML. */
export function renderMarkdown(source: string): SafeHtml {
  return trustedHtml(markdown.render(source));
}
