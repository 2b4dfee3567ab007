import type { gmail_v1 } from '@googleapis/gmail';
import type { MessageStructureObject } from 'imapflow';
import { toMessage } from './gmail-message.js';
import { ParseBudgetError, sharedParseWorkers, type ParseWorkers } from '../shared/parse-workers.js';
import { MailError, type MailAddress, type MailMessage } from './mail-message.js';
import { capText, readableText } from './mail-text.js';
import { addressesOf, parseHeadersAndPart, referencesOf } from './mime-parts.js';

/**
 * The CPU side of reading mail, run in a parse worker (src/shared/parse-workers.ts): MIME
 * (mailparser: encoded words, charsets, transfer encodings) and HTML (html-to-text, with the
 * visibility rules of html-visibility.ts) are what a mailbox controls, and a crafted message
 * could make either slow. What comes back is plain data; the providers add flags, ids and dates
 * of their own.
 */

/** One IMAP message's raw pieces: its header block and, when it has one, the text part chosen from its BODYSTRUCTURE. */
export interface ImapMailPieces {
  headers: Uint8Array;
  part?: { node: MessageStructureObject; bytes: Uint8Array } | undefined;
}

/** What a provider needs of one message read from its MIME. */
export interface ReadMail {
  from: MailAddress | undefined;
  to: MailAddress[];
  cc: MailAddress[];
  replyTo: MailAddress[];
  subject: string;
  /** The Date header, when it parses. */
  date: Date | undefined;
  messageId: string | undefined;
  references: string[];
  /** The readable text (HTML made text, quoted history trimmed), capped at MAIL_TEXT_CAP. */
  text: string;
  truncated: boolean;
  /** The List-Unsubscribe header's value, unparsed. */
  unsubscribe: string | undefined;
}

/** Bytes as a Buffer again (a Buffer crosses to a worker as a plain Uint8Array). */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Reads IMAP messages from their header blocks and text parts (mime-parts.ts), in order. */
export async function readImapMails(items: readonly ImapMailPieces[]): Promise<ReadMail[]> {
  const read: ReadMail[] = [];
  for (const item of items) {
    try {
      read.push(await readImapMail(item));
    } catch {
      // One message the libraries cannot read (none is known) must not hide the others.
      read.push({ from: undefined, to: [], cc: [], replyTo: [], subject: '', date: undefined, messageId: undefined, references: [], text: UNREADABLE, truncated: false, unsubscribe: undefined });
    }
  }
  return read;
}

/** What a message's text says when it could not be read at all. */
const UNREADABLE = '(Herald could not read this message.)';

async function readImapMail(item: ImapMailPieces): Promise<ReadMail> {
  const part = item.part ? { node: item.part.node, bytes: asBuffer(item.part.bytes) } : undefined;
  const parsed = await parseHeadersAndPart(asBuffer(item.headers), part);
  // mailparser also makes a `text` from an HTML-only mail, with its own converter that keeps
  // hidden elements and link targets: the HTML is read here instead.
  const html = part?.node.type.toLowerCase() === 'text/html';
  const capped = capText(readableText(html ? { html: typeof parsed.html === 'string' ? parsed.html : '' } : { text: parsed.text }));
  return {
    from: addressesOf(parsed.from)[0],
    to: addressesOf(parsed.to),
    cc: addressesOf(parsed.cc),
    replyTo: addressesOf(parsed.replyTo),
    subject: parsed.subject ?? '',
    date: parsed.date,
    messageId: parsed.messageId,
    references: referencesOf(parsed),
    text: capped.text,
    truncated: capped.truncated,
    unsubscribe: parsed.headerLines.find((header) => header.key === 'list-unsubscribe')?.line.replace(/^[^:]*:/, ''),
  };
}

/** Reads Gmail messages fetched with format=full (gmail-message.ts), in order. */
export function readGmailMessages(messages: readonly gmail_v1.Schema$Message[]): MailMessage[] {
  return messages.map((message) => {
    try {
      return toMessage(message);
    } catch {
      const date = new Date(Number(message.internalDate) || 0);
      return { id: message.id ?? '', from: { address: '' }, to: [], cc: [], replyTo: [], subject: '(no subject)', date, unread: false, snippet: '', hasAttachments: false, references: [], text: UNREADABLE, truncated: false, attachments: [] };
    }
  });
}

/** This module, for the parse workers. */
const READING = new URL('./mail-reading.js', import.meta.url);

/** A batch past its parse budget: the tool's error, nothing changed. */
function overBudget(error: unknown): never {
  if (error instanceof ParseBudgetError) {
    throw new MailError('server', 'These messages were too large or too slow to read (Herald stops reading a mail after a few seconds). Nothing was changed.', { cause: error });
  }
  throw error;
}

/** {@link readImapMails} in a parse worker, within its time budget (past it, a MailError). */
export function readImapMailsOffLoop(items: readonly ImapMailPieces[], workers: ParseWorkers = sharedParseWorkers()): Promise<ReadMail[]> {
  if (items.length === 0) return Promise.resolve([]);
  return workers.run<ReadMail[]>(READING, 'readImapMails', [items]).catch(overBudget);
}

/** {@link readGmailMessages} in a parse worker, within its time budget (past it, a MailError). */
export function readGmailMessagesOffLoop(messages: readonly gmail_v1.Schema$Message[], workers: ParseWorkers = sharedParseWorkers()): Promise<MailMessage[]> {
  if (messages.length === 0) return Promise.resolve([]);
  return workers.run<MailMessage[]>(READING, 'readGmailMessages', [messages]).catch(overBudget);
}
