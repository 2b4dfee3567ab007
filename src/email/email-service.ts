import type { ConnectionRecord, ConnectionStore } from '../connections/connection-store.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import { OutboundRefusedError, type OutboundPolicy, type OutboundTrust } from '../net/outbound-policy.js';
import { ImapMailProvider, imapSecretsSchema, imapSettingsSchema, type ImapSettings } from './imap-provider.js';
import { checkMailServer, parseMailServerUrl } from './imap-session.js';
import { MailError } from './mail-message.js';
import type { MailProvider } from './mail-provider.js';
import { verifySmtp } from './smtp-sender.js';

/**
 * How one kind of connection becomes a mailbox. `open` answers undefined when the
 * connection is not a mailbox after all (a Google connection granted only the calendar).
 * Adding a provider is adding a factory (Gmail: provider "google", when the connection's
 * scopes include Gmail's).
 */
export interface MailProviderFactory {
  provider: string;
  open(connection: ConnectionRecord): Promise<MailProvider | undefined>;
  /**
   * Whether the connection is a mailbox at all, before it is opened (default: every
   * connection of `provider`). A Google connection made for the calendar alone is not, even
   * when it needs reconnecting.
   */
  serves?(connection: ConnectionRecord): boolean;
  /**
   * Set when a refusal must not mark the whole connection for reconnecting: a Google
   * connection also serves the calendar, a missing Gmail scope leaves that working, and a
   * revoked grant is marked by GoogleAccounts itself.
   */
  keepsConnectionOnRefusal?: boolean;
  /** Stops using the connection for mail (default: delete it); says whether it was deleted. */
  disconnect?(connection: ConnectionRecord): Promise<'kept' | 'deleted'>;
}

/** The user's mailbox, or why there is none to use. */
export type MailboxLookup =
  | { kind: 'ready'; provider: MailProvider; connection: ConnectionRecord }
  | { kind: 'none' }
  /** Saved, but its password was refused (or access revoked): it must be connected again. */
  | { kind: 'needs_reconnect'; connection: ConnectionRecord };

/** An IMAP account as the connect form or `accounts add-imap` gives it. */
export interface ImapAccountInput {
  imapUrl: string;
  smtpUrl: string;
  username: string;
  password: string;
  /** The user's address (the From of what Herald sends). */
  address: string;
  sentSavedByServer?: boolean | undefined;
  /** "Fastmail", "iCloud"… for the label; the IMAP host when absent. */
  service?: string | undefined;
}

/** Why an account was not saved, by the form field to fix ('form' for the whole). */
export type ImapAccountCheck = { ok: true; connection: ConnectionRecord } | { ok: false; field: 'password' | 'imapUrl' | 'smtpUrl' | 'form'; error: string };

/** What the email service needs. */
export interface EmailServiceDependencies {
  connections: ConnectionStore;
  clock: Clock;
  ids: IdGenerator;
  /** One request to a mail server. */
  timeoutMs: number;
  /** Which addresses mail servers may be at (src/net). */
  outbound: OutboundPolicy;
  logger: Logger;
  /** Providers other than IMAP (the Gmail one). */
  factories?: MailProviderFactory[];
  /** How long an open IMAP session is kept after its last use (default 60 s). */
  idleMs?: number | undefined;
}

/** An IMAP mailbox kept open between calls: the turn's search, read and send share one login. */
interface OpenMailbox {
  /** The connection's id and version: a changed connection (a new password) opens anew. */
  key: string;
  provider: MailProvider;
  inUse: number;
  idle?: NodeJS.Timeout | undefined;
}

/**
 * Which mailbox a user has, and using it safely. A user's mailbox is their most recently
 * connected mail connection (IMAP, or a Google connection that includes Gmail). A password
 * the server refuses marks the connection `needs_reconnect`: Herald stops trying it (so it
 * never locks the account out) and says how to fix it until the user connects again.
 */
export class EmailService {
  private readonly factories: Map<string, MailProviderFactory>;
  private readonly open = new Map<string, OpenMailbox>();

  constructor(private readonly deps: EmailServiceDependencies) {
    this.factories = new Map([this.imapFactory(), ...(deps.factories ?? [])].map((factory) => [factory.provider, factory]));
  }

  /** Adds a provider (the Gmail one is added by its module). */
  addFactory(factory: MailProviderFactory): void {
    this.factories.set(factory.provider, factory);
  }

