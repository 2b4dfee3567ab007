import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { calendarConnectMethods } from '../../src/calendar/calendar-connect-methods.js';
import { CalendarService } from '../../src/calendar/calendar-service.js';
import { ConnectLinks } from '../../src/connections/connect-links.js';
import { defineConnectMethod } from '../../src/connections/connect-method.js';
import { ConnectService, type ConnectResponse } from '../../src/connections/connect-service.js';
import { ConnectionStore } from '../../src/connections/connection-store.js';
import { GoogleAccounts, googleSecretsSchema } from '../../src/connections/google-accounts.js';
import { SecretBox } from '../../src/connections/secret-box.js';
import { CHOOSE_EMAIL_PURPOSE, GOOGLE_EMAIL_PURPOSE, gmailConnectMethods } from '../../src/email/gmail-connect-methods.js';
import { GMAIL_READ_SCOPE, GMAIL_SCOPES, GMAIL_SEND_SCOPE, GmailProvider } from '../../src/email/gmail-provider.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { systemClock } from '../../src/shared/clock.js';
import { SequentialIds } from '../../src/shared/ids.js';
import { FakeGoogleServer } from '../fakes/fake-google-server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { loopbackPolicy } from '../helpers/outbound.js';
import { CookieJar } from '../helpers/browser-cookies.js';

/**
 * Connecting Gmail on the Google connection the calendar may already have (incremental
 * consent: the consent page asks for Gmail's scopes only), choosing Google or another
 * mailbox, and letting go: the calendar or the mail gives up its scope, and the connection
 * (with Herald's grant at Google) goes only when nothing uses it.
 */

const CALENDAR_SCOPE = 'https://www.googleapis.com/auth/calendar.events';
const BASE = 'https://herald.test';

