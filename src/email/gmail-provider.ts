import { gmail as googleGmail, type gmail_v1 } from '@googleapis/gmail';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { ConnectionRecord } from '../connections/connection-store.js';
import { GoogleAccessRevokedError, isInvalidGrant, type GoogleAccounts } from '../connections/google-accounts.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import { summaryOf } from './gmail-message.js';
import { readGmailMessagesOffLoop } from './mail-reading.js';
import { gmailQuery } from './gmail-query.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, MailError, type MailMessage, type MailQuery, type MailSearchResult, type OutgoingMail, type SentMail } from './mail-message.js';
import type { MailProvider } from './mail-provider.js';
import type { FilingResult, MailFiling } from './mail-filing.js';

/** Reading and searching the mailbox (no changes to it). */
export const GMAIL_READ_SCOPE = 'https://www.googleapis.com/auth/gmail.readonly';
/** Sending as the user (no reading). */
export const GMAIL_SEND_SCOPE = 'https://www.googleapis.com/auth/gmail.send';
/** Changing labels (archive, read/unread, label, trash): never deleting for good, no settings. */
const GMAIL_MODIFY_SCOPE = 'https://www.googleapis.com/auth/gmail.modify';
/** What "connect my email" asks Google for: read, send and file, nothing else (no settings, no deleting for good). */
export const GMAIL_SCOPES = [GMAIL_READ_SCOPE, GMAIL_SEND_SCOPE, GMAIL_MODIFY_SCOPE];

/** Message ids Gmail gives are hex; anything else cannot be one of this mailbox's messages. */
const GMAIL_ID = /^[0-9a-f]{6,32}$/i;
/** Messages read at once for a search's summaries or a get. */
const CONCURRENCY = 5;
const RECONNECT_HINT = 'The user can text "connect my email" to connect Gmail again.';

/** What a Gmail provider needs besides the connection. */
export interface GmailProviderOptions {
  accounts: GoogleAccounts;
  /** One request to Google. */
  timeoutMs: number;
  clock: Clock;
  ids: IdGenerator;
}

/**
 * The user's Gmail through the official client (@googleapis/gmail) on their Google connection,
 * whose OAuth client (from {@link GoogleAccounts}) refreshes expired access tokens by itself.
 * Search is `users.messages.list` with a quoted query string, then the matches' headers;
 * reading is `users.messages.get` in full (attachments stay on Google: only their names and
 * sizes are listed); sending is `users.messages.send` of an RFC 822 message built here, in
 * the replied-to thread, and Gmail files it in Sent itself. A refresh Google refuses marks the
 * connection for a reconnect; every failure is a {@link MailError}.
 */
export class GmailProvider implements MailProvider {
  readonly kind = 'gmail' as const;
  readonly label: string;
  readonly address: string;

  constructor(
    private readonly connection: ConnectionRecord,
    private readonly options: GmailProviderOptions,
  ) {
    this.address = connection.account;
    this.label = `Gmail (${connection.account})`;
  }

  async search(query: MailQuery): Promise<MailSearchResult> {
    const api = await this.api();
    const limit = Math.min(Math.max(1, Math.floor(query.limit ?? DEFAULT_SEARCH_LIMIT)), MAX_SEARCH_LIMIT);
    const listed = await this.call(() => api.users.messages.list({ userId: 'me', q: gmailQuery(query), maxResults: limit }, this.requestOptions()));
    const ids = (listed.data.messages ?? []).flatMap((message) => (message.id ? [message.id] : [])).slice(0, limit);
    // In full: the snippet is made from the text a person sees (Gmail's own can carry hidden text).
    const found = await inBatches(ids, (id) => this.fetch(api, id));
    const read = await readGmailMessagesOffLoop(found.filter((message) => message !== undefined));
    const messages = read.map(summaryOf).sort((left, right) => right.date.getTime() - left.date.getTime());
    return { total: Math.max(listed.data.resultSizeEstimate ?? 0, messages.length), messages };
  }

  async get(ids: string[]): Promise<MailMessage[]> {
    const wanted = [...new Set(ids)].filter((id) => GMAIL_ID.test(id));
    if (wanted.length === 0) return [];
    const api = await this.api();
    const found = await inBatches(wanted, (id) => this.fetch(api, id));
    const read = await readGmailMessagesOffLoop(found.filter((message): message is gmail_v1.Schema$Message => Boolean(message?.id)));
    const byId = new Map(read.map((message) => [message.id, message] as const));
    return ids.flatMap((id) => {
      const message = byId.get(id);
      return message ? [message] : [];
    });
  }

