import type { PrismaClient } from '../db/prisma-types.js';
import type { ConnectionRecord, ConnectionStore } from '../connections/connection-store.js';
import { GoogleAccessRevokedError, type GoogleAccounts } from '../connections/google-accounts.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import { createOutboundHttp } from '../net/outbound-fetch.js';
import type { OutboundPolicy, OutboundTrust } from '../net/outbound-policy.js';
import { BuiltinCalendarProvider } from './builtin-provider.js';
import { checkCaldavAccount, type CaldavCheck } from './caldav-discovery.js';
import { CaldavCalendarProvider, caldavSecretsSchema, caldavSettingsSchema } from './caldav-provider.js';
import { CalendarError } from './calendar-event.js';
import type { CalendarProvider } from './calendar-provider.js';
import { GoogleCalendarProvider } from './google-provider.js';

/** The Google scopes the calendar uses (what its consent asks for, and what disconnecting gives up). */
const GOOGLE_CALENDAR_SCOPES = ['https://www.googleapis.com/auth/calendar.events', 'https://www.googleapis.com/auth/calendar'];

/** The user's calendar, and the key its event reminders are filed under ("builtin", or the connection's id). */
export interface UserCalendar {
  provider: CalendarProvider;
  key: string;
  connection?: ConnectionRecord | undefined;
}

/** What the calendar service needs. */
export interface CalendarServiceDependencies {
  prisma: PrismaClient;
  connections: ConnectionStore;
  /** Absent when Google is not configured (GOOGLE_CLIENT_ID unset). */
  google?: GoogleAccounts | undefined;
  clock: Clock;
  ids: IdGenerator;
  /** One request to a CalDAV server or Google. */
  timeoutMs: number;
  /** Which addresses CalDAV servers may be at (src/net). */
  outbound: OutboundPolicy;
  logger: Logger;
}

/**
 * Which calendar a user has: their connected CalDAV or Google calendar when they chose one,
 * else Herald's built-in calendar (everyone has it). One is active at a time; connecting a
 * calendar makes it the active one, disconnecting removes its credentials and falls back
 * to the built-in calendar. A Google connection can also serve the user's mail: then the
 * calendar only lets go of it (its calendar scope), and it is deleted once nothing uses it.
 */
export class CalendarService {
  constructor(private readonly deps: CalendarServiceDependencies) {}

  /** The user's active calendar. */
  async calendarOf(userId: string): Promise<UserCalendar> {
    const settings = await this.deps.prisma.calendarSettings.findUnique({ where: { userId }, include: { connection: true } });
    const connection = settings?.connection ? await this.deps.connections.find(userId, settings.connection.id) : undefined;
    if (!connection) return { provider: new BuiltinCalendarProvider(this.deps.prisma, userId, this.deps.clock, this.deps.ids), key: 'builtin' };
    return { provider: this.providerFor(connection), key: connection.id, connection };
  }

  /** A provider for a connection (also for checking one before it is used). */
  providerFor(connection: ConnectionRecord): CalendarProvider {
    if (connection.provider === 'google') {
      if (!this.deps.google) throw new CalendarError('unauthorized', 'Google Calendar is not set up on this Herald (the operator has not configured a Google client). Nothing was changed.');
      if (connection.status === 'needs_reconnect') throw new GoogleAccessRevokedError(connection.label);
      return new GoogleCalendarProvider(connection, this.deps.google, this.deps.timeoutMs);
    }
    if (connection.provider === 'caldav') return new LazyCaldavProvider(connection, this.deps);
    throw new CalendarError('invalid', `A ${connection.provider} connection is not a calendar.`);
  }

  /** Makes the connection the user's calendar (a Google calendar it replaces is let go of, as when disconnected). */
  async useConnection(userId: string, connectionId: string): Promise<void> {
    const now = this.deps.clock.now();
    const previous = (await this.calendarOf(userId)).connection;
    await this.deps.prisma.calendarSettings.upsert({ where: { userId }, create: { userId, connectionId, updatedAt: now }, update: { connectionId, updatedAt: now } });
    if (previous && previous.id !== connectionId && previous.provider === 'google') await this.release(previous);
    this.deps.logger.info({ userId, connectionId }, 'calendar connected');
  }