describe('Gmail on the shared Google connection', () => {
  let database: TestDatabase;
  let google: FakeGoogleServer;
  let store: ConnectionStore;
  let links: ConnectLinks;
  let accounts: GoogleAccounts;
  let calendars: CalendarService;
  let connect: ConnectService;
  let userId: string;
  let email: string;
  let counter = 0;

  beforeAll(async () => {
    [database, google] = await Promise.all([createTestDatabase(4), FakeGoogleServer.start()]);
    const box = new SecretBox(Buffer.alloc(32, 9));
    const logger = createSilentLogger();
    store = new ConnectionStore(database.prisma, box, systemClock);
    links = new ConnectLinks(database.prisma, box, systemClock, { ttlMinutes: 15, publicBaseUrl: BASE });
    const env = google.env();
    accounts = new GoogleAccounts(
      { clientId: env.GOOGLE_CLIENT_ID!, clientSecret: env.GOOGLE_CLIENT_SECRET!, authUrl: env.GOOGLE_OAUTH_AUTH_URL!, tokenUrl: env.GOOGLE_OAUTH_TOKEN_URL!, revokeUrl: env.GOOGLE_OAUTH_REVOKE_URL!, apiBaseUrl: env.GOOGLE_API_BASE_URL! },
      `${BASE}/oauth/google/callback`,
      store,
      logger,
    );
    calendars = new CalendarService({ prisma: database.prisma, connections: store, google: accounts, clock: systemClock, ids: new SequentialIds(), timeoutMs: 5000, outbound: loopbackPolicy(), logger });
    // The other mailbox's form is the IMAP engineer's; a stand-in with the same purpose shows the hand-over.
    const otherMailbox = defineConnectMethod({ purpose: 'imap-email', title: 'Connect your mailbox', intro: 'Server and app password.', form: { title: 'Mailbox', submitLabel: 'Connect', schema: z.object({}), fields: [] }, submit: async () => ({ kind: 'done', message: 'ok' }) });
    connect = new ConnectService(links, [...calendarConnectMethods({ calendars, links, google: accounts, logger }), ...gmailConnectMethods({ links, google: accounts, otherMailboxPurpose: 'imap-email', logger }), otherMailbox], logger);
  });
  afterAll(async () => {
    await google.close();
    await database.drop();
  });
  beforeEach(async () => {
    browser = new CookieJar();
    counter += 1;
    email = `person${counter}@gmail.com`;
    google.consentAs = email;
    google.declineScopes = [];
    userId = (await database.prisma.user.create({ data: { phone: `+1415555${String(6100 + counter)}`, timezone: 'Europe/London', updatedAt: new Date() } })).id;
  });

  const tokenOf = (url: string) => url.slice(`${BASE}/connect/`.length);
  const document = (response: ConnectResponse) => {
    if (response.kind !== 'document') throw new Error(`expected a page, got a redirect to ${response.url}`);
    return response;
  };
  /** This test's browser: the consent cookie a redirect sets comes back to the callback. */
  let browser = new CookieJar();
  const redirect = (response: ConnectResponse) => {
    if (response.kind !== 'redirect') throw new Error(`expected a redirect, got HTTP ${response.status}: ${response.document.html.slice(0, 300)}`);
    for (const cookie of response.cookies ?? []) browser.take({ 'set-cookie': `${cookie.name}=${cookie.value}; Path=${cookie.path}; Max-Age=${cookie.maxAgeSeconds}` });
    return response.url;
  };

  /** Opens the link's page and posts its form with `values`. */
  async function submit(url: string, values: Record<string, string> = {}): Promise<ConnectResponse> {
    const html = document(await connect.open(tokenOf(url))).document.html;
    const control = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
    return connect.submit(tokenOf(url), { _csrf: control('_csrf'), _revision: control('_revision'), _section: control('_section'), ...values });
  }

  /** Follows Google's consent page (the fake approves as `email`) back to Herald's callback. */
  async function consent(consentUrl: string): Promise<{ status: number; html: string }> {
    const approved = await fetch(consentUrl, { redirect: 'manual' });
    const callback = new URL(approved.headers.get('location')!);
    const finished = document(await connect.oauthCallback(Object.fromEntries(callback.searchParams), browser.all()));
    return { status: finished.status, html: finished.document.html };
  }

  async function connectCalendar(): Promise<string> {
    const { url } = await links.issue(userId, 'google-calendar');
    expect((await consent(redirect(await submit(url)))).status).toBe(200);
    return (await calendars.calendarOf(userId)).connection!.id;
  }

  it('a calendar-only Google user connects email: consent asks for Gmail only, and the same connection gains it', async () => {
    const connectionId = await connectCalendar();
    expect((await store.find(userId, connectionId))!.scopes.sort()).toEqual(['email', 'openid', CALENDAR_SCOPE].sort());

    const { url } = await links.issue(userId, CHOOSE_EMAIL_PURPOSE);
    const chooser = document(await connect.open(tokenOf(url)));
    expect(chooser.document.html).toContain('Gmail or Google Workspace');
    expect(chooser.document.html).toContain('Another mailbox');
    const consentUrl = new URL(redirect(await submit(url, { service: 'google' })));
    expect(consentUrl.searchParams.get('scope')!.split(' ')).toEqual(['openid', 'email', ...GMAIL_SCOPES]);
    expect(consentUrl.searchParams.get('include_granted_scopes')).toBe('true');
    expect(consentUrl.searchParams.get('code_challenge_method')).toBe('S256');

    const finished = await consent(consentUrl.toString());
    expect(finished.status).toBe(200);
    expect(finished.html).toContain(`Connected Google (${email})`);
    const connections = (await store.list(userId)).filter((connection) => connection.provider === 'google');
    expect(connections.map((connection) => connection.id)).toEqual([connectionId]);
    expect(connections[0]!.scopes).toEqual(expect.arrayContaining([CALENDAR_SCOPE, GMAIL_READ_SCOPE, GMAIL_SEND_SCOPE]));
    // The calendar still works through it, and so does Gmail (one refresh token for both).
    expect((await calendars.calendarOf(userId)).connection!.id).toBe(connectionId);
    const gmail = new GmailProvider(connections[0]!, { accounts, timeoutMs: 5000, clock: systemClock, ids: new SequentialIds() });
    expect(await gmail.search({})).toEqual({ total: 0, messages: [] });
    // The link is used up.
    expect(document(await connect.open(tokenOf(url))).status).toBe(410);
  });

  it('choosing another mailbox hands the same link on to that mailbox’s form', async () => {
    const { url } = await links.issue(userId, CHOOSE_EMAIL_PURPOSE);
    expect(redirect(await submit(url, { service: 'other' }))).toBe(url);
    const form = document(await connect.open(tokenOf(url)));
    expect(form.status).toBe(200);
    expect(form.document.html).toContain('Connect your mailbox');
  });

  it('choosing nothing valid is refused on the form, and the link still works', async () => {
    const { url } = await links.issue(userId, CHOOSE_EMAIL_PURPOSE);
    const refused = document(await submit(url, { service: 'yahoo' }));
    expect(refused.status).toBe(422);
    expect(refused.document.html).toContain('Choose where your mail is.');
    expect(document(await connect.open(tokenOf(url))).status).toBe(200);
  });

  it('sending unticked on Google’s page: connected to read only, and told so', async () => {
    google.declineScopes = [GMAIL_SEND_SCOPE];
    const { url } = await links.issue(userId, GOOGLE_EMAIL_PURPOSE);
    const finished = await consent(redirect(await submit(url)));
    expect(finished.html).toContain('Sending was not allowed');
    const [connection] = await store.list(userId);
    expect(connection!.scopes).toContain(GMAIL_READ_SCOPE);
    expect(connection!.scopes).not.toContain(GMAIL_SEND_SCOPE);
  });

  it('reading unticked: not connected for mail, the form says why', async () => {
    google.declineScopes = [GMAIL_READ_SCOPE];
    const { url } = await links.issue(userId, GOOGLE_EMAIL_PURPOSE);
    const finished = await consent(redirect(await submit(url)));
    expect(finished.status).toBe(422);
    expect(finished.html).toContain('Google did not give Herald access to your mail');
  });

  it('"disconnect my calendar" while Gmail uses the account: only the calendar lets go; disconnecting email then deletes it and revokes the grant', async () => {
    const connectionId = await connectCalendar();
    const { url } = await links.issue(userId, GOOGLE_EMAIL_PURPOSE);
    await consent(redirect(await submit(url)));
    const { refreshToken } = await store.secrets({ id: connectionId }, googleSecretsSchema);

    const disconnected = await calendars.disconnect(userId);
    expect(disconnected).toMatchObject({ connection: { id: connectionId }, deleted: false });
    expect((await calendars.calendarOf(userId)).key).toBe('builtin');
    const kept = (await store.find(userId, connectionId))!;
    expect(kept.scopes).not.toContain(CALENDAR_SCOPE);
    expect(kept.scopes).toEqual(expect.arrayContaining(GMAIL_SCOPES));
    expect(google.revokedTokens).not.toContain(refreshToken);
    expect(await new GmailProvider(kept, { accounts, timeoutMs: 5000, clock: systemClock, ids: new SequentialIds() }).search({})).toMatchObject({ total: 0 });

    expect(await accounts.release(kept, GMAIL_SCOPES)).toBe('deleted');
    expect(await store.find(userId, connectionId)).toBeUndefined();
    expect(google.revokedTokens).toContain(refreshToken);
  });

  it('"disconnect my calendar" when the account serves only the calendar deletes it and revokes the grant', async () => {
    const connectionId = await connectCalendar();
    const { refreshToken } = await store.secrets({ id: connectionId }, googleSecretsSchema);
    expect(await calendars.disconnect(userId)).toMatchObject({ deleted: true });
    expect(await store.find(userId, connectionId)).toBeUndefined();
    expect(google.revokedTokens).toContain(refreshToken);
  });

  it('mail first, then "connect my Google calendar": the same connection gains the calendar and keeps Gmail', async () => {
    const { url } = await links.issue(userId, GOOGLE_EMAIL_PURPOSE);
    await consent(redirect(await submit(url)));
    const [mailOnly] = await store.list(userId);
    expect(mailOnly!.scopes).not.toContain(CALENDAR_SCOPE);
    const calendarLink = await links.issue(userId, 'google-calendar');
    const consentUrl = new URL(redirect(await submit(calendarLink.url)));
    expect(consentUrl.searchParams.get('scope')).toBe(`openid email ${CALENDAR_SCOPE}`);
    await consent(consentUrl.toString());
    const [both] = await store.list(userId);
    expect(both!.id).toBe(mailOnly!.id);
    expect(both!.scopes).toEqual(expect.arrayContaining([CALENDAR_SCOPE, ...GMAIL_SCOPES]));
    expect((await calendars.calendarOf(userId)).key).toBe(both!.id);
  });

  it('another calendar replacing a Google one: the Google account gives up the calendar, kept for Gmail or deleted when it served only the calendar', async () => {
    const caldav = () => store.save(userId, { provider: 'caldav', account: `ana${counter}@caldav.example`, label: 'CalDAV (ana)', settings: { serverUrl: 'https://caldav.example', username: 'ana', calendarUrl: 'https://caldav.example/ana/', calendarName: 'Personal' }, secrets: { password: 'x' } });
    const onlyCalendar = await connectCalendar();
    await calendars.useConnection(userId, (await caldav()).id);
    expect(await store.find(userId, onlyCalendar)).toBeUndefined();

    google.consentAs = email = `other${counter}@gmail.com`;
    const shared = await connectCalendar();
    const { url } = await links.issue(userId, GOOGLE_EMAIL_PURPOSE);
    await consent(redirect(await submit(url)));
    await calendars.useConnection(userId, (await caldav()).id);
    const kept = (await store.find(userId, shared))!;
    expect(kept.scopes).not.toContain(CALENDAR_SCOPE);
    expect(kept.scopes).toEqual(expect.arrayContaining(GMAIL_SCOPES));
  });

  it('reconnecting email after the calendar let go does not bring the calendar scope back from Google’s memory of it', async () => {
    const connectionId = await connectCalendar();
    const first = await links.issue(userId, GOOGLE_EMAIL_PURPOSE);
    await consent(redirect(await submit(first.url)));
    await calendars.disconnect(userId);
    const again = await links.issue(userId, GOOGLE_EMAIL_PURPOSE);
    await consent(redirect(await submit(again.url)));
    const connection = (await store.find(userId, connectionId))!;
    expect(connection.scopes).not.toContain(CALENDAR_SCOPE);
    expect(connection.scopes).toEqual(expect.arrayContaining(GMAIL_SCOPES));
    expect((await calendars.calendarOf(userId)).key).toBe('builtin');
  });
});
