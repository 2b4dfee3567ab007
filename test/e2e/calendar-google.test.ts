import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { googleSecretsSchema } from '../../src/connections/google-accounts.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { FakeGoogleServer } from '../fakes/fake-google-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { lastToolResults as toolResults, singleStepPlan } from '../helpers/model-script.js';
import { createUser } from '../reminders/support.js';
import { CookieJar } from '../helpers/browser-cookies.js';

/**
 * Google Calendar through the webhook, with the official client against the fake Google:
 * an expired access token is refreshed without the user noticing (and the new one stored
 * sealed); a revoked one tells the user to reconnect, once, and is never retried in a loop.
 */

const ZONE = 'America/New_York';

function listTomorrow(reply: (content: string, isError: boolean) => string): ScriptedAnthropicResponse[] {
  const tomorrow = DateTime.now().setZone(ZONE).plus({ days: 1 }).toISODate()!;
  return [
    singleStepPlan('calendar-agent', `List the events on ${tomorrow}`),
    { toolCalls: [{ name: 'get_calendar_events', input: { from: tomorrow } }] },
    (request) => {
      const [result] = toolResults(request);
      return { toolCalls: [{ name: 'complete_step', input: { summary: 'Listed', reply: reply(result!.content, result!.isError) } }] };
    },
  ];
}

describe('Google Calendar through the webhook', () => {
  let harness: HeraldHarness;
  let google: FakeGoogleServer;
  let counter = 0;
  let phone: string;
  let userId: string;
  let connectionId: string;

  beforeAll(async () => {
    google = await FakeGoogleServer.start();
    harness = await HeraldHarness.start({ env: google.env() });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    google.tokenRequests.length = 0;
    counter += 1;
    phone = `+1415555${String(4700 + counter)}`;
    userId = (await createUser(harness, phone, { timezone: ZONE })).id;
    const grant = google.grant(`user${counter}@gmail.com`);
    const connection = await harness.herald.calendar.connections.save(userId, {
      provider: 'google',
      account: `user${counter}@gmail.com`,
      label: `Google (user${counter}@gmail.com)`,
      scopes: ['https://www.googleapis.com/auth/calendar.events'],
      settings: {},
      secrets: { ...grant, expiresAt: Date.now() - 60_000 },
    });
    connectionId = connection.id;
    await harness.herald.calendar.calendars.useConnection(userId, connection.id);
  });
  afterAll(async () => {
    await harness.close();
    await google.close();
  });

  async function send(body: string): Promise<string> {
    const reply = await harness.exchange(phone, body);
    harness.anthropic.rethrowScriptErrors();
    return reply;
  }
  const secrets = async () => googleSecretsSchema.parse(harness.herald.calendar.box.openJson((await harness.database.prisma.connection.findUniqueOrThrow({ where: { id: connectionId } })).secrets));

  it('an expired access token is refreshed transparently and the new one stored sealed', async () => {
    const before = await secrets();
    google.expireAccessTokens();
    harness.anthropic.enqueue(...listTomorrow((content, isError) => (isError ? `error: ${content}` : `Nothing on tomorrow (${JSON.parse(content).calendar}).`)));
    expect(await send("what's on tomorrow?")).toBe(`Nothing on tomorrow (Google (user${counter}@gmail.com)).`);
    expect(google.tokenRequests).toEqual([{ grantType: 'refresh_token', ok: true }]);
    const after = await secrets();
    expect(after.refreshToken).toBe(before.refreshToken);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.expiresAt).toBeGreaterThan(Date.now());
    expect(harness.anthropic.requests).toHaveLength(3);
  });

  it('a revoked token: the user is told to reconnect; the next message tries Google no more', async () => {
    google.revokeAll();
    const told = 'Google no longer lets me into your calendar. Text "connect my Google calendar" to reconnect.';
    const expected = new RegExp(`^Google no longer lets Herald into Google \\(user${counter}@gmail\\.com\\) \\(access was revoked or has expired\\)\\. Nothing was changed\\. Ask the user to connect again by texting "connect my Google calendar"\\.$`);
    const reportRevoked = (content: string, isError: boolean) => {
      expect(isError).toBe(true);
      expect(content).toMatch(expected);
      return told;
    };
    harness.anthropic.enqueue(...listTomorrow(reportRevoked));
    expect(await send("what's on tomorrow?")).toBe(told);
    expect(google.tokenRequests).toEqual([{ grantType: 'refresh_token', ok: false }]);
    expect(await harness.database.prisma.connection.findUniqueOrThrow({ where: { id: connectionId } })).toMatchObject({ status: 'needs_reconnect' });
    const apiCalls = google.apiRequests.length;

    harness.anthropic.enqueue(...listTomorrow(reportRevoked));
    expect(await send('and the day after?')).toBe(told);
    // No second refresh, no API call: the connection is marked, not retried.
    expect(google.tokenRequests).toHaveLength(1);
    expect(google.apiRequests).toHaveLength(apiCalls);
    expect(harness.anthropic.requests).toHaveLength(6);
  });

  it('reconnecting after a revocation makes the calendar work again', async () => {
    google.revokeAll();
    await harness.herald.calendar.connections.markNeedsReconnect(connectionId);
    const { url } = await harness.herald.calendar.links.issue(userId, 'google-calendar');
    const path = url.replace('https://herald.test', '');
    const page = await harness.herald.app.inject({ method: 'GET', url: path });
    const csrf = /name="_csrf" value="([^"]*)"/.exec(page.body)![1]!;
    const started = await harness.herald.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ _csrf: csrf, _revision: '0', _section: '1' }).toString() });
    google.consentAs = `user${counter}@gmail.com`;
    try {
      const approved = await fetch(started.headers.location as string, { redirect: 'manual' });
      const done = await harness.herald.app.inject({ method: 'GET', url: approved.headers.get('location')!.replace('https://herald.test', ''), headers: { cookie: new CookieJar().take(started.headers).header('/oauth/google/callback') } });
      expect(done.statusCode).toBe(200);
    } finally {
      google.consentAs = 'ana@gmail.com';
    }
    expect(await harness.database.prisma.connection.findUniqueOrThrow({ where: { id: connectionId } })).toMatchObject({ status: 'active' });
    const calendar = await harness.herald.calendar.calendars.calendarOf(userId);
    expect(await calendar.provider.listEvents({ from: new Date(), to: new Date(Date.now() + 86_400_000) }, ZONE)).toEqual([]);
  });
});
