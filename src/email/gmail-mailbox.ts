import type { ConnectionRecord } from '../connections/connection-store.js';
import type { GoogleAccounts } from '../connections/google-accounts.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import { GMAIL_READ_SCOPE, GMAIL_SCOPES, GmailProvider } from './gmail-provider.js';
import type { MailProvider } from './mail-provider.js';

/** What Gmail mailboxes need. */
export interface GmailMailboxDependencies {
  google: GoogleAccounts;
  /** One request to Google. */
  timeoutMs: number;
  clock: Clock;
  ids: IdGenerator;
}

/** True when a connection is a Google account the user connected their mail with (it may serve the calendar too). */
export function servesGmail(connection: ConnectionRecord): boolean {
  return connection.provider === 'google' && connection.scopes.includes(GMAIL_READ_SCOPE);
}

/**
 * Gmail as a mail provider factory for the email service: a Google connection is a mailbox
 * only when the user connected their mail with it (its scopes include Gmail's); one made
 * for the calendar alone is not.
 */
export function gmailFactory(deps: GmailMailboxDependencies): { provider: 'google'; serves(connection: ConnectionRecord): boolean; open(connection: ConnectionRecord): Promise<MailProvider | undefined> } {
  return {
    provider: 'google',
    serves: servesGmail,
    open: async (connection) => (servesGmail(connection) ? new GmailProvider(connection, { accounts: deps.google, timeoutMs: deps.timeoutMs, clock: deps.clock, ids: deps.ids }) : undefined),
  };
}

/**
 * "Disconnect my email" for a Gmail mailbox: the connection gives up Gmail's scopes, and is
 * deleted (Herald's grant revoked at Google) only when nothing else (the calendar) uses it.
 */
export async function disconnectGmail(google: GoogleAccounts, connection: ConnectionRecord): Promise<'kept' | 'deleted'> {
  return google.release(connection, GMAIL_SCOPES);
}