  async send(mail: OutgoingMail): Promise<SentMail> {
    const api = await this.api();
    const threadId = mail.inReplyTo ? await this.threadOf(api, mail.inReplyTo) : undefined;
    const domain = this.address.split('@')[1] ?? 'herald.invalid';
    const messageId = `<${this.options.ids.next('herald')}@${domain}>`;
    const raw = await new MailComposer({
      from: this.address,
      to: mail.to,
      cc: mail.cc.length > 0 ? mail.cc : undefined,
      subject: mail.subject,
      text: mail.text,
      messageId,
      date: this.options.clock.now(),
      inReplyTo: mail.inReplyTo,
      references: mail.references && mail.references.length > 0 ? mail.references : undefined,
    })
      .compile()
      .build();
    try {
      // Sending is not retried: a send whose answer was lost may have gone out.
      await this.call(() => api.users.messages.send({ userId: 'me', requestBody: { raw: raw.toString('base64url'), ...(threadId ? { threadId } : {}) } }, { timeout: this.options.timeoutMs }), 'send');
    } catch (error) {
      throw refusedRecipients(error, mail) ?? error;
    }
    return { messageId, accepted: [...mail.to, ...mail.cc] };
  }

  /**
   * Files by labels, as Gmail itself does: read and unread are the UNREAD label, archive takes
   * INBOX away, a move adds the user's label (found by name, never made: a typo moves nothing)
   * and takes INBOX away, all in one `messages.batchModify`; delete is `messages.trash` per
   * message (Gmail empties the trash after 30 days; nothing is deleted for good here). Ids that
   * are not this mailbox's, or already in the trash, are reported missing. Needs gmail.modify:
   * a mailbox connected before Herald asked for it is told to connect again.
   */
  async file(ids: string[], filing: MailFiling): Promise<FilingResult> {
    if (!this.connection.scopes.includes(GMAIL_MODIFY_SCOPE)) {
      throw new MailError('unauthorized', `Herald is not allowed to file mail in ${this.label}: Gmail was connected before Herald asked for permission to change labels. Nothing was changed. ${RECONNECT_HINT}`);
    }
    const api = await this.api();
    const wanted = [...new Set(ids)].filter((id) => GMAIL_ID.test(id));
    const states = await inBatches(wanted, async (id) => {
      try {
        const response = await this.call(() => api.users.messages.get({ userId: 'me', id, format: 'minimal' }, this.requestOptions()));
        return response.data.labelIds?.includes('TRASH') ? undefined : id;
      } catch (error) {
        if (error instanceof MailError && error.failure === 'not_found') return undefined;
        throw error;
      }
    });
    const filed = states.filter((id): id is string => id !== undefined);
    const missing = ids.filter((id) => !filed.includes(id));
    if (filed.length === 0) return { filed, missing };
    const modify = async (change: { addLabelIds?: string[]; removeLabelIds?: string[] }) => {
      await this.call(() => api.users.messages.batchModify({ userId: 'me', requestBody: { ids: filed, ...change } }, { timeout: this.options.timeoutMs }), 'file');
    };
    switch (filing.action) {
      case 'mark_read':
        await modify({ removeLabelIds: ['UNREAD'] });
        return { filed, missing };
      case 'mark_unread':
        await modify({ addLabelIds: ['UNREAD'] });
        return { filed, missing };
      case 'archive':
        await modify({ removeLabelIds: ['INBOX'] });
        return { filed, missing, folder: 'All Mail' };
      case 'move': {
        const listed = await this.call(() => api.users.labels.list({ userId: 'me' }, this.requestOptions()));
        const labels = (listed.data.labels ?? []).filter((label) => label.id && label.name && label.type === 'user');
        const wantedName = filing.folder.trim().toLowerCase();
        const label = labels.find((candidate) => candidate.name!.toLowerCase() === wantedName);
        if (!label) {
          const names = labels.map((candidate) => candidate.name!).sort();
          throw new MailError('not_found', `${this.label} has no label "${filing.folder}". Labels there: ${names.join(', ') || '(none)'}. Nothing was moved.`);
        }
        await modify({ addLabelIds: [label.id!], removeLabelIds: ['INBOX'] });
        return { filed, missing, folder: label.name! };
      }
      case 'delete':
        // One at a time: there is no batch trash, and batchDelete would delete for good.
        for (const id of filed) await this.call(() => api.users.messages.trash({ userId: 'me', id }, { timeout: this.options.timeoutMs }), 'file');
        return { filed, missing, folder: 'Trash' };
    }
  }

  async close(): Promise<void> {
    // Nothing held open: every call is a plain HTTPS request.
  }

