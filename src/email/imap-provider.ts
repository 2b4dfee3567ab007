import type { ImapFlow, MessageStructureObject, SearchObject } from 'imapflow';
import { z } from 'zod';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { OutboundAccess } from '../net/outbound-policy.js';
import { ImapSession, parseMailServerUrl } from './imap-session.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, MailError, unsubscribeLinks, type MailMessage, type MailQuery, type MailSearchResult, type MailSummary, type OutgoingMail, type SentMail } from './mail-message.js';
import type { MailProvider } from './mail-provider.js';
import { fileInInbox, type FilingResult, type MailFiling } from './mail-filing.js';
import { readImapMailsOffLoop, type ImapMailPieces, type ReadMail } from './mail-reading.js';
import { snippetOf } from './mail-text.js';
import { preferredPart, textPartsOf } from './mime-parts.js';
import { composeMail, sendComposed } from './smtp-sender.js';

/** An IMAP connection's settings (not secret). */
export const imapSettingsSchema = z.object({
  imapUrl: z.string().min(1),
  smtpUrl: z.string().min(1),
  username: z.string().min(1),
  /** The user's own address: the From of what Herald sends. */
  address: z.string().email(),
  /** True when the server files sent mail in Sent by itself (Gmail, Outlook): no APPEND then. */
  sentSavedByServer: z.boolean().optional(),
});
export type ImapSettings = z.output<typeof imapSettingsSchema>;

/** An IMAP connection's secrets. */
export const imapSecretsSchema = z.object({ password: z.string().min(1) });

/** The most bytes of one text part read for a message (a text part larger than this is cut). */
const TEXT_PART_BYTES = 512 * 1024;
/** The bytes read of a text part for a search snippet. */
const SNIPPET_BYTES = { plain: 2048, html: 16_384 };
const HEADER_FIELDS = ['from', 'to', 'cc', 'subject', 'date', 'message-id'];
const INBOX = 'INBOX';
const DAY_MS = 86_400_000;

/** What the IMAP provider needs. */
export interface ImapProviderOptions {
  label: string;
  settings: ImapSettings;
  password: string;
  timeoutMs: number;
  clock: Clock;
  ids: IdGenerator;
  /** The outbound policy and the connection's trust: both servers are checked at every connect. */
  outbound: OutboundAccess;
  logger?: Logger | undefined;
}

/**
 * Any mailbox over IMAP (reading, imapflow) and SMTP (sending, nodemailer). Searches run on
 * the server (IMAP SEARCH) over the INBOX; only the newest matches' headers and the first
 * bytes of their text part are fetched. Reading a message downloads its header block and
 * its one readable text part, chosen from the BODYSTRUCTURE, never its attachments.
 * Message ids are "<UIDVALIDITY>:<UID>", stable across sessions (a mailbox rebuilt by the
 * server gets a new UIDVALIDITY, and the old ids then find nothing rather than the wrong
 * mail). Sending keeps a copy in the special-use \Sent folder (created if missing) unless
 * the settings say the server does that itself.
 */
export class ImapMailProvider implements MailProvider {
  readonly kind = 'imap' as const;
  readonly label: string;
  readonly address: string;
  private readonly session: ImapSession;

  constructor(private readonly options: ImapProviderOptions) {
    this.label = options.label;
    this.address = options.settings.address;
    this.session = new ImapSession({
      server: parseMailServerUrl(options.settings.imapUrl, 'imap'),
      username: options.settings.username,
      password: options.password,
      timeoutMs: options.timeoutMs,
      label: options.label,
      outbound: options.outbound,
      logger: options.logger,
    });
  }

  /** Logs in to IMAP (only): a wrong password is MailError('unauthorized'). */
  async check(): Promise<void> {
    await this.session.check();
  }

