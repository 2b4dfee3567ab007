import { ImapFlow } from 'imapflow';
import type { Logger } from '../logging/logger.js';
import { isLoopbackAddress } from '../net/address-ranges.js';
import { pinnedLookup, type OutboundAccess, type OutboundRefusedError, type OutboundTarget } from '../net/outbound-policy.js';
import { MailError } from './mail-message.js';

/** Where an IMAP (or SMTP) server is, from a URL such as imaps://imap.fastmail.com:993. */
export interface MailServerAddress {
  host: string;
  port: number;
  /** TLS from the first byte (imaps/smtps); otherwise STARTTLS when the server offers it. */
  secure: boolean;
}

/** Reads imap://, imaps://, smtp:// and smtps:// URLs (default ports 143, 993, 587, 465). */
export function parseMailServerUrl(url: string, kind: 'imap' | 'smtp'): MailServerAddress {
  const parsed = new URL(url);
  const scheme = parsed.protocol.replace(/:$/, '').toLowerCase();
  if (scheme !== kind && scheme !== `${kind}s`) throw new MailError('invalid', `"${url}" is not an ${kind}:// or ${kind}s:// address.`);
  const secure = scheme === `${kind}s`;
  const defaultPort = kind === 'imap' ? (secure ? 993 : 143) : secure ? 465 : 587;
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: parsed.port ? Number(parsed.port) : defaultPort, secure };
}

/**
 * Whether a password may cross an unencrypted connection to this server: only when every
 * address it was resolved to is this machine (a local bridge such as Proton Mail Bridge, the
 * tests' Dovecot; reachable only when the operator allowed it). Anywhere else a plain imap://
 * or smtp:// address must upgrade with STARTTLS, or Herald does not log in.
 */
export function mayLogInUnencrypted(target: OutboundTarget): boolean {
  return target.addresses.every((entry) => isLoopbackAddress(entry.address));
}

/**
 * Checks a mail server ("The mail server for …", "The outgoing mail server for …") under
 * the outbound policy: the addresses to connect to, or a MailError('unreachable') carrying
 * the policy's refusal as its cause (nothing was contacted), or saying the name could not
 * be looked up now.
 */
export async function checkMailServer(outbound: OutboundAccess, server: MailServerAddress, description: string): Promise<OutboundTarget> {
  let checked: Awaited<ReturnType<OutboundAccess['policy']['check']>>;
  try {
    checked = await outbound.policy.check(server.host, server.port, outbound.trust);
  } catch (error) {
    throw new MailError('unreachable', `${description} (${server.host}) could not be reached. Nothing was read or sent; try again in a few minutes.`, { cause: error });
  }
  if (checked.ok) return checked.target;
  throw refusedServerError(description, server.host, checked.error);
}

function refusedServerError(description: string, host: string, refusal: OutboundRefusedError): MailError {
  return new MailError('unreachable', `${description} (${host}) cannot be used from here: ${refusal.message} Nothing was read or sent.`, { cause: refusal });
}

/** The error a server that offers no encryption gets (nothing was sent to it). */
export function noTlsError(label: string, host: string, cause: unknown): MailError {
  return new MailError('unreachable', `The mail server for ${label} (${host}) offers no encrypted connection (TLS or STARTTLS), so Herald did not send it the password. Nothing was read or sent; use the server's TLS address (imaps:// or smtps://) or a port that supports STARTTLS.`, { cause });
}

/** What an IMAP session needs. */
export interface ImapSessionOptions {
  server: MailServerAddress;
  username: string;
  password: string;
  /** Connecting, the greeting, and any one command going quiet. */
  timeoutMs: number;
  /** For messages: "Fastmail (ana@fastmail.com)". */
  label: string;
  /** The outbound policy and the connection's trust: the server is checked at every connect. */
  outbound: OutboundAccess;
  logger?: Logger | undefined;
}

const CONNECTION_LOST = new Set(['NoConnection', 'EConnectionClosed', 'ClosedAfterConnectText', 'ClosedAfterConnectTLS', 'ECONNRESET', 'EPIPE', 'ETIMEOUT', 'ETIMEDOUT', 'StateLogout', 'DownloadIncomplete']);
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'CONNECT_TIMEOUT', 'GREETING_TIMEOUT', 'UPGRADE_TIMEOUT']);

