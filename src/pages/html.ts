/**
 * HTML built by a tagged template that escapes by default: every interpolated value is
 * text unless it is already {@link SafeHtml} (produced by this module or the Markdown
 * renderer). A renderer cannot forget to escape, because it never concatenates strings.
 */

/** Markup known to be safe: built by {@link html} or a trusted renderer. */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

/** What may be interpolated: text (escaped), safe markup, numbers, nothing, or lists of these. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const ESCAPABLE = /[&<>"']/g;
const NEEDS_ESCAPING = /[&<>"']/;

/** Text as HTML: safe in element content and in double- or single-quoted attribute values. */
function escapeHtml(text: string): string {
  return NEEDS_ESCAPING.test(text) ? text.replace(ESCAPABLE, (character) => ESCAPES[character]!) : text;
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (value === null || value === undefined || value === false || value === true) return '';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return escapeHtml(value);
  let joined = '';
  for (const item of value) joined += render(item);
  return joined;
}

/** The tagged template: `html\`<p>${text}</p>\``; `true`/`false`/`null` render as nothing. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (let index = 0; index < values.length; index += 1) out += render(values[index]) + strings[index + 1]!;
  return new SafeHtml(out);
}

/** Markup from a trusted source (the Markdown renderer, a constant). Never pass user text. */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
