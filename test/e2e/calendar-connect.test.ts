import ICAL from 'ical.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { FakeGoogleServer } from '../fakes/fake-google-server.js';
import { HeraldHarness, PUBLIC_BASE_URL } from '../helpers/herald-harness.js';
import { LOOPBACK_ALLOWED } from '../helpers/outbound.js';
import { CookieJar } from '../helpers/browser-cookies.js';
import { CheckedScript, lastToolResults as toolResults, singleStepPlan } from '../helpers/model-script.js';
import { freePort } from '../helpers/herald-process.js';
import { RadicaleServer } from '../helpers/radicale-server.js';
import { createUser } from '../reminders/support.js';

/**
 * Connecting a calendar: by text, a short-lived single-use signed link to a page made with
 * Herald's page renderer; CalDAV's form is checked against a real Radicale before anything
 * is saved; Google goes through OAuth with PKCE against the fake Google. Secrets are sealed
 * in the database. Used, expired and forged links each get a page that says so. Also the
 * built-in calendar's ICS feed, and "disconnect my calendar".
 */

const script = new CheckedScript();
const checked = script.checked.bind(script);

const plan = (task: string): ScriptedAnthropicResponse => singleStepPlan('calendar-agent', task);

/** The hidden fields a page's form posts back. */
function controls(html: string): Record<string, string> {
  const value = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
  return { _csrf: value('_csrf'), _revision: value('_revision'), _section: value('_section') };
}

