import type { gmail_v1 } from '@googleapis/gmail';
import addressparser from 'nodemailer/lib/addressparser';
import { unsubscribeLinks, type MailAddress, type MailMessage, type MailSummary } from './mail-message.js';
import { decodeBytes, decodeMimeWords } from './mime-words.js';
import { capText, readableText, snippetOf } from './mail-text.js';
import { MAX_HEADER_LENGTH } from './mime-parts.js';

type GmailMessage = gmail_v1.Schema$Message;
type GmailPart = gmail_v1.Schema$MessagePart;

/** A search result line: the headers, and a snippet of the readable text (of a message {@link toMessage} read). */
export function summaryOf(message: MailMessage): MailSummary {
  const { id, from, to, subject, date, unread, snippet, hasAttachments } = message;
  return { id, from, to, subject, date, unread, snippet, hasAttachments };
}

/**
 * A message fetched with format=full, read: its text parts decoded (base64url, then their
 * charset), the readable text made from them, and attachments listed by name, type and size.
 * Attachment bytes are never in a full message (Gmail gives them an attachment id instead),
 * and Herald never asks for them. The snippet is made from the readable text, never Gmail's
 * own: Gmail's can carry text the mail hides from its reader.
 */
export function toMessage(message: GmailMessage): MailMessage {
  const headers = headerMap(message.payload);
  const bodies = { plain: [] as string[], html: [] as string[] };
  const attachments: MailMessage['attachments'] = [];
  walk(message.payload, (part) => {
    const mimeType = (part.mimeType ?? '').toLowerCase();
    if (isAttachment(part)) {
      attachments.push({ filename: part.filename ? decodeMimeWords(part.filename) : undefined, contentType: mimeType || 'application/octet-stream', size: part.body?.size ?? 0 });
      return;
    }
    if (!part.body?.data) return;
    const text = decodeBytes(Buffer.from(part.body.data, 'base64url'), charsetOf(headerMap(part).get('content-type')));
    if (mimeType === 'text/html') bodies.html.push(text);
    else if (mimeType === 'text/plain' || mimeType === '') bodies.plain.push(text);
  });
  const readable = capText(readableText({ text: bodies.plain.join('\n\n'), html: bodies.html.join('\n') }));
  return {
    id: message.id ?? '',
    from: addresses(headers.get('from'))[0] ?? { address: '' },
    to: addresses(headers.get('to')),
    subject: decodeMimeWords(headers.get('subject') ?? '').trim() || '(no subject)',
    date: dateOf(message, headers),
    unread: (message.labelIds ?? []).includes('UNREAD'),
    snippet: snippetOf(readable.text),
    hasAttachments: attachments.length > 0,
    cc: addresses(headers.get('cc')),
    replyTo: addresses(headers.get('reply-to')),
    messageId: headers.get('message-id')?.trim() || undefined,
    references: (headers.get('references') ?? '').match(/<[^<>\s]+>/g) ?? [],
    text: readable.text,
    truncated: readable.truncated,
    attachments,
    unsubscribe: unsubscribeLinks(headers.get('list-unsubscribe')),
  };
}

/** Parsed address header: names decoded, groups flattened, empty addresses dropped. */
function addresses(value: string | undefined): MailAddress[] {
  if (!value) return [];
  return addressparser(value, { flatten: true })
    .filter((entry) => entry.address)
    .map((entry) => {
      const name = decodeMimeWords(entry.name).trim();
      return name ? { name, address: entry.address } : { address: entry.address };
    });
}

/** A part's headers by lower-cased name (the first of each); a field longer than MAX_HEADER_LENGTH is left out, as for IMAP. */
function headerMap(part: GmailPart | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const header of part?.headers ?? []) {
    const name = header.name?.toLowerCase();
    if (name && !map.has(name) && (header.value ?? '').length <= MAX_HEADER_LENGTH) map.set(name, header.value ?? '');
  }
  return map;
}

function walk(part: GmailPart | undefined, visit: (part: GmailPart) => void): void {
  if (!part) return;
  if (part.parts?.length) {
    // A forwarded message inside is an attachment, not part of this message's text.
    if ((part.mimeType ?? '').toLowerCase() === 'message/rfc822') return visit(part);
    for (const child of part.parts) walk(child, visit);
    return;
  }
  visit(part);
}

function isAttachment(part: GmailPart): boolean {
  const mimeType = (part.mimeType ?? '').toLowerCase();
  if (mimeType.startsWith('multipart/')) return false;
  const disposition = headerMap(part).get('content-disposition')?.toLowerCase() ?? '';
  if (part.filename || disposition.startsWith('attachment') || mimeType === 'message/rfc822') return true;
  // A body too big to inline comes as an attachment id; only text parts are ever read.
  return Boolean(part.body?.attachmentId) || !(mimeType.startsWith('text/') || mimeType === '');
}

function charsetOf(contentType: string | undefined): string | undefined {
  return /charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1];
}

/** When Gmail received it (internalDate), else the Date header. */
function dateOf(message: GmailMessage, headers: Map<string, string>): Date {
  const internal = Number(message.internalDate);
  if (Number.isFinite(internal) && internal > 0) return new Date(internal);
  const header = Date.parse(headers.get('date') ?? '');
  return new Date(Number.isFinite(header) ? header : 0);
}