  async search(query: MailQuery): Promise<MailSearchResult> {
    const limit = Math.max(1, Math.min(MAX_SEARCH_LIMIT, Math.floor(query.limit ?? DEFAULT_SEARCH_LIMIT)));
    return this.session.run((client) =>
      this.inInbox(client, async (uidValidity) => {
        let uids = (await client.search(criteriaOf(query), { uid: true })) || [];
        let dates: Map<number, Date> | undefined;
        if ((query.since || query.before) && uids.length > 0) {
          // IMAP compares whole days; the exact instants are checked here.
          dates = await internalDates(client, uids);
          uids = uids.filter((uid) => {
            const date = dates!.get(uid);
            return date !== undefined && (!query.since || date >= query.since) && (!query.before || date < query.before);
          });
        }
        const newest = dates ? [...uids].sort((left, right) => dates.get(right)!.getTime() - dates.get(left)!.getTime() || right - left) : [...uids].sort((left, right) => right - left);
        const chosen = newest.slice(0, limit);
        const summaries = await this.summaries(client, uidValidity, chosen);
        return { total: uids.length, messages: chosen.map((uid) => summaries.get(uid)).filter((summary): summary is MailSummary => summary !== undefined) };
      }),
    );
  }

  async get(ids: string[]): Promise<MailMessage[]> {
    if (ids.length === 0) return [];
    return this.session.run((client) =>
      this.inInbox(client, async (uidValidity) => {
        const wanted = ids.map((id) => parseId(id)).filter((id): id is { validity: string; uid: number } => id !== undefined && id.validity === uidValidity);
        if (wanted.length === 0) return [];
        const found = new Map<number, MailMessage>();
        // Collected first: imapflow runs one command at a time, so a part cannot be fetched while this FETCH streams.
        const fetched = [];
        for await (const message of client.fetch(wanted.map((id) => id.uid).join(','), { uid: true, flags: true, internalDate: true, bodyStructure: true, headers: true }, { uid: true })) fetched.push(message);
        const chosen = fetched.map((message) => ({ message, parts: textPartsOf(message.bodyStructure) }));
        const texts = await partsBytes(
          client,
          chosen.flatMap(({ message, parts }) => {
            const part = preferredPart(parts);
            return part?.part ? [{ uid: message.uid, key: part.part, maxBytes: TEXT_PART_BYTES }] : [];
          }),
        );
        const read = await readImapMailsOffLoop(chosen.map(({ message, parts }) => pieces(message.headers ?? Buffer.alloc(0), preferredPart(parts), texts.get(message.uid))));
        for (const [index, { message, parts }] of chosen.entries()) {
          const part = preferredPart(parts);
          const mail = read[index]!;
          const summary = summaryOf(uidValidity, message.uid, mail, message.flags, message.internalDate, parts.attachments.length > 0);
          found.set(message.uid, {
            ...summary,
            cc: mail.cc,
            replyTo: mail.replyTo,
            messageId: mail.messageId ? bracketed(mail.messageId) : undefined,
            references: mail.references.map(bracketed),
            text: mail.text,
            truncated: mail.truncated || (part?.size !== undefined && part.size > TEXT_PART_BYTES),
            attachments: parts.attachments,
            unsubscribe: unsubscribeLinks(mail.unsubscribe),
          });
        }
        return wanted.map((id) => found.get(id.uid)).filter((message): message is MailMessage => message !== undefined);
      }),
    );
  }

  async send(mail: OutgoingMail): Promise<SentMail> {
    const { settings } = this.options;
    const domain = settings.address.split('@')[1] ?? 'herald.invalid';
    const composed = await composeMail(mail, { address: settings.address }, `<${this.options.ids.next('herald')}@${domain}>`, this.options.clock.now());
    const outcome = await sendComposed(
      { server: parseMailServerUrl(settings.smtpUrl, 'smtp'), username: settings.username, password: this.options.password, address: settings.address, label: this.label, timeoutMs: this.options.timeoutMs, outbound: this.options.outbound },
      composed,
    );
    if (outcome.accepted.length > 0 && !settings.sentSavedByServer) await this.keepSentCopy(composed.raw);
    if (outcome.rejected.length > 0) {
      throw new MailError('rejected_recipient', `The mail was sent to ${outcome.accepted.join(', ')}, but the mail server refused ${outcome.rejected.join(', ')} (${outcome.reply}). Check that address.`, { recipients: outcome.rejected });
    }
    return { messageId: composed.messageId, accepted: outcome.accepted };
  }

