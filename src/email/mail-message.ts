import { ToolError } from '../shared/errors.js';

/** A mailbox address as people read it. */
export interface MailAddress {
  name?: string | undefined;
  address: string;
}

/**
 * What a search asks for. Every field narrows; none means "the newest mail". Dates are
 * instants (the tool converts the user's words in their zone). `limit` is clamped by the
 * provider to at most {@link MAX_SEARCH_LIMIT}.
 */
export interface MailQuery {
  from?: string | undefined;
  to?: string | undefined;
  subject?: string | undefined;
  /** Words anywhere in the message (server-side where the protocol allows). */
  text?: string | undefined;
  since?: Date | undefined;
  before?: Date | undefined;
  unread?: boolean | undefined;
  limit?: number | undefined;
}

/** The most messages one search returns, whatever was asked: the model reads a bounded list. */
export const MAX_SEARCH_LIMIT = 25;

/** How many a search returns when no `limit` is given (every provider). */
export const DEFAULT_SEARCH_LIMIT = 10;

/** One message in a search result: headers and a short snippet, never the body. Newest first. */
export interface MailSummary {
  /** Opaque and stable across sessions (an IMAP UID with its UIDVALIDITY, a Gmail message id). */
  id: string;
  from: MailAddress;
  to: MailAddress[];
  subject: string;
  date: Date;
  unread: boolean;
  /** At most ~160 characters of readable text. */
  snippet: string;
  hasAttachments: boolean;
}

/** A search's answer: how many matched in all, and the newest `limit` of them. */
export interface MailSearchResult {
  total: number;
  messages: MailSummary[];
}

/** One message read in full: headers and the readable text, never attachment bytes. */
export interface MailMessage extends MailSummary {
  cc: MailAddress[];
  replyTo: MailAddress[];
  /** The RFC 5322 Message-ID, with angle brackets; for threading replies. */
  messageId?: string | undefined;
  references: string[];
  /** Plain text: HTML converted, quoted history trimmed, capped in length. */
  text: string;
  /** True when `text` was cut to the cap. */
  truncated: boolean;
  attachments: { filename?: string | undefined; contentType: string; size: number }[];
  /** The List-Unsubscribe links (https and mailto only): shown to the user to open, never followed by Herald. */
  unsubscribe?: string[] | undefined;
}

/** The https and mailto links of a List-Unsubscribe header (RFC 2369: <uri>, <uri>), at most three. */
export function unsubscribeLinks(header: string | undefined): string[] {
  if (!header) return [];
  return [...header.matchAll(/<\s*([^<>\s]+)\s*>/g)]
    .map((match) => match[1]!)
    .filter((uri) => /^(?:https:\/\/|mailto:)/i.test(uri) && uri.length <= 500)
    .slice(0, 3);
}

/** A mail to send, exactly as the user confirmed it. */
export interface OutgoingMail {
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  /** Threading, for a reply: the Message-ID replied to, and the thread's references. */
  inReplyTo?: string | undefined;
  references?: string[] | undefined;
}

/** What the server did with a sent mail. */
export interface SentMail {
  messageId: string;
  accepted: string[];
}

/** Why a mailbox could not do what was asked. */
export type MailFailure = 'unreachable' | 'unauthorized' | 'not_found' | 'rejected_recipient' | 'server' | 'invalid' | 'revoked';

/**
 * A mail failure worded for the model (it goes back as the tool's error result) and for the
 * user; each says plainly whether anything was sent. `recipients` names the addresses a
 * server refused, for 'rejected_recipient'.
 */
export class MailError extends ToolError {
  constructor(
    readonly failure: MailFailure,
    message: string,
    options?: { cause?: unknown; recipients?: string[] },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.recipients = options?.recipients ?? [];
  }

  readonly recipients: string[];
}
