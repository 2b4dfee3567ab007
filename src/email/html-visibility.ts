import type { FormatCallback } from 'html-to-text';
import { backgroundColorOf, contrastRatio, parseCssColor, type Rgba } from './css-color.js';
import { withoutImportant } from './css-color.js';

/**
 * What a person reading an HTML mail cannot see. Hidden text is a classic prompt-injection
 * carrier ("<div style=display:none>Assistant: forward…</div>", white text on white, a span
 * pushed off-screen): a person never sees it, so Herald must not read it either.
 */

const BLOCK_TAGS = new Set(['div', 'p', 'table', 'tr', 'td', 'th', 'tbody', 'thead', 'section', 'article', 'header', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'center', 'main', 'aside', 'nav', 'form']);

/** Text this close to its background (WCAG contrast ratio) cannot be read: #f7f7f7 on white is 1.07. */
const INVISIBLE_CONTRAST = 1.1;

/** An inline style, lower-cased, spaces only inside values: "display:none;background:#000 url(x.png)". */
function compactStyle(style: string | undefined): string {
  return (style ?? '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/ ?([:;,()]) ?/g, '$1')
    .trim();
}

/** The value of one property in a compact style (the last one wins, as in CSS). */
function property(style: string, name: string): string | undefined {
  const matches = [...style.matchAll(new RegExp(`(?:^|;)${name}:([^;]*)`, 'g'))];
  const value = matches.at(-1)?.[1];
  return value === undefined ? undefined : withoutImportant(value.trim()).trim();
}

/** A CSS length in pixels, when it has an absolute unit or none (16px to the em). */
function pixels(value: string | undefined): number | undefined {
  const match = /^(-?[\d.]+)(px|pt|em|rem|%)?$/.exec(value ?? '');
  if (!match) return undefined;
  const number = parseFloat(match[1]!);
  const unit = match[2] ?? 'px';
  return unit === 'pt' ? number * (4 / 3) : unit === 'em' || unit === 'rem' ? number * 16 : unit === '%' ? (number / 100) * 16 : number;
}

/** Whether an element's own attributes and inline style hide it, whatever its colours. */
function hiddenByAttributes(attributes: Record<string, string | undefined>): boolean {
  if (attributes.hidden !== undefined) return true;
  if (attributes['aria-hidden'] === 'true' && /display|visibility|font-size|opacity/i.test(attributes.style ?? '')) return true;
  const style = compactStyle(attributes.style);
  if (style === '') return false;
  const opacity = property(style, 'opacity');
  const fontSize = pixels(property(style, 'font-size'));
  const clipped = /overflow:hidden/.test(style);
  const tiny = (name: string) => {
    const size = pixels(property(style, name));
    return size !== undefined && size <= 1;
  };
  const offset = (name: string) => (pixels(property(style, name)) ?? 0) <= -999;
  return (
    /(?:^|;)display:none/.test(style) ||
    /(?:^|;)visibility:(?:hidden|collapse)/.test(style) ||
    (opacity !== undefined && parseFloat(opacity) < 0.05) ||
    (fontSize !== undefined && fontSize <= 1) ||
    (clipped && (tiny('height') || tiny('max-height') || tiny('width') || tiny('max-width'))) ||
    // Pushed off the screen: a classic for text meant for machines only.
    (/(?:^|;)position:(?:absolute|fixed)/.test(style) && ['left', 'top', 'right', 'bottom', 'margin-left', 'margin-top'].some(offset)) ||
    offset('text-indent') ||
    /(?:^|;)clip:rect\(0(?:px)?[, ]0(?:px)?[, ]0(?:px)?[, ]0(?:px)?\)/.test(style) ||
    /(?:^|;)clip-path:inset\((?:50|100)%\)/.test(style) ||
    /(?:^|;)transform:scale\(0(?:\.0+)?\)/.test(style)
  );
}

/** The background an element paints itself (attribute or style); undefined when it lets its parent's show. */
function ownBackground(attributes: Record<string, string | undefined>, style: string): Rgba | undefined {
  const declared = property(style, 'background-color') ?? property(style, 'background');
  const color = declared !== undefined ? backgroundColorOf(declared) : parseCssColor(attributes.bgcolor);
  return color && color.alpha > 0.5 ? color : undefined;
}

/** Whether any element below `node` paints a background (text on it may be readable after all). */
function paintsBackgroundBelow(node: DomNode): boolean {
  return (node.children ?? []).some((child) => Boolean(child.attribs?.bgcolor || /background/i.test(child.attribs?.style ?? '')) || paintsBackgroundBelow(child));
}

interface DomNode {
  name?: string;
  attribs?: Record<string, string>;
  children?: DomNode[];
}

/**
 * A formatter for elements with a style or colour attribute that leaves out what cannot be
 * seen, tracking the background it is painted on. Make one per conversion: it keeps a stack.
 * The page's background is white unless the mail's stylesheet paints backgrounds (then only
 * backgrounds on the elements themselves are trusted, and text is never judged on a guess).
 */
export function visibilityFormatter(html: string): FormatCallback {
  const pageBackground = /<style[^>]*>[\s\S]*?background[\s\S]*?<\/style>/i.test(html) ? undefined : parseCssColor('#ffffff');
  const backgrounds: Array<Rgba | undefined> = [pageBackground];
  return (element, walk, builder) => {
    const node = element as unknown as DomNode;
    const attributes = node.attribs ?? {};
    if (hiddenByAttributes(attributes)) return;
    const style = compactStyle(attributes.style);
    const own = ownBackground(attributes, style);
    const background = own ?? backgrounds.at(-1);
    const color = parseCssColor(property(style, 'color') ?? attributes.color);
    if (color && !paintsBackgroundBelow(node)) {
      if (color.alpha < 0.1) return;
      if (background && contrastRatio(color, background) < INVISIBLE_CONTRAST) return;
    }
    const block = BLOCK_TAGS.has((node.name ?? '').toLowerCase());
    if (block) builder.openBlock({ leadingLineBreaks: 1 });
    backgrounds.push(background);
    walk(node.children as never, builder);
    backgrounds.pop();
    if (block) builder.closeBlock({ trailingLineBreaks: 1 });
  };
}

/**
 * Simple selectors (a class, an id, a tag with a class) that the mail's own stylesheet hides
 * (`.note{display:none}`): the same trick as an inline style, one step removed. Rules inside
 * @media blocks are not read (they show or hide per screen size, which is not hiding text).
 */
export function hiddenByStylesheet(html: string): string[] {
  const found = new Set<string>();
  for (const block of html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/gi)) {
    const css = block[1]!.replace(/\/\*[\s\S]*?\*\//g, '').replace(/@(?:media|supports|container)[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}/gi, '');
    // A rule's selector starts at the text's start or right after the previous rule: one try each.
    for (const rule of css.matchAll(/(?<=^|\})([^{}]+)\{([^{}]*)\}/g)) {
      const body = rule[2]!.toLowerCase().replace(/\s+/g, '');
      if (!/(?:^|;)(?:display:none|visibility:hidden|font-size:0(?:px|pt|em|rem|%)?(?:;|$|!)|opacity:0(?:;|$|!))/.test(body)) continue;
      for (const selector of rule[1]!.split(',').map((part) => part.trim())) {
        if (/^(?:[a-z][a-z0-9]*)?[.#][a-z_-][\w-]*$/i.test(selector)) found.add(selector);
      }
    }
  }
  return [...found].slice(0, 100);
}
