import type { Config } from '../config/config.js';
import { ConnectLinks } from '../connections/connect-links.js';
import { ConnectService } from '../connections/connect-service.js';
import { ConnectionStore } from '../connections/connection-store.js';
import { resolveEncryptionKey } from '../connections/encryption-key.js';
import { GoogleAccounts } from '../connections/google-accounts.js';
import { SecretBox } from '../connections/secret-box.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { OutboundPolicy } from '../net/outbound-policy.js';
import type { Logger } from '../logging/logger.js';
import type { ReminderService } from '../reminders/reminder-service.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { ToolDefinition } from '../tools/tool.js';
import { calendarAgent } from '../agents/calendar/calendar-agent.js';
import type { PeopleFinder } from '../agents/contacts/people-by-name.js';
import { calendarConnectMethods, type ServerContacts } from '../calendar/calendar-connect-methods.js';
import { CalendarFeed } from '../calendar/calendar-feed.js';
import { CalendarService } from '../calendar/calendar-service.js';
import { EventReminders } from '../calendar/event-reminders.js';
import type { PageService } from '../pages/page-service.js';
import { bulkPage } from '../pages/bulk-page.js';
import { withoutTrailingSlashes } from '../shared/text-ends.js';

/**
 * The calendar and the connection machinery it stands on, wired together: the secret box
 * (HERALD_ENCRYPTION_KEY), connections, connect links and pages, Google accounts, the
 * calendar service, its feed and calendar-agent. Email (next) adds its connect methods and
 * agent beside these, on the same box, store and links.
 */
export async function createCalendarModule(deps: {
  config: Config;
  prisma: PrismaClient;
  reminders: ReminderService;
  outbound: OutboundPolicy;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  pages?: PageService | undefined;
  /** find_contacts, so "invite Dana" resolves to her address. */
  contactLookup?: ToolDefinition | undefined;
  /** The user's contacts, so an event can invite people by name (two Danas: Herald asks which one). */
  people?: PeopleFinder | undefined;
  /** The same server's contacts, offered on the CalDAV connect page (read when the form is sent: wired after this module). */
  serverContacts?: (() => ServerContacts | undefined) | undefined;
}) {
  const { config, prisma, clock, ids, logger, outbound } = deps;
  const box = new SecretBox(await resolveEncryptionKey(config.connections.encryptionKey, config.database.dataDir, logger));
  const connections = new ConnectionStore(prisma, box, clock);
  const links = new ConnectLinks(prisma, box, clock, { ttlMinutes: config.connections.linkTtlMinutes, publicBaseUrl: config.http.linkBaseUrl });
  const base = withoutTrailingSlashes(config.http.linkBaseUrl);
  const google = config.connections.google ? new GoogleAccounts(config.connections.google, `${base}/oauth/google/callback`, connections, logger.child({ component: 'google' })) : undefined;
  const calendars = new CalendarService({ prisma, connections, google, clock, ids, timeoutMs: config.connections.timeoutMs, outbound, logger: logger.child({ component: 'calendar' }) });
  const feed = new CalendarFeed(prisma, box, clock, config.http.linkBaseUrl);
  const eventReminders = new EventReminders(prisma, deps.reminders);
  const connect = new ConnectService(links, calendarConnectMethods({ calendars, links, google, logger: logger.child({ component: 'connect' }), contacts: deps.serverContacts }), logger.child({ component: 'connect' }));
  return { box, connections, links, google, calendars, feed, eventReminders, connect, agent: calendarAgent({ calendars, eventReminders, links, feed, people: deps.people, page: deps.pages ? bulkPage(deps.pages) : undefined }, deps.contactLookup) };
}

/** The wired calendar module. */
export type CalendarModule = Awaited<ReturnType<typeof createCalendarModule>>;
