import { emailAgent } from '../agents/email/email-agent.js';
import { EMAIL_CONNECT_PURPOSE } from '../agents/email/email-tools.js';
import type { PeopleFinder } from '../agents/contacts/people-by-name.js';
import type { Config } from '../config/config.js';
import type { ConnectLinks } from '../connections/connect-links.js';
import type { ConnectService } from '../connections/connect-service.js';
import type { ConnectionRecord, ConnectionStore } from '../connections/connection-store.js';
import type { GoogleAccounts } from '../connections/google-accounts.js';
import type { Logger } from '../logging/logger.js';
import type { OutboundPolicy } from '../net/outbound-policy.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { ToolDefinition } from '../tools/tool.js';
import { emailConnectMethods } from '../email/email-connect-methods.js';
import { EmailService } from '../email/email-service.js';
import { CHOOSE_EMAIL_PURPOSE, GOOGLE_EMAIL_PURPOSE, gmailConnectMethods } from '../email/gmail-connect-methods.js';
import { disconnectGmail, gmailFactory } from '../email/gmail-mailbox.js';

/**
 * Email, wired beside the calendar on the same connection machinery (its connection store,
 * connect links and connect pages): the email service (IMAP, and Gmail on the user's Google
 * connection when a Google client is configured), the connect pages (`imap-email`; with
 * Google, `google-email` and the `email` page choosing between them), and email-agent.
 */
export function createEmailModule(deps: {
  config: Config;
  connections: ConnectionStore;
  links: ConnectLinks;
  connect: ConnectService;
  google?: GoogleAccounts | undefined;
  outbound: OutboundPolicy;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** find_contacts, so "email Dana" resolves to her address. */
  contactLookup?: ToolDefinition | undefined;
  /** The user's contacts, so send_email takes people by name (two Danas: Herald asks which one). */
  people?: PeopleFinder | undefined;
}) {
  const { google } = deps;
  const timeoutMs = deps.config.connections.timeoutMs;
  const emails = new EmailService({ connections: deps.connections, clock: deps.clock, ids: deps.ids, timeoutMs, outbound: deps.outbound, logger: deps.logger.child({ component: 'email' }) });
  deps.connect.add(emailConnectMethods({ emails }));
  if (google) {
    emails.addFactory({ ...gmailFactory({ google, timeoutMs, clock: deps.clock, ids: deps.ids }), keepsConnectionOnRefusal: true, disconnect: (connection) => disconnectGmail(google, connection) });
    deps.connect.add(gmailConnectMethods({ links: deps.links, google, otherMailboxPurpose: EMAIL_CONNECT_PURPOSE, logger: deps.logger.child({ component: 'connect' }) }));
  }
  // With Google: a new mailbox chooses Gmail or another one; a Gmail mailbox reconnects straight through Google.
  const connectPurpose = (connection?: ConnectionRecord) => (!google ? EMAIL_CONNECT_PURPOSE : !connection ? CHOOSE_EMAIL_PURPOSE : connection.provider === 'google' ? GOOGLE_EMAIL_PURPOSE : EMAIL_CONNECT_PURPOSE);
  return { emails, agent: emailAgent({ emails, links: deps.links, connectPurpose, people: deps.people }, deps.contactLookup) };
}

/** The wired email module. */
export type EmailModule = ReturnType<typeof createEmailModule>;
