import { emailAgent } from '../agents/email/email-agent.js';
import type { Config } from '../config/config.js';
import type { ConnectLinks } from '../connections/connect-links.js';
import type { ConnectService } from '../connections/connect-service.js';
import type { ConnectionStore } from '../connections/connection-store.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import { emailConnectMethods } from './email-connect-methods.js';
import { EmailService } from './email-service.js';

/**
 * Email, wired beside the calendar on the same connection machinery (its connection store,
 * connect links and connect pages): the email service (IMAP here; Gmail adds its provider
 * factory with `emails.addFactory`), the `imap-email` connect page, and email-agent.
 */
export function createEmailModule(deps: { config: Config; connections: ConnectionStore; links: ConnectLinks; connect: ConnectService; clock: Clock; ids: IdGenerator; logger: Logger }) {
  const emails = new EmailService({ connections: deps.connections, clock: deps.clock, ids: deps.ids, timeoutMs: deps.config.connections.timeoutMs, logger: deps.logger.child({ component: 'email' }) });
  deps.connect.add(emailConnectMethods({ emails }));
  return { emails, agent: emailAgent({ emails, links: deps.links }) };
}

/** The wired email module. */
export type EmailModule = ReturnType<typeof createEmailModule>;