  async file(ids: string[], filing: MailFiling): Promise<FilingResult> {
    return this.session.run(async (client) => {
      const uids = new Map<number, string>();
      const uidsOf = (validity: string) => {
        for (const id of ids) {
          const parsed = parseId(id);
          if (parsed && parsed.validity === validity) uids.set(parsed.uid, id);
        }
        return [...uids.keys()];
      };
      const done = await fileInInbox(client, uidsOf, filing, this.label);
      const filed = done.filed.map((uid) => uids.get(uid)!);
      return { filed, missing: ids.filter((id) => !filed.includes(id)), ...(done.folder ? { folder: done.folder } : {}) };
    });
  }

  async close(): Promise<void> {
    await this.session.close();
  }

  /** APPENDs the sent bytes to the \Sent folder (made when missing). The mail is already sent: a failure here is logged, not thrown. */
  private async keepSentCopy(raw: Buffer): Promise<void> {
    try {
      await this.session.run(async (client) => {
        const folders = await client.list();
        let sent = folders.find((folder) => folder.specialUse === '\\Sent')?.path;
        if (!sent) {
          sent = folders.find((folder) => /^(?:sent|sent items|sent messages)$/i.test(folder.name))?.path ?? 'Sent';
          if (!folders.some((folder) => folder.path === sent)) await client.mailboxCreate(sent);
        }
        await client.append(sent, raw, ['\\Seen'], this.options.clock.now());
      });
    } catch (error) {
      this.options.logger?.warn({ failure: error instanceof MailError ? error.failure : 'server' }, 'the mail was sent but its copy could not be saved in Sent');
    }
  }

  private async inInbox<T>(client: ImapFlow, work: (uidValidity: string) => Promise<T>): Promise<T> {
    const lock = await client.getMailboxLock(INBOX, { readOnly: true });
    try {
      // A reused session sees mail that arrived since its last command only after a NOOP.
      await client.noop();
      const mailbox = client.mailbox;
      if (!mailbox) throw new MailError('server', `The INBOX of ${this.label} could not be opened. Nothing was changed.`);
      return await work(String(mailbox.uidValidity));
    } finally {
      lock.release();
    }
  }

  /** Headers, flags and a snippet of each message, by UID. */
  private async summaries(client: ImapFlow, uidValidity: string, uids: number[]): Promise<Map<number, MailSummary>> {
    const found = new Map<number, MailSummary>();
    if (uids.length === 0) return found;
    const fetched: Array<{ uid: number; headers: Buffer; flags?: Set<string> | undefined; internalDate?: Date | string | undefined; structure?: MessageStructureObject | undefined }> = [];
    for await (const message of client.fetch(uids.join(','), { uid: true, flags: true, internalDate: true, bodyStructure: true, headers: HEADER_FIELDS }, { uid: true })) {
      fetched.push({ uid: message.uid, headers: message.headers ?? Buffer.alloc(0), flags: message.flags, internalDate: message.internalDate, structure: message.bodyStructure });
    }
    const chosen = fetched.map((message) => ({ message, parts: textPartsOf(message.structure) }));
    const snippets = await partsBytes(
      client,
      chosen.flatMap(({ message, parts }) => {
        const part = preferredPart(parts);
        return part?.part ? [{ uid: message.uid, key: part.part, maxBytes: part === parts.plain ? SNIPPET_BYTES.plain : SNIPPET_BYTES.html }] : [];
      }),
    );
    const read = await readImapMailsOffLoop(chosen.map(({ message, parts }) => pieces(message.headers, preferredPart(parts), snippets.get(message.uid))));
    for (const [index, { message, parts }] of chosen.entries()) {
      found.set(message.uid, summaryOf(uidValidity, message.uid, read[index]!, message.flags, message.internalDate, parts.attachments.length > 0));
    }
    return found;
  }
}

