import type { FilingResult, MailFiling } from './mail-filing.js';
import type { MailMessage, MailQuery, MailSearchResult, OutgoingMail, SentMail } from './mail-message.js';

/**
 * One mailbox: IMAP + SMTP, or Gmail's API. The email tools speak only this; every
 * provider passes the same contract tests (test/email/provider-contract.ts). Failures are
 * {@link MailError}s (from ./mail-message.ts). A provider belongs to one user's connection:
 * it can reach no other mailbox.
 */
export interface MailProvider {
  readonly kind: 'imap' | 'gmail';
  /** For people: "Fastmail (ana@fastmail.com)", "Gmail (ana@gmail.com)". */
  readonly label: string;
  /** The user's own address: the From of what Herald sends. */
  readonly address: string;
  /** The newest messages matching the query, bounded; `total` counts all matches. */
  search(query: MailQuery): Promise<MailSearchResult>;
  /** Messages by the ids a search gave, in the order asked; unknown ids are left out. */
  get(ids: string[]): Promise<MailMessage[]>;
  /** Sends exactly this mail from {@link address} and keeps a copy in the Sent folder. */
  send(mail: OutgoingMail): Promise<SentMail>;
  /**
   * Archives, marks read or unread, moves or deletes INBOX messages by the ids a search gave;
   * ids no longer there are reported missing, never an error.
   */
  file(ids: string[], filing: MailFiling): Promise<FilingResult>;
  /** Releases connections held open between calls (IMAP sessions). */
  close(): Promise<void>;
}