  /**
   * Stops using the active calendar's connection; the built-in calendar is the user's
   * calendar again. A CalDAV connection is deleted with its password. A Google one gives up
   * its calendar scope and is deleted (Herald's grant revoked) only when nothing else (the
   * user's Gmail) uses it. Undefined when the built-in calendar was already in use.
   */
  async disconnect(userId: string): Promise<{ connection: ConnectionRecord; deleted: boolean } | undefined> {
    const settings = await this.deps.prisma.calendarSettings.findUnique({ where: { userId } });
    const connection = settings?.connectionId ? await this.deps.connections.find(userId, settings.connectionId) : undefined;
    if (!connection) return undefined;
    await this.deps.prisma.calendarSettings.update({ where: { userId }, data: { connectionId: null, updatedAt: this.deps.clock.now() } });
    await this.deps.prisma.calendarEventReminder.deleteMany({ where: { userId, calendarKey: connection.id } });
    const deleted = connection.provider === 'google' ? (await this.release(connection)) === 'deleted' : await this.deps.connections.remove(userId, connection.id);
    this.deps.logger.info({ userId, connectionId: connection.id, deleted }, 'calendar disconnected');
    return { connection, deleted };
  }

  /** The calendar no longer uses this Google connection. */
  private async release(connection: ConnectionRecord): Promise<'kept' | 'deleted'> {
    if (this.deps.google) return this.deps.google.release(connection, GOOGLE_CALENDAR_SCOPES);
    // Without a Google client nothing else can use it either.
    await this.deps.connections.remove(connection.userId, connection.id);
    return 'deleted';
  }

  /**
   * Checks a CalDAV account against its server (discovery, sign-in, its calendars) and only
   * then saves it, password sealed, as the user's calendar. Nothing is stored when the
   * check fails; the answer says what to fix, by field. A user (the default) reaches only
   * public addresses and CONNECT_ALLOWED_HOSTS, over https unless the operator allowed the
   * host; the operator (`trust: 'operator'`) reaches anything, and the connection keeps
   * that trust at every later use.
   */
  async connectCaldav(
    userId: string,
    input: { serverUrl: string; username: string; password: string; calendar?: string | undefined },
    trust: OutboundTrust = 'user',
  ): Promise<{ ok: true; connection: ConnectionRecord; calendarName: string } | Extract<CaldavCheck, { ok: false }>> {
    const checked = await checkCaldavAccount({ ...input, http: createOutboundHttp(this.deps.outbound, { trust, timeoutMs: this.deps.timeoutMs }) }, input.calendar);
    if (!checked.ok) return checked;
    const chosen = checked.calendars[0]!;
    const host = new URL(input.serverUrl).hostname;
    const service = /icloud\.com$/i.test(host) ? 'iCloud' : /fastmail/i.test(host) ? 'Fastmail' : host;
    const connection = await this.deps.connections.save(userId, {
      provider: 'caldav',
      account: `${input.username}@${host}`,
      label: `${service} (${input.username})`,
      settings: { serverUrl: input.serverUrl, username: input.username, calendarUrl: chosen.url, calendarName: chosen.name },
      secrets: { password: input.password },
      operatorTrusted: trust === 'operator',
    });
    await this.useConnection(userId, connection.id);
    return { ok: true, connection, calendarName: chosen.name };
  }

  /** Whether Google accounts can be connected here. */
  get googleConfigured(): boolean {
    return this.deps.google !== undefined;
  }
}

/**
 * A CalDAV provider whose password is only opened when the calendar is used (a wrong
 * HERALD_ENCRYPTION_KEY is then a clear error for that call, not a crash elsewhere).
 */
class LazyCaldavProvider implements CalendarProvider {
  readonly kind = 'caldav' as const;
  readonly label: string;
  private provider: Promise<CalendarProvider> | undefined;

  constructor(
    private readonly connection: ConnectionRecord,
    private readonly deps: CalendarServiceDependencies,
  ) {
    this.label = connection.label;
  }

  private open(): Promise<CalendarProvider> {
    this.provider ??= (async () => {
      const settings = caldavSettingsSchema.parse(this.connection.settings);
      const secrets = await this.deps.connections.secrets(this.connection, caldavSecretsSchema);
      return new CaldavCalendarProvider(
        {
          label: this.connection.label,
          calendarUrl: settings.calendarUrl,
          username: settings.username,
          password: secrets.password,
          http: createOutboundHttp(this.deps.outbound, { trust: this.connection.operatorTrusted ? 'operator' : 'user', timeoutMs: this.deps.timeoutMs }),
        },
        this.deps.clock,
        this.deps.ids,
      );
    })();
    return this.provider;
  }

  listEvents: CalendarProvider['listEvents'] = async (...args) => (await this.open()).listEvents(...args);
  getEvent: CalendarProvider['getEvent'] = async (...args) => (await this.open()).getEvent(...args);
  createEvent: CalendarProvider['createEvent'] = async (...args) => (await this.open()).createEvent(...args);
  updateEvent: CalendarProvider['updateEvent'] = async (...args) => (await this.open()).updateEvent(...args);
  deleteEvent: CalendarProvider['deleteEvent'] = async (...args) => (await this.open()).deleteEvent(...args);
}
