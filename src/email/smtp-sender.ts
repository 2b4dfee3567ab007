import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { MailError, type OutgoingMail } from './mail-message.js';
import type { OutboundAccess, OutboundTarget } from '../net/outbound-policy.js';
import { checkMailServer, mayLogInUnencrypted, noTlsError, type MailServerAddress } from './imap-session.js';

/** What sending through an SMTP submission server needs. */
export interface SmtpSenderOptions {
  server: MailServerAddress;
  username: string;
  password: string;
  /** The From address (the user's own). */
  address: string;
  fromName?: string | undefined;
  label: string;
  timeoutMs: number;
  /** The outbound policy and the connection's trust: the server is checked before every connection. */
  outbound: OutboundAccess;
}

/** A composed mail: the exact bytes sent, and the ids that thread it. */
export interface ComposedMail {
  raw: Buffer;
  messageId: string;
  recipients: string[];
}

/**
 * Builds the RFC 5322 message once (nodemailer's MailComposer): the same bytes go to the
 * SMTP server and into the Sent folder. Replies carry In-Reply-To and References, so the
 * recipient's mail program threads them.
 */
export async function composeMail(mail: OutgoingMail, from: { address: string; name?: string | undefined }, messageId: string, date: Date): Promise<ComposedMail> {
  const composer = new MailComposer({
    from: from.name ? { name: from.name, address: from.address } : from.address,
    to: mail.to,
    cc: mail.cc.length > 0 ? mail.cc : undefined,
    subject: mail.subject,
    text: mail.text,
    messageId,
    date,
    inReplyTo: mail.inReplyTo,
    references: mail.references && mail.references.length > 0 ? mail.references : undefined,
    headers: { 'X-Mailer': 'Herald' },
  });
  const raw = await composer.compile().build();
  return { raw, messageId, recipients: [...mail.to, ...mail.cc] };
}

/**
 * A nodemailer transport for the account's server, logging in with its credentials, to
 * the address the outbound policy checked: nodemailer is given that IP (it then asks DNS
 * nothing) and the host name for TLS (SNI and the certificate).
 */
function smtpTransport(options: Omit<SmtpSenderOptions, 'address'>, target: OutboundTarget, socketTimeoutMs?: number) {
  return nodemailer.createTransport({
    host: target.addresses[0]!.address,
    servername: target.host,
    port: options.server.port,
    secure: options.server.secure,
    // Plain smtp:// must upgrade with STARTTLS unless the server is on this machine.
    requireTLS: !options.server.secure && !mayLogInUnencrypted(target),
    auth: { user: options.username, pass: options.password },
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    ...(socketTimeoutMs === undefined ? {} : { socketTimeout: socketTimeoutMs }),
    logger: false,
  });
}

/** The checked address of the account's SMTP server; a refusal is a MailError (nothing sent). */
function checkedSmtpServer(options: Omit<SmtpSenderOptions, 'address'>): Promise<OutboundTarget> {
  return checkMailServer(options.outbound, options.server, `The outgoing mail server for ${options.label}`);
}

/**
 * Sends a composed mail through SMTP (nodemailer) with the user's credentials. Failures are
 * MailErrors saying whether anything went out: a refused login ('unauthorized'), a server
 * that cannot be reached ('unreachable'), recipients the server refused
 * ('rejected_recipient', naming them, when every recipient was refused). When only some
 * were refused the mail did go to the others: the answer lists both, for the caller to say.
 */
export async function sendComposed(options: SmtpSenderOptions, composed: ComposedMail): Promise<{ accepted: string[]; rejected: string[]; reply: string }> {
  // A whole message may take longer to go out than a greeting: a longer socket timeout.
  const transport = smtpTransport(options, await checkedSmtpServer(options), Math.max(options.timeoutMs * 3, 30_000));
  try {
    const info = await transport.sendMail({ envelope: { from: options.address, to: composed.recipients }, raw: composed.raw });
    const addressOf = (entry: unknown) => (typeof entry === 'string' ? entry : (entry as { address: string }).address);
    return { accepted: (info.accepted ?? []).map(addressOf), rejected: (info.rejected ?? []).map(addressOf), reply: serverReply(info) };
  } catch (error) {
    throw smtpFailure(error, options);
  } finally {
    transport.close();
  }
}

/** Logs in to the SMTP server only (checking an account before it is saved). */
export async function verifySmtp(options: Omit<SmtpSenderOptions, 'address'>): Promise<void> {
  const transport = smtpTransport(options, await checkedSmtpServer(options));
  try {
    await transport.verify();
  } catch (error) {
    throw smtpFailure(error, options);
  } finally {
    transport.close();
  }
}

function serverReply(info: unknown): string {
  const errors = (info as { rejectedErrors?: Array<{ response?: string }> }).rejectedErrors ?? [];
  return errors.map((error) => error.response).filter(Boolean).join('; ').slice(0, 200) || 'refused';
}

function smtpFailure(error: unknown, options: Pick<SmtpSenderOptions, 'label' | 'server'>): MailError {
  const failure = error as { code?: string; responseCode?: number; response?: string; rejected?: Array<string | { address: string }>; rejectedErrors?: Array<{ response?: string }> };
  const code = failure.code ?? '';
  if (code === 'ETLS' || (code === 'ESOCKET' && /STARTTLS/i.test(error instanceof Error ? error.message : ''))) return noTlsError(options.label, options.server.host, error);
  if (code === 'EAUTH' || failure.responseCode === 535) {
    return new MailError('unauthorized', `The outgoing mail server for ${options.label} refused the username or password. Nothing was sent. The saved password needs replacing: connect the mailbox again.`, { cause: error });
  }
  if (code === 'EENVELOPE' && failure.rejected && failure.rejected.length > 0) {
    const rejected = failure.rejected.map((entry) => (typeof entry === 'string' ? entry : entry.address));
    return new MailError('rejected_recipient', `The mail server refused ${rejected.join(', ')} (${serverReply(failure)}). Nothing was sent. Check that address.`, { cause: error, recipients: rejected });
  }
  if (['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ENOTFOUND', 'EGREETING'].includes(code)) {
    return new MailError('unreachable', `The outgoing mail server for ${options.label} (${options.server.host}) could not be reached. Nothing was sent; try again in a few minutes.`, { cause: error });
  }
  return new MailError('server', `The outgoing mail server for ${options.label} refused the mail (${(failure.response ?? (error instanceof Error ? error.message : String(error))).slice(0, 200)}). Nothing was sent.`, { cause: error });
}
