import { execFile } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/connections/secret-box.js';
import { FakeGoogleServer } from '../fakes/fake-google-server.js';
import { OUTBOUND_REFUSED_MESSAGE } from '../../src/net/outbound-policy.js';
import { HeraldHarness, TEST_ENCRYPTION_KEY } from '../helpers/herald-harness.js';
import { RadicaleServer } from '../helpers/radicale-server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * `npm run accounts`, run for real as a child process against a test database and a real
 * Radicale: it prints what it did, and exits non-zero with a clear message when it cannot.
 */

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('npm run accounts', () => {
  let database: TestDatabase;
  let radicale: RadicaleServer;

  beforeAll(async () => {
    radicale = await RadicaleServer.start({ ana: 'app-password' });
    await radicale.createCalendar('ana', 'app-password', 'personal', 'Personal');
    await radicale.createCalendar('ana', 'app-password', 'work', 'Work');
  });
  // A database of its own for each test: they count every connection in it.
  beforeEach(async () => {
    database = await createTestDatabase(2);
  });
  afterEach(async () => {
    await database.drop();
  });
  afterAll(async () => {
    await radicale.stop();
  });

  function accounts(...args: string[]): Promise<Run> {
    return accountsWith({}, ...args);
  }
  function accountsWith(env: Record<string, string | undefined>, ...args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      execFile(
        'npm',
        ['run', '--silent', 'accounts', '--', ...args],
        { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', DATABASE_URL: database.url, HERALD_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, DEFAULT_TIMEZONE: 'America/Chicago', ...env } },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });
  }
  const connections = () => database.prisma.connection.findMany({ orderBy: { createdAt: 'asc' } });
  /** +14155552671 with Radicale's "Work" calendar connected, stored as the first test's add-caldav stores it; the connection. */
  async function connectedToRadicale() {
    const user = await database.prisma.user.create({ data: { phone: '+14155552671', timezone: 'America/Chicago', updatedAt: new Date() } });
    const connection = await database.prisma.connection.create({
      data: {
        userId: user.id,
        provider: 'caldav',
        account: 'ana@127.0.0.1',
        label: '127.0.0.1 (ana)',
        scopes: [],
        settings: { serverUrl: radicale.url, username: 'ana', calendarUrl: `${radicale.url}/ana/work/`, calendarName: 'Work' },
        secrets: new SecretBox(Buffer.from(TEST_ENCRYPTION_KEY, 'base64')).sealJson({ password: 'app-password' }),
        // add-caldav is the operator's: the address may be on this machine (plain http to 127.0.0.1).
        operatorTrusted: true,
        createdAt: new Date(),
        updatedAt: new Date(),
      },
    });
    await database.prisma.calendarSettings.create({ data: { userId: user.id, connectionId: connection.id } });
    return connection;
  }

  it('add-caldav checks the account with the server, then saves it sealed as the user\'s calendar (making the user)', async () => {
    const run = await accounts('add-caldav', '--phone', '+14155552671', '--url', radicale.url, '--username', 'ana', '--password', 'app-password', '--calendar', 'Work');
    expect(run.stderr).not.toContain('Error');
    expect(run.code).toBe(0);
    const [saved] = await connections();
    expect(run.stdout).toBe(`Connected 127.0.0.1 (ana) for +14155552671: calendar "Work" is now their calendar (connection ${saved!.id}).\n`);
    expect(saved).toMatchObject({ provider: 'caldav', settings: { calendarName: 'Work', calendarUrl: `${radicale.url}/ana/work/` } });
    expect(saved!.secrets).not.toContain('app-password');
    expect(new SecretBox(Buffer.from(TEST_ENCRYPTION_KEY, 'base64')).openJson(saved!.secrets)).toEqual({ password: 'app-password' });
    const user = await database.prisma.user.findUniqueOrThrow({ where: { phone: '+14155552671' } });
    // The area code decides (libphonenumber's mapping): 415 is San Francisco.
    expect(user).toMatchObject({ timezone: 'America/Los_Angeles', timezoneSource: 'number' });
    expect(await database.prisma.calendarSettings.findUnique({ where: { userId: user.id } })).toMatchObject({ connectionId: saved!.id });
    expect(saved!.operatorTrusted).toBe(true);
  });

  it("the operator's calendar on this machine (plain http) keeps working in a Herald that allows users nothing private; a user could not connect it", async () => {
    const saved = await connectedToRadicale();
    const harness = await HeraldHarness.start({ database, start: false, logLevel: 'warn' });
    try {
      expect(harness.config.connections.allowedHosts).toEqual([]);
      const calendar = await harness.herald.calendar.calendars.calendarOf(saved!.userId);
      expect(calendar.provider.kind).toBe('caldav');
      const created = await calendar.provider.createEvent({ title: 'Operator-made', allDay: false, start: '2026-12-01T10:00', end: '2026-12-01T11:00', timezone: 'America/Chicago' });
      expect((await calendar.provider.listEvents({ from: new Date('2026-12-01T00:00:00Z'), to: new Date('2026-12-02T12:00:00Z') }, 'America/Chicago')).map((event) => event.id)).toContain(created.id);
      await calendar.provider.deleteEvent(created.id, { scope: 'series', timezone: 'America/Chicago' });
      const asUser = await harness.herald.calendar.calendars.connectCaldav(saved!.userId, { serverUrl: radicale.url, username: 'ana', password: 'app-password' });
      expect(asUser).toEqual({ ok: false, field: 'serverUrl', error: OUTBOUND_REFUSED_MESSAGE });
      expect((await connections()).map((connection) => connection.id)).toEqual([saved!.id]);
    } finally {
      await harness.close();
    }
  });

  it('list shows the accounts and which calendar is in use', async () => {
    const saved = await connectedToRadicale();
    const run = await accounts('list', '--phone', '+14155552671');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`+14155552671: 1 connected account\n${saved!.id}  caldav  127.0.0.1 (ana)  active, the calendar in use, added by the operator (any address)\n`);
  });

  it('list says what a Google account serves: Gmail, and whether it may send', async () => {
    const user = await database.prisma.user.create({ data: { phone: '+14155552679', timezone: 'America/Chicago', updatedAt: new Date() } });
    const box = new SecretBox(Buffer.from(TEST_ENCRYPTION_KEY, 'base64'));
    const google = await database.prisma.connection.create({
      data: { userId: user.id, provider: 'google', account: 'ana@gmail.com', label: 'Google (ana@gmail.com)', scopes: ['openid', 'email', 'https://www.googleapis.com/auth/gmail.readonly'], settings: {}, secrets: box.sealJson({ refreshToken: 'r' }), createdAt: new Date(), updatedAt: new Date() },
    });
    const run = await accounts('list', '--phone', '+14155552679');
    expect(run.stdout).toBe(`+14155552679: 1 connected account\n${google.id}  google  Google (ana@gmail.com)  active, Gmail (read only)\nCalendar: Herald's built-in calendar\n`);
  });

  it('remove of a Google account deletes it and gives Herald\'s grant back to Google', async () => {
    const google = await FakeGoogleServer.start();
    try {
      const user = await database.prisma.user.create({ data: { phone: '+14155552680', timezone: 'America/Chicago', updatedAt: new Date() } });
      const box = new SecretBox(Buffer.from(TEST_ENCRYPTION_KEY, 'base64'));
      const grant = google.grant('ana@gmail.com', 'openid email https://www.googleapis.com/auth/calendar.events');
      const saved = await database.prisma.connection.create({
        data: { userId: user.id, provider: 'google', account: 'ana@gmail.com', label: 'Google (ana@gmail.com)', scopes: ['openid', 'email', 'https://www.googleapis.com/auth/calendar.events'], settings: {}, secrets: box.sealJson(grant), createdAt: new Date(), updatedAt: new Date() },
      });
      const run = await accountsWith(google.env(), 'remove', '--phone', '+14155552680', '--provider', 'google');
      expect(run).toMatchObject({ code: 0, stdout: `Removed Google (ana@gmail.com) (${saved.id}) and its credentials for +14155552680; Herald's access was given back to Google.\n` });
      expect(await database.prisma.connection.findUnique({ where: { id: saved.id } })).toBeNull();
      expect(google.revokedTokens).toEqual([grant.refreshToken]);
    } finally {
      await google.close();
    }
  });

  it('fails clearly, saving nothing: a refused password, an unknown calendar, an unreachable server, a bad number', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--password', 'wrong'], /^Not connected: The server refused this username and password\./],
      [['--password', 'app-password', '--calendar', 'Holidays'], /^Not connected: There is no calendar named "Holidays"\. Calendars there: Personal, Work\./],
    ];
    for (const [extra, message] of cases) {
      const run = await accounts('add-caldav', '--phone', '+14155552672', '--url', radicale.url, '--username', 'ana', ...extra);
      expect(run.code, extra.join(' ')).toBe(1);
      expect(run.stderr.trim()).toMatch(message);
      expect(run.stdout).toBe('');
    }
    const down = await accounts('add-caldav', '--phone', '+14155552672', '--url', 'http://127.0.0.1:1/', '--username', 'ana', '--password', 'x');
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/Not connected: Could not reach that server/);
    const badPhone = await accounts('list', '--phone', 'not-a-number');
    expect(badPhone).toMatchObject({ code: 1, stderr: expect.stringContaining('"not-a-number" is not a phone number in international form') });
    expect(await connections()).toEqual([]);
    // Four CLI processes one after another, each loading Herald through npm and tsx: on a loaded
    // two-core machine that alone can pass the file's 30 s.
  }, 90_000);

  it('usage mistakes exit 2 with the usage', async () => {
    const missing = await accounts('add-caldav', '--phone', '+14155552671');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --url, --username, --password');
    const unknown = await accounts('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    expect(unknown.stderr).toContain('add-caldav --phone +15551234567 --url URL --username U --password P');
  });

  it('remove deletes the account and its credentials; the calendar is the built-in one again', async () => {
    const saved = await connectedToRadicale();
    const nothing = await accounts('remove', '--phone', '+14155552671', '--provider', 'google');
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain(`+14155552671 has no such connected account. They have: ${saved!.id} (127.0.0.1 (ana)).`);
    const run = await accounts('remove', '--phone', '+14155552671', '--id', saved!.id);
    expect(run).toMatchObject({ code: 0, stdout: `Removed 127.0.0.1 (ana) (${saved!.id}) and its credentials for +14155552671.\n` });
    expect(await connections()).toEqual([]);
    expect((await accounts('list', '--phone', '+14155552671')).stdout).toBe("+14155552671: no connected accounts\nCalendar: Herald's built-in calendar\n");
  });
});