  /** The user's mailbox, newest connection first. */
  async mailboxOf(userId: string): Promise<MailboxLookup> {
    const candidates = await this.mailConnections(userId);
    let broken: ConnectionRecord | undefined;
    for (const connection of candidates) {
      if (connection.status === 'needs_reconnect') {
        broken ??= connection;
        continue;
      }
      const key = `${connection.id}:${connection.updatedAt.getTime()}`;
      const kept = this.open.get(connection.id);
      if (kept?.key === key) return { kind: 'ready', provider: kept.provider, connection };
      const provider = await this.factories.get(connection.provider)!.open(connection);
      if (provider) return { kind: 'ready', provider, connection };
    }
    return broken ? { kind: 'needs_reconnect', connection: broken } : { kind: 'none' };
  }

  /**
   * Runs `work` on the user's mailbox and closes it after. A refused password marks the
   * connection for reconnecting (the error is passed on, worded for the user).
   */
  async withMailbox<T>(mailbox: Extract<MailboxLookup, { kind: 'ready' }>, work: (provider: MailProvider) => Promise<T>): Promise<T> {
    const kept = this.keep(mailbox);
    try {
      return await work(kept?.provider ?? mailbox.provider);
    } catch (error) {
      if (error instanceof MailError && (error.failure === 'unauthorized' || error.failure === 'revoked')) {
        await this.evict(mailbox.connection.id);
        if (!this.factories.get(mailbox.connection.provider)?.keepsConnectionOnRefusal) {
          await this.deps.connections.markNeedsReconnect(mailbox.connection.id);
          this.deps.logger.warn({ connectionId: mailbox.connection.id, provider: mailbox.connection.provider, failure: error.failure }, 'mailbox refused its saved credentials; marked for reconnecting');
        }
      }
      throw error;
    } finally {
      if (kept) this.release(kept);
      else await mailbox.provider.close().catch(() => undefined);
    }
  }