/** Whether an error means the connection went away (worth one more try on a fresh one). */
function connectionLost(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  if (code && (CONNECTION_LOST.has(code) || UNREACHABLE.has(code))) return true;
  return error instanceof Error && /connection (?:not available|closed|lost)|socket (?:closed|hang up)|unexpected close/i.test(error.message);
}

/**
 * One IMAP connection, kept open between a user's calls in a turn and reused, opened again
 * when it has dropped. `run` retries work once on a fresh connection when the connection
 * is lost under it (a server restart, a dropped link mid-fetch); a second loss, or a server
 * that cannot be reached, is a MailError('unreachable'). A refused login is
 * MailError('unauthorized') at once: retrying a wrong password only locks accounts.
 */
export class ImapSession {
  private client: ImapFlow | undefined;
  private connecting: Promise<ImapFlow> | undefined;

  constructor(private readonly options: ImapSessionOptions) {}

  /** Runs `work` on a live connection, retried once on a new connection if this one is lost. */
  async run<T>(work: (client: ImapFlow) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await work(await this.connected());
      } catch (error) {
        if (error instanceof MailError) throw error;
        if (!connectionLost(error)) throw this.serverError(error);
        await this.drop();
        if (attempt >= 2) {
          throw new MailError('unreachable', `The connection to the mail server for ${this.options.label} kept dropping (tried twice). Nothing was changed; try again in a few minutes.`, { cause: error });
        }
        this.options.logger?.warn({ code: (error as { code?: string }).code, attempt }, 'IMAP connection lost; trying once more on a new connection');
      }
    }
  }

  /** Logs in (only), to check an account before it is saved. */
  async check(): Promise<void> {
    await this.connected();
  }

  private connected(): Promise<ImapFlow> {
    if (this.client?.usable) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<ImapFlow> {
    const { server, username, password, timeoutMs } = this.options;
    const target = await checkMailServer(this.options.outbound, server, `The mail server for ${this.options.label}`);
    const client = new ImapFlow({
      // The checked name (SNI, the certificate) at the checked addresses: DNS is not asked again.
      host: target.host,
      port: server.port,
      secure: server.secure,
      tls: { lookup: pinnedLookup(target.addresses) },
      // Plain imap:// must upgrade to TLS unless the server is on this machine.
      ...(server.secure || mayLogInUnencrypted(target) ? {} : { doSTARTTLS: true }),
      auth: { user: username, pass: password },
      logger: false,
      disableAutoIdle: true,
      disableBinary: true,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: Math.max(timeoutMs * 3, 30_000),
      clientInfo: { name: 'Herald' },
    });
    // A dropped connection emits 'error'; the next call notices the client is unusable.
    client.on('error', (error: unknown) => this.options.logger?.debug({ code: (error as { code?: string }).code }, 'IMAP connection error'));
    try {
      await client.connect();
    } catch (error) {
      client.close();
      if ((error as { authenticationFailed?: boolean }).authenticationFailed) {
        throw new MailError('unauthorized', `The mail server refused the username or password for ${this.options.label}. Nothing was read or sent. The saved password needs replacing: connect the mailbox again (an app password where the provider uses them).`, { cause: error });
      }
      if ((error as { tlsFailed?: boolean }).tlsFailed) throw noTlsError(this.options.label, server.host, error);
      const code = (error as { code?: string }).code;
      if (code && UNREACHABLE.has(code)) {
        throw new MailError('unreachable', `The mail server for ${this.options.label} (${server.host}) could not be reached. Nothing was read or sent; try again in a few minutes.`, { cause: error });
      }
      throw Object.assign(error instanceof Error ? error : new Error(String(error)), { code: code ?? 'NoConnection' });
    }
    this.client = client;
    return client;
  }

  private serverError(error: unknown): MailError {
    const text = (error as { responseText?: string }).responseText ?? (error instanceof Error ? error.message : String(error));
    return new MailError('server', `The mail server for ${this.options.label} answered with an error (${text.slice(0, 200)}). Nothing was changed.`, { cause: error });
  }

  private async drop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    client?.close();
  }

  /** Logs out (or just closes when the connection is already gone). */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    if (client.usable) await client.logout().catch(() => client.close());
    else client.close();
  }
}