function criteriaOf(query: MailQuery): SearchObject {
  const criteria: SearchObject = {};
  if (query.from) criteria.from = query.from;
  if (query.to) criteria.to = query.to;
  if (query.subject) criteria.subject = query.subject;
  if (query.text) {
    // Every word somewhere in the message (as people and Gmail read "kayak rental"), not the
    // exact phrase IMAP's TEXT would look for; a "quoted phrase" stays one. AND as
    // NOT (OR (NOT a) (NOT b)): one SEARCH key cannot repeat in imapflow's query object.
    const phrase = /^"(.+)"$/.exec(query.text.trim())?.[1];
    const words = phrase ? [phrase] : query.text.trim().split(/\s+/).slice(0, 8);
    if (words.length === 1) criteria.text = words[0];
    else criteria.not = { or: words.map((word) => ({ not: { text: word } })) };
  }
  if (query.unread) criteria.seen = false;
  // Widened by a day each side: IMAP dates ignore the time and the zone.
  if (query.since) criteria.since = new Date(query.since.getTime() - DAY_MS);
  if (query.before) criteria.before = new Date(query.before.getTime() + DAY_MS);
  if (Object.keys(criteria).length === 0) criteria.all = true;
  return criteria;
}

async function internalDates(client: ImapFlow, uids: number[]): Promise<Map<number, Date>> {
  const dates = new Map<number, Date>();
  for await (const message of client.fetch(uids.join(','), { uid: true, internalDate: true }, { uid: true })) {
    if (message.internalDate) dates.set(message.uid, new Date(message.internalDate));
  }
  return dates;
}

/**
 * The first bytes of one body part of each message, as stored (still transfer-encoded):
 * one FETCH per distinct part and length (most mails' text is part 1 or 1.1), not one per
 * message, so a search costs a few round trips whatever it lists.
 */
async function partsBytes(client: ImapFlow, wanted: Array<{ uid: number; key: string; maxBytes: number }>): Promise<Map<number, Buffer>> {
  const groups = new Map<string, { key: string; maxBytes: number; uids: number[] }>();
  for (const want of wanted) {
    const group = groups.get(`${want.key}|${want.maxBytes}`) ?? { key: want.key, maxBytes: want.maxBytes, uids: [] };
    group.uids.push(want.uid);
    groups.set(`${want.key}|${want.maxBytes}`, group);
  }
  const bytes = new Map<number, Buffer>();
  for (const group of groups.values()) {
    for await (const message of client.fetch(group.uids.join(','), { uid: true, bodyParts: [{ key: group.key, maxLength: group.maxBytes }] }, { uid: true })) {
      const part = message.bodyParts?.get(group.key) ?? [...(message.bodyParts?.values() ?? [])][0];
      if (part) bytes.set(message.uid, part);
    }
  }
  return bytes;
}

function summaryOf(uidValidity: string, uid: number, mail: ReadMail, flags: Set<string> | undefined, internalDate: Date | string | undefined, hasAttachments: boolean): MailSummary {
  return {
    id: `${uidValidity}:${uid}`,
    from: mail.from ?? { address: '' },
    to: mail.to,
    subject: mail.subject,
    date: internalDate ? new Date(internalDate) : (mail.date ?? new Date(0)),
    unread: !(flags?.has('\\Seen') ?? false),
    snippet: snippetOf(mail.text),
    hasAttachments,
  };
}

/** A message's header block and chosen text part, for the parse worker. */
function pieces(headers: Buffer, part: MessageStructureObject | undefined, bytes: Buffer | undefined): ImapMailPieces {
  return { headers, part: part && bytes ? { node: part, bytes } : undefined };
}

function parseId(id: string): { validity: string; uid: number } | undefined {
  const match = /^(\d+):(\d+)$/.exec(id.trim());
  return match ? { validity: match[1]!, uid: Number(match[2]) } : undefined;
}

function bracketed(id: string): string {
  const trimmed = id.trim();
  return trimmed.startsWith('<') ? trimmed : `<${trimmed}>`;
}
