import type { MailQuery } from './mail-message.js';

/**
 * Gmail's search string for a {@link MailQuery}. Every value is quoted, so whatever a user
 * (or a mail's text, via the model) puts in a field stays a value: Gmail has no escape for a
 * quote inside a quoted value, so quotes and other characters that could end one are turned
 * into spaces. Dates are epoch seconds (`after:` is inclusive, `before:` exclusive, both
 * instants). Only received mail is searched, like an IMAP inbox: not what the user sent, not
 * drafts (and, as always with the API, not spam or trash).
 */
export function gmailQuery(query: MailQuery): string {
  const terms: string[] = [];
  const field = (operator: string, value: string | undefined) => {
    const quoted = quote(value);
    if (quoted) terms.push(`${operator}:${quoted}`);
  };
  field('from', query.from);
  field('to', query.to);
  field('subject', query.subject);
  for (const word of (query.text ?? '').split(/\s+/)) {
    const quoted = quote(word);
    if (quoted) terms.push(quoted);
  }
  if (query.since) terms.push(`after:${Math.floor(query.since.getTime() / 1000)}`);
  if (query.before) terms.push(`before:${Math.ceil(query.before.getTime() / 1000)}`);
  if (query.unread === true) terms.push('is:unread');
  if (query.unread === false) terms.push('is:read');
  terms.push('-in:sent', '-in:draft');
  return terms.join(' ');
}

/** A value as one quoted Gmail term, or undefined when nothing searchable is left. */
function quote(value: string | undefined): string | undefined {
  // Control characters, quotes and backslashes cannot be escaped inside Gmail's quotes.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point: they are removed
  const cleaned = (value ?? '').replace(/[\u0000-\u001f\u007f"\\]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200);
  return cleaned ? `"${cleaned}"` : undefined;
}