describe('connecting a calendar', () => {
  let harness: HeraldHarness;
  let radicale: RadicaleServer;
  let google: FakeGoogleServer;
  const clock = new ManualClock(Date.now());
  let counter = 0;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    [radicale, google] = await Promise.all([RadicaleServer.start({ ana: 'right-password' }), FakeGoogleServer.start()]);
    await radicale.createCalendar('ana', 'right-password', 'personal', 'Personal');
    // The tests' Radicale is on this machine: allowed as a self-hoster allows their own server.
    harness = await HeraldHarness.start({ clock, env: { ...google.env(), CONNECT_ALLOWED_HOSTS: LOOPBACK_ALLOWED } });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    clock.set(Date.now());
    counter += 1;
    phone = `+1415555${String(4300 + counter)}`;
    userId = (await createUser(harness, phone)).id;
  });
  afterAll(async () => {
    await harness.close();
    await Promise.all([radicale.stop(), google.close()]);
  });

  const path = (url: string) => url.slice(PUBLIC_BASE_URL.length);
  const get = (url: string, cookie?: string) => harness.herald.app.inject({ method: 'GET', url: path(url), headers: cookie ? { cookie } : {} });
  const post = (url: string, form: Record<string, string>) =>
    harness.herald.app.inject({ method: 'POST', url: path(url), headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString() });
  const connections = () => harness.database.prisma.connection.findMany({ where: { userId } });

  async function send(body: string): Promise<string> {
    const reply = await harness.exchange(phone, body);
    script.rethrow();
    return reply;
  }

  it('"connect my iCloud calendar": a link by text; the form is checked against the server, saved sealed, and the link then works no more', async () => {
    harness.anthropic.enqueue(
      plan('Give the user a link to connect their iCloud calendar'),
      { toolCalls: [{ name: 'connect_calendar', input: { service: 'icloud' } }] },
      checked((request) => {
        const result = JSON.parse(toolResults(request)[0]!.content) as { link: string; expiresInMinutes: number };
        expect(result.expiresInMinutes).toBe(15);
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Link made', reply: `Connect your iCloud calendar here (works once, for 15 minutes):\n${result.link}`, data: { link: result.link } } }] };
      }),
    );
    const reply = await send('connect my iCloud calendar');
    const link = /https:\/\/herald\.test\/connect\/\S+/.exec(reply)![0];
    expect(harness.anthropic.requests).toHaveLength(3);

    const page = await get(link);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/^default-src 'none'/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('<h1>Connect your iCloud calendar</h1>');
    expect(page.body).toContain('value="https://caldav.icloud.com"');
    expect(page.body).toContain('type="password"');

    // A wrong password: refused by the server, said on the form, nothing saved.
    const wrong = await post(link, { ...controls(page.body), serverUrl: radicale.url, username: 'ana', password: 'wrong-password' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('The server refused this username and password.');
    expect(wrong.body).not.toContain('wrong-password');
    expect(await connections()).toEqual([]);

    const right = await post(link, { ...controls(wrong.body), serverUrl: radicale.url, username: 'ana', password: 'right-password' });
    expect(right.statusCode).toBe(200);
    expect(right.body).toContain('Connected 127.0.0.1 (ana). Herald now uses your calendar &quot;Personal&quot;.');
    const [saved] = await connections();
    expect(saved).toMatchObject({ provider: 'caldav', account: 'ana@127.0.0.1', settings: { calendarUrl: `${radicale.url}/ana/personal/`, calendarName: 'Personal', username: 'ana' } });
    expect(saved!.secrets).not.toContain('right-password');
    expect(harness.herald.calendar.box.openJson(saved!.secrets)).toEqual({ password: 'right-password' });
    expect(await harness.database.prisma.calendarSettings.findUnique({ where: { userId } })).toMatchObject({ connectionId: saved!.id });
    expect(harness.logs.text()).not.toContain('right-password');

    // Herald's calendar is now the Radicale one.
    const calendar = await harness.herald.calendar.calendars.calendarOf(userId);
    expect(calendar.provider.kind).toBe('caldav');
    await calendar.provider.createEvent({ title: 'On the server', allDay: false, start: '2026-12-01T10:00', end: '2026-12-01T11:00', timezone: 'America/New_York' });

    // Used: the link says so, on GET and POST alike.
    for (const response of [await get(link), await post(link, { ...controls(right.body), serverUrl: radicale.url, username: 'ana', password: 'x' })]) {
      expect(response.statusCode).toBe(410);
      expect(response.body).toContain('This link was already used');
    }
  });

  it('an unreachable server is said on the form; a replayed form is refused; nothing is saved', async () => {
    const { url } = await harness.herald.calendar.links.issue(userId, 'caldav-calendar');
    const page = await get(url);
    const down = await post(url, { ...controls(page.body), serverUrl: `http://127.0.0.1:${await freePort()}/`, username: 'ana', password: 'right-password' });
    expect(down.statusCode).toBe(422);
    expect(down.body).toContain('Could not reach that server (connection refused).');
    const replayed = await post(url, { ...controls(page.body), serverUrl: radicale.url, username: 'ana', password: 'right-password' });
    expect(replayed.statusCode).toBe(409);
    const forged = await post(url, { ...controls(down.body), _csrf: 'x'.repeat(43), serverUrl: radicale.url, username: 'ana', password: 'right-password' });
    expect(forged.statusCode).toBe(403);
    expect(await connections()).toEqual([]);
  });

  it('an expired link, and a forged one, each get a page that says so', async () => {
    const { url } = await harness.herald.calendar.links.issue(userId, 'caldav-calendar');
    clock.advance(15 * 60_000 + 1);
    const expired = await get(url);
    expect(expired.statusCode).toBe(410);
    expect(expired.body).toContain('This link has expired');
    expect((await post(url, { serverUrl: radicale.url })).statusCode).toBe(410);
    const [id, expiry] = url.split('/connect/')[1]!.split('.');
    for (const forged of [`${id}.${Number(expiry) + 3600}.${'A'.repeat(43)}`, 'not-a-token', `${id}.${expiry}`]) {
      const response = await get(`${PUBLIC_BASE_URL}/connect/${forged}`);
      expect(response.statusCode, forged).toBe(404);
      expect(response.body).toContain('This link is not valid.');
    }
  });

  it('Google: consent with PKCE, the code exchanged, the tokens sealed; the callback works once', async () => {
    const { url } = await harness.herald.calendar.links.issue(userId, 'google-calendar');
    const page = await get(url);
    expect(page.body).toContain('Continue to Google');
    const started = await post(url, controls(page.body));
    expect(started.statusCode).toBe(303);
    const browser = new CookieJar().take(started.headers);
    const consent = new URL(started.headers.location as string);
    expect(`${consent.origin}${consent.pathname}`).toBe(`${google.url}/o/oauth2/v2/auth`);
    expect(Object.fromEntries(consent.searchParams)).toMatchObject({
      client_id: google.clientId,
      redirect_uri: `${PUBLIC_BASE_URL}/oauth/google/callback`,
      access_type: 'offline',
      code_challenge_method: 'S256',
      include_granted_scopes: 'true',
      response_type: 'code',
    });
    expect(consent.searchParams.get('scope')).toContain('https://www.googleapis.com/auth/calendar.events');
    // Only the state's hash is kept, and the verifier is sealed.
    const row = await harness.database.prisma.connectLink.findFirstOrThrow({ where: { userId } });
    expect(row.oauthStateHash).not.toBe(consent.searchParams.get('state'));
    expect(row.oauthVerifier).toMatch(/^v1\./);

    const approved = await fetch(consent, { redirect: 'manual' });
    const callback = approved.headers.get('location')!;
    expect(callback.startsWith(`${PUBLIC_BASE_URL}/oauth/google/callback?`)).toBe(true);
    const done = await get(callback, browser.header(callback));
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Connected Google (ana@gmail.com). Herald now uses your Google Calendar.');
    expect(done.body).toContain(`It works for the Herald you text from +1 ••• ••• ${phone.slice(-4)}.`);
    expect(google.tokenRequests).toContainEqual({ grantType: 'authorization_code', ok: true });
    const [saved] = await connections();
    expect(saved).toMatchObject({ provider: 'google', account: 'ana@gmail.com', status: 'active' });
    expect(saved!.scopes).toContain('https://www.googleapis.com/auth/calendar.events');
    expect(harness.herald.calendar.box.openJson(saved!.secrets)).toMatchObject({ refreshToken: expect.stringMatching(/^1\/\/refresh-/) });
    expect(saved!.secrets).not.toMatch(/refresh-|ya29/);
    expect(harness.logs.text()).not.toMatch(/4\/code-|refresh-|ya29\./);
    expect((await harness.herald.calendar.calendars.calendarOf(userId)).provider.kind).toBe('google');

    const again = await get(callback, browser.header(callback));
    expect(again.statusCode).toBe(404);
  });

  it('Google: consent refused; the page says nothing was connected, and the link still works', async () => {
    google.consentAs = undefined;
    try {
      const { url } = await harness.herald.calendar.links.issue(userId, 'google-calendar');
      const page = await get(url);
      const started = await post(url, controls(page.body));
      const refused = await fetch(started.headers.location as string, { redirect: 'manual' });
      const answer = await get(refused.headers.get('location')!, new CookieJar().take(started.headers).header('/oauth/google/callback'));
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toContain('Nothing was connected: access was not granted.');
      expect(await connections()).toEqual([]);
      expect((await get(url)).statusCode).toBe(200);
    } finally {
      google.consentAs = 'ana@gmail.com';
    }
  });

  it('"disconnect my calendar" asks YES; YES deletes the credentials and goes back to the built-in calendar', async () => {
    const connected = await harness.herald.calendar.calendars.connectCaldav(userId, { serverUrl: radicale.url, username: 'ana', password: 'right-password' });
    expect(connected.ok).toBe(true);
    const label = connected.ok ? connected.connection.label : '';
    harness.anthropic.enqueue(plan('Disconnect the user\'s calendar'), {
      toolCalls: [
        { name: 'disconnect_calendar', input: {} },
        { name: 'complete_step', input: { summary: 'Waiting for the user to confirm', reply: 'Your calendar is disconnected once you confirm.' } },
      ],
    });
    expect(await send('disconnect my calendar')).toBe(
      `Your calendar is disconnected once you confirm.\n\nDisconnect your calendar ${label}? Herald goes back to its built-in calendar; your events stay where they are. Reply YES or NO.`,
    );
    // Nothing changes before the YES (a connection changes only on the user's word).
    expect(await connections()).toHaveLength(1);
    expect(await send('YES')).toBe(`Disconnected your calendar ${label}: Herald's built-in calendar is in use again.`);
    expect(await connections()).toEqual([]);
    expect((await harness.herald.calendar.calendars.calendarOf(userId)).provider.kind).toBe('builtin');
  });

  it('the built-in calendar as a secret ICS feed (RFC 5545), only its hash stored, revocable', async () => {
    const provider = (await harness.herald.calendar.calendars.calendarOf(userId)).provider;
    await provider.createEvent({ title: 'Choir, with; punctuation', allDay: false, start: '2026-03-03T18:00', end: '2026-03-03T19:30', timezone: 'America/New_York', recurrence: 'FREQ=WEEKLY;BYDAY=TU' });
    await provider.createEvent({ title: 'Holiday', allDay: true, start: '2026-03-10', end: '2026-03-12', timezone: 'America/New_York' });
    const link = await harness.herald.calendar.feed.link(userId);
    expect(link).toMatch(/^https:\/\/herald\.test\/calendar\/[A-Za-z0-9_-]{43}\.ics$/);
    expect(await harness.herald.calendar.feed.link(userId)).toBe(link);
    const token = link.split('/calendar/')[1]!.slice(0, -4);
    const settings = await harness.database.prisma.calendarSettings.findUniqueOrThrow({ where: { userId } });
    expect(settings.feedTokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(settings)).not.toContain(token);

    const response = await get(link);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const text = response.body;
    expect(text.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true);
    expect(text.split('\r\n').every((line) => Buffer.byteLength(line) <= 75)).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/\n/);
    const calendar = new ICAL.Component(ICAL.parse(text));
    expect(calendar.getFirstPropertyValue('version')).toBe('2.0');
    expect(calendar.getFirstPropertyValue('prodid')).toBeTruthy();
    expect(calendar.getAllSubcomponents('vtimezone').map((zone) => zone.getFirstPropertyValue('tzid'))).toEqual(['America/New_York']);
    const events = calendar.getAllSubcomponents('vevent');
    expect(events.map((event) => event.getFirstPropertyValue('summary')).sort()).toEqual(['Choir, with; punctuation', 'Holiday']);
    for (const event of events) {
      expect(event.getFirstPropertyValue('uid')).toMatch(/@herald$/);
      expect(event.hasProperty('dtstamp')).toBe(true);
    }
    expect(text).toContain('DTSTART;TZID=America/New_York:20260303T180000');
    expect(text).toContain('RRULE:FREQ=WEEKLY;BYDAY=TU');
    expect(text).toContain('DTSTART;VALUE=DATE:20260310');

    const fresh = await harness.herald.calendar.feed.reset(userId);
    expect(fresh).not.toBe(link);
    expect((await get(link)).statusCode).toBe(404);
    expect((await get(fresh)).statusCode).toBe(200);
    expect((await get(`${PUBLIC_BASE_URL}/calendar/${'A'.repeat(43)}.ics`)).statusCode).toBe(404);
    expect(harness.logs.text()).not.toContain(token);
  });
});