  /** Closes every mailbox kept open (on shutdown). */
  async close(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.evict(id)));
  }

  /** IMAP sessions are kept open between calls; other providers hold no connection. */
  private keep(mailbox: Extract<MailboxLookup, { kind: 'ready' }>): OpenMailbox | undefined {
    if (mailbox.provider.kind !== 'imap') return undefined;
    const key = `${mailbox.connection.id}:${mailbox.connection.updatedAt.getTime()}`;
    let kept = this.open.get(mailbox.connection.id);
    if (kept && kept.key !== key) {
      void this.evict(mailbox.connection.id);
      kept = undefined;
    }
    if (!kept) {
      kept = { key, provider: mailbox.provider, inUse: 0 };
      this.open.set(mailbox.connection.id, kept);
    } else if (kept.provider !== mailbox.provider) {
      // Two calls opened the same mailbox at once: this one's session is not needed.
      void mailbox.provider.close().catch(() => undefined);
    }
    kept.inUse += 1;
    clearTimeout(kept.idle);
    kept.idle = undefined;
    return kept;
  }

  private release(kept: OpenMailbox): void {
    kept.inUse -= 1;
    if (kept.inUse > 0) return;
    const connectionId = [...this.open.entries()].find(([, entry]) => entry === kept)?.[0];
    if (!connectionId) return;
    kept.idle = setTimeout(() => void this.evict(connectionId), this.deps.idleMs ?? 60_000);
    kept.idle.unref();
  }

  private async evict(connectionId: string): Promise<void> {
    const kept = this.open.get(connectionId);
    if (!kept) return;
    this.open.delete(connectionId);
    clearTimeout(kept.idle);
    await kept.provider.close().catch(() => undefined);
  }

  /**
   * Checks an IMAP account by logging in to IMAP and to SMTP, and only then saves it
   * (password sealed) as the user's mailbox. Nothing is stored when a check fails; the
   * answer says what to fix. Both servers are checked by the outbound policy before either
   * is contacted: a user (the default) reaches only public addresses and
   * CONNECT_ALLOWED_HOSTS; the operator (`trust: 'operator'`) anything, and the connection
   * keeps that trust at every later use.
   */
  async connectImap(userId: string, input: ImapAccountInput, trust: OutboundTrust = 'user'): Promise<ImapAccountCheck> {
    let imapHost: string;
    try {
      imapHost = parseMailServerUrl(input.imapUrl, 'imap').host;
    } catch {
      return { ok: false, field: 'imapUrl', error: 'Enter the incoming (IMAP) server, such as imap.example.com.' };
    }
    let smtp: ReturnType<typeof parseMailServerUrl>;
    try {
      smtp = parseMailServerUrl(input.smtpUrl, 'smtp');
    } catch {
      return { ok: false, field: 'smtpUrl', error: 'Enter the outgoing (SMTP) server, such as smtp.example.com.' };
    }
    const settings: ImapSettings = { imapUrl: input.imapUrl, smtpUrl: input.smtpUrl, username: input.username, address: input.address, ...(input.sentSavedByServer ? { sentSavedByServer: true } : {}) };
    const label = `${input.service ?? imapHost} (${input.address})`;
    const outbound = { policy: this.deps.outbound, trust };
    const provider = new ImapMailProvider({ label, settings, password: input.password, timeoutMs: this.deps.timeoutMs, clock: this.deps.clock, ids: this.deps.ids, outbound });
    try {
      // Neither server is contacted when either address is refused.
      await checkMailServer(outbound, parseMailServerUrl(input.imapUrl, 'imap'), `The mail server for ${label}`);
      await checkMailServer(outbound, smtp, `The outgoing mail server for ${label}`);
      await provider.check();
      await verifySmtp({ server: smtp, username: input.username, password: input.password, label, timeoutMs: this.deps.timeoutMs, outbound });
    } catch (error) {
      if (!(error instanceof MailError)) throw error;
      const outgoing = /outgoing/i.test(error.message);
      // The policy's one message, whatever is (or is not) listening there.
      if (error.cause instanceof OutboundRefusedError) return { ok: false, field: outgoing ? 'smtpUrl' : 'imapUrl', error: error.cause.message };
      if (error.failure === 'unauthorized') return { ok: false, field: 'password', error: `${outgoing ? 'The outgoing (SMTP) server' : 'The mail server'} refused this username and password. Many providers need an app password here, not your usual one.` };
      return { ok: false, field: outgoing ? 'smtpUrl' : 'imapUrl', error: `${outgoing ? 'The outgoing (SMTP) server' : 'The incoming (IMAP) server'} could not be reached or refused the connection. Check its address and port.` };
    } finally {
      await provider.close();
    }
    const connection = await this.deps.connections.save(userId, { provider: 'imap', account: `${input.username}@${imapHost}`, label, settings, secrets: { password: input.password }, operatorTrusted: trust === 'operator' });
    this.deps.logger.info({ userId, connectionId: connection.id }, 'mailbox connected');
    return { ok: true, connection };
  }

  /**
   * Stops using the user's mailbox (their newest mail connection): an IMAP one is deleted
   * with its password; a Google one gives up Gmail and is deleted only when nothing else (the
   * calendar) uses it. Undefined when there was none.
   */
  async disconnect(userId: string): Promise<{ connection: ConnectionRecord; deleted: boolean } | undefined> {
    const [latest] = await this.mailConnections(userId);
    if (!latest) return undefined;
    await this.evict(latest.id);
    const factory = this.factories.get(latest.provider);
    const deleted = factory?.disconnect ? (await factory.disconnect(latest)) === 'deleted' : await this.deps.connections.remove(userId, latest.id);
    this.deps.logger.info({ userId, connectionId: latest.id, deleted }, 'mailbox disconnected');
    return { connection: latest, deleted };
  }

  /** The user's connections that are mailboxes, newest first. */
  private async mailConnections(userId: string): Promise<ConnectionRecord[]> {
    return (await this.deps.connections.list(userId))
      .filter((connection) => {
        const factory = this.factories.get(connection.provider);
        return factory !== undefined && (factory.serves?.(connection) ?? true);
      })
      .sort((left, right) => right.updatedAt.getTime() - left.updatedAt.getTime());
  }

  private imapFactory(): MailProviderFactory {
    return {
      provider: 'imap',
      open: async (connection) => {
        const settings = imapSettingsSchema.parse(connection.settings);
        const secrets = await this.deps.connections.secrets(connection, imapSecretsSchema);
        return new ImapMailProvider({
          label: connection.label,
          settings,
          password: secrets.password,
          timeoutMs: this.deps.timeoutMs,
          clock: this.deps.clock,
          ids: this.deps.ids,
          outbound: { policy: this.deps.outbound, trust: connection.operatorTrusted ? 'operator' : 'user' },
          logger: this.deps.logger.child({ connectionId: connection.id }),
        });
      },
    };
  }
}