  /** The thread of the message with this Message-ID, so a reply joins it. */
  private async threadOf(api: gmail_v1.Gmail, messageId: string): Promise<string | undefined> {
    const bare = messageId.replace(/^<|>$/g, '');
    if (!/^[^\s<>"()\\]+$/.test(bare)) return undefined;
    const listed = await this.call(() => api.users.messages.list({ userId: 'me', q: `rfc822msgid:${bare}`, maxResults: 1, includeSpamTrash: false }, this.requestOptions()));
    return listed.data.messages?.[0]?.threadId ?? undefined;
  }

  /** One message in full (attachments as ids only), or undefined when this mailbox has no such message. */
  private async fetch(api: gmail_v1.Gmail, id: string): Promise<gmail_v1.Schema$Message | undefined> {
    try {
      const response = await this.call(() => api.users.messages.get({ userId: 'me', id, format: 'full' }, this.requestOptions()));
      return response.data;
    } catch (error) {
      if (error instanceof MailError && error.failure === 'not_found') return undefined;
      throw error;
    }
  }

  private async api(): Promise<gmail_v1.Gmail> {
    try {
      const auth = await this.options.accounts.client(this.connection);
      return googleGmail({ version: 'v1', auth, rootUrl: this.options.accounts.apiBaseUrl });
    } catch (error) {
      if (error instanceof GoogleAccessRevokedError) throw this.revokedError(error);
      throw error;
    }
  }

  /** Reads are retried once on a 5xx or a lost connection (they change nothing). */
  private requestOptions() {
    return {
      timeout: this.options.timeoutMs,
      retryConfig: { retry: 1, noResponseRetries: 1, retryDelay: 200, httpMethodsToRetry: ['GET'], statusCodesToRetry: [[500, 599]] },
    };
  }

  /** Runs an API call; every failure becomes a MailError. */
  private async call<Result>(work: () => Promise<Result>, action: 'read' | 'send' | 'file' = 'read'): Promise<Result> {
    const nothing = action === 'send' ? 'Nothing was sent.' : 'Nothing was changed.';
    try {
      return await work();
    } catch (error) {
      if (error instanceof MailError) throw error;
      if (isInvalidGrant(error)) throw this.revokedError(await this.options.accounts.revoked(this.connection));
      const status = statusOf(error);
      const reason = reasonOf(error);
      if (status === 401) throw new MailError('revoked', `Google did not accept Herald's access to ${this.label}. ${nothing} ${RECONNECT_HINT}`, { cause: error });
      if (status === 403 && /insufficient|scope|permission/i.test(reason)) {
        const what = action === 'send' ? 'send mail from' : action === 'file' ? 'file mail in' : 'read';
        throw new MailError('unauthorized', `Herald is not allowed to ${what} ${this.label}: that permission was not given when Google was connected. ${nothing} ${RECONNECT_HINT}`, { cause: error });
      }
      if (status === 404) throw new MailError('not_found', `That message is no longer in ${this.label}. ${nothing}`, { cause: error });
      if (status === 400) throw new MailError('invalid', `Gmail refused the request: ${googleMessage(error) ?? 'bad request'}. ${nothing} Check the addresses and try again.`, { cause: error });
      if (status !== undefined && status >= 400) throw new MailError('server', `${this.label} had an error (HTTP ${status}). ${nothing} Try again in a little while.`, { cause: error });
      throw new MailError('unreachable', `${this.label} could not be reached. ${nothing} Try again in a little while.`, { cause: error });
    }
  }

  private revokedError(cause: unknown): MailError {
    return new MailError('revoked', `Google no longer lets Herald into ${this.label} (access was revoked or has expired). Nothing was read or sent. ${RECONNECT_HINT}`, { cause });
  }
}

/**
 * Gmail refuses a recipient by refusing its whole header ("Invalid To header"): the
 * recipients named are that header's (one, usually). Undefined for any other failure.
 */
function refusedRecipients(error: unknown, mail: OutgoingMail): MailError | undefined {
  if (!(error instanceof MailError) || error.failure !== 'invalid') return undefined;
  const header = /Invalid (To|Cc) header/i.exec(error.message)?.[1]?.toLowerCase();
  if (!header) return undefined;
  const recipients = header === 'to' ? mail.to : mail.cc;
  return new MailError('rejected_recipient', `Gmail refused to send to ${recipients.join(', ')} (not a valid address). Nothing was sent.`, { cause: error, recipients });
}

function statusOf(error: unknown): number | undefined {
  const candidate = error as { status?: unknown; response?: { status?: unknown } } | undefined;
  const status = candidate?.response?.status ?? candidate?.status;
  return typeof status === 'number' ? status : undefined;
}

type GoogleErrorBody = { error?: { message?: unknown; status?: unknown; errors?: Array<{ reason?: unknown }> } } | undefined;

function errorBody(error: unknown): GoogleErrorBody {
  return (error as { response?: { data?: unknown } } | undefined)?.response?.data as GoogleErrorBody;
}

/** Google's codes for a failure ("PERMISSION_DENIED insufficientPermissions"), to tell kinds of 403 apart. */
function reasonOf(error: unknown): string {
  const body = errorBody(error);
  return [body?.error?.message, body?.error?.status, ...(body?.error?.errors ?? []).map((entry) => entry.reason)].filter((part): part is string => typeof part === 'string').join(' ');
}

/** Google's own words for a failure ("Invalid To header"), bounded. */
function googleMessage(error: unknown): string | undefined {
  const message = errorBody(error)?.error?.message;
  return typeof message === 'string' && message.trim() ? message.trim().replace(/\.$/, '').slice(0, 200) : undefined;
}

/** Runs `work` over `items`, at most {@link CONCURRENCY} at a time, results in order. */
async function inBatches<Item, Result>(items: Item[], work: (item: Item) => Promise<Result>): Promise<Result[]> {
  const results: Result[] = [];
  for (let start = 0; start < items.length; start += CONCURRENCY) {
    results.push(...(await Promise.all(items.slice(start, start + CONCURRENCY).map(work))));
  }
  return results;
}
