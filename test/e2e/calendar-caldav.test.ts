import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CaldavCalendarProvider } from '../../src/calendar/caldav-provider.js';
import { SecretBox } from '../../src/connections/secret-box.js';
import { systemClock } from '../../src/shared/clock.js';
import { randomIds } from '../../src/shared/ids.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { FaultProxy } from '../fakes/fault-proxy.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { CheckedScript, lastToolResults as toolResults, singleStepPlan } from '../helpers/model-script.js';
import { LOOPBACK_ALLOWED, localHttp } from '../helpers/outbound.js';
import { RadicaleServer } from '../helpers/radicale-server.js';
import { createUser } from '../reminders/support.js';

/**
 * A CalDAV calendar (a real Radicale, behind a proxy that can fail on command) through the
 * webhook, and each fault the issue names: the server down, 401, 412 and 5xx. Every time
 * the user hears plainly what happened, nothing on the server is half-changed, and the
 * saved credentials are kept.
 */

const ZONE = 'America/New_York';
const LOCAL = "yyyy-MM-dd'T'HH:mm";

const plan = (task: string): ScriptedAnthropicResponse => singleStepPlan('calendar-agent', task);

/** The agent reports the tool's error to the user in its own words, and the test checks the error it saw. */
function reportingError(expected: RegExp, reply: string): ScriptedAnthropicResponse {
  return (request) => {
    const [result] = toolResults(request);
    expect(result!.isError).toBe(true);
    expect(result!.content).toMatch(expected);
    return { toolCalls: [{ name: 'complete_step', input: { summary: 'The calendar failed', reply } }] };
  };
}

describe('a CalDAV calendar through the webhook, and its faults', () => {
  let harness: HeraldHarness;
  let radicale: RadicaleServer;
  let proxy: FaultProxy;
  let direct: CaldavCalendarProvider;
  let counter = 0;
  let phone: string;
  let userId: string;
  const label = (host: string) => `${host} (ana)`;

  beforeAll(async () => {
    radicale = await RadicaleServer.start({ ana: 'app-password' });
    const calendarUrl = await radicale.createCalendar('ana', 'app-password', 'personal', 'Personal');
    proxy = await FaultProxy.start(radicale.url);
    direct = new CaldavCalendarProvider({ label: 'direct', calendarUrl, username: 'ana', password: 'app-password', http: localHttp() }, systemClock, randomIds);
    harness = await HeraldHarness.start({ env: { CALENDAR_TIMEOUT_MS: '3000', CONNECT_ALLOWED_HOSTS: LOOPBACK_ALLOWED } });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1415555${String(4500 + counter)}`;
    userId = (await createUser(harness, phone, { timezone: ZONE })).id;
    const connected = await harness.herald.calendar.calendars.connectCaldav(userId, { serverUrl: proxy.url, username: 'ana', password: 'app-password' });
    expect(connected.ok).toBe(true);
  });
  afterAll(async () => {
    await harness.close();
    await proxy.close().catch(() => {});
    await radicale.stop();
  });

  const day = () => DateTime.now().setZone(ZONE).plus({ days: 10 + counter }).startOf('day');
  const onServer = async (date: DateTime) =>
    (await direct.listEvents({ from: date.toJSDate(), to: date.plus({ days: 1 }).toJSDate() }, ZONE)).map((event) => event.title);
  const connectionKept = async () => expect(await harness.database.prisma.connection.count({ where: { userId } })).toBe(1);

  async function send(body: string): Promise<string> {
    const reply = await harness.exchange(phone, body);
    harness.anthropic.rethrowScriptErrors();
    return reply;
  }

  it('lists and adds events on the server itself', async () => {
    const date = day();
    await direct.createEvent({ title: 'Made in another app', allDay: false, start: date.set({ hour: 9 }).toFormat(LOCAL), end: date.set({ hour: 10 }).toFormat(LOCAL), timezone: ZONE });
    harness.anthropic.enqueue(
      plan(`List events on ${date.toISODate()}, then add "Lunch" at 12:00`),
      { toolCalls: [{ name: 'get_calendar_events', input: { from: date.toISODate() } }, { name: 'create_calendar_event', input: { title: 'Lunch', start: date.set({ hour: 12 }).toFormat(LOCAL) } }] },
      (request) => {
        const [listing, created] = toolResults(request);
        expect(JSON.parse(listing!.content)).toMatchObject({ calendar: label('127.0.0.1'), count: 1, events: [{ title: 'Made in another app' }] });
        expect(JSON.parse(created!.content)).toMatchObject({ effect: 'created', event: { title: 'Lunch' } });
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Listed and added', reply: 'You had one event; I added Lunch at noon.', created: [{ description: 'Lunch' }] } }] };
      },
    );
    expect(await send('what do I have that day, and add lunch at noon')).toBe('You had one event; I added Lunch at noon.');
    expect(await onServer(date)).toEqual(['Made in another app', 'Lunch']);
    expect(harness.anthropic.requests).toHaveLength(3);
  });

  it('the server is down: the user is told, nothing changes, the connection is kept', async () => {
    const date = day();
    await proxy.close();
    try {
      harness.anthropic.enqueue(
        plan(`Add "Dentist" on ${date.toISODate()} at 15:00`),
        { toolCalls: [{ name: 'create_calendar_event', input: { title: 'Dentist', start: date.set({ hour: 15 }).toFormat(LOCAL) } }] },
        reportingError(/^127\.0\.0\.1 \(ana\) could not be reached \(connection refused\)\. Nothing was changed, and the connection is kept; try again later\.$/, "I couldn't reach your calendar server just now, so nothing was added. Try again in a bit?"),
      );
      expect(await send('add the dentist at 3')).toBe("I couldn't reach your calendar server just now, so nothing was added. Try again in a bit?");
    } finally {
      await proxy.reopen();
    }
    expect(await onServer(date)).toEqual([]);
    await connectionKept();
    expect(harness.anthropic.requests).toHaveLength(3);
  });

  it('a password saved under another HERALD_ENCRYPTION_KEY: a clear error naming the keys, never garbage; nothing sent to the server', async () => {
    const connection = await harness.database.prisma.connection.findFirstOrThrow({ where: { userId } });
    const other = new SecretBox(Buffer.alloc(32, 99));
    await harness.database.prisma.connection.update({ where: { id: connection.id }, data: { secrets: other.sealJson({ password: 'app-password' }) } });
    const requests = proxy.requests.length;
    harness.anthropic.enqueue(
      plan('List events tomorrow'),
      { toolCalls: [{ name: 'get_calendar_events', input: { from: day().toISODate() } }] },
      reportingError(
        new RegExp(`^A stored secret was encrypted with a different HERALD_ENCRYPTION_KEY \\(key ${other.keyId}; the configured key is ${harness.herald.calendar.box.keyId}\\)\\. Set the key it was saved with, or connect the account again\\.$`),
        'I can\'t open your saved calendar login (it was saved under a different key). Please connect your calendar again.',
      ),
    );
    expect(await send("what's on tomorrow?")).toBe("I can't open your saved calendar login (it was saved under a different key). Please connect your calendar again.");
    expect(proxy.requests).toHaveLength(requests);
    await connectionKept();
  });

  it('401 from the server: the user is told the password was refused, the connection is kept', async () => {
    const date = day();
    proxy.failNext(401);
    harness.anthropic.enqueue(
      plan(`List events on ${date.toISODate()}`),
      { toolCalls: [{ name: 'get_calendar_events', input: { from: date.toISODate() } }] },
      reportingError(/refused the saved username and password \(HTTP 401\)\. Nothing was changed; the connection is kept\./, 'Your calendar server refused my saved password. If you changed it, text "connect my calendar" to reconnect.'),
    );
    expect(await send("what's on that day?")).toBe('Your calendar server refused my saved password. If you changed it, text "connect my calendar" to reconnect.');
    await connectionKept();
  });

  it('5xx on the YES: "couldn\'t do that", and the event is still there', async () => {
    const date = day();
    await direct.createEvent({ title: 'Dentist', allDay: false, start: date.set({ hour: 15 }).toFormat(LOCAL), end: date.set({ hour: 16 }).toFormat(LOCAL), timezone: ZONE });
    harness.anthropic.enqueue(plan('Delete the dentist appointment'), {
      toolCalls: [{ name: 'delete_calendar_event', input: { match: 'dentist' } }, { name: 'complete_step', input: { summary: 'Awaits confirmation', reply: 'Confirm and I will delete it.' } }],
    });
    expect(await send('delete the dentist')).toContain(`Delete "Dentist" on ${date.toFormat('ccc d LLL')}, 3:00 PM? Reply YES or NO.`);
    proxy.failNext(503);
    expect(await send('yes')).toBe("I couldn't do that: 127.0.0.1 (ana) had a server error (HTTP 503). Nothing was changed, and the connection is kept; try again later.");
    expect(await onServer(date)).toEqual(['Dentist']);
    await connectionKept();
    expect(harness.anthropic.requests).toHaveLength(2);
  });

  it('changed on the server after the question: the YES is refused (nothing overwritten)', async () => {
    const date = day();
    const created = await direct.createEvent({ title: 'Review', allDay: false, start: date.set({ hour: 11 }).toFormat(LOCAL), end: date.set({ hour: 12 }).toFormat(LOCAL), timezone: ZONE });
    harness.anthropic.enqueue(plan(`Move the review to ${date.toISODate()} 14:00`), {
      toolCalls: [{ name: 'update_calendar_event', input: { match: 'review', start: date.set({ hour: 14 }).toFormat(LOCAL) } }, { name: 'complete_step', input: { summary: 'Awaits confirmation', reply: 'Confirm and I will move it.' } }],
    });
    expect(await send('move the review to 2')).toContain(`Move "Review" from ${date.toFormat('ccc d LLL')}, 11:00 AM to ${date.toFormat('ccc d LLL')}, 2:00 PM? Reply YES or NO.`);
    // Someone renames it on their phone meanwhile.
    await direct.updateEvent(created.id, { title: 'Review (room 4)' }, { scope: 'series', timezone: ZONE });
    expect(await send('yes')).toBe("I couldn't do that: That event was changed in 127.0.0.1 (ana) since I read it, so I changed nothing. Ask again to see it as it is now.");
    expect(await direct.getEvent(created.id, ZONE)).toMatchObject({ title: 'Review (room 4)', start: date.set({ hour: 11 }).toFormat(LOCAL) });
  });

  it('412 from the server itself (a change landing between read and write): nothing overwritten', async () => {
    const date = day();
    const created = await direct.createEvent({ title: 'Standup', allDay: false, start: date.set({ hour: 9 }).toFormat(LOCAL), end: date.set({ hour: 9, minute: 15 }).toFormat(LOCAL), timezone: ZONE });
    harness.anthropic.enqueue(plan('Delete the standup'), {
      toolCalls: [{ name: 'delete_calendar_event', input: { match: 'standup' } }, { name: 'complete_step', input: { summary: 'Awaits confirmation', reply: 'Confirm and it goes.' } }],
    });
    await send('delete the standup');
    // The moment Herald sends its DELETE, another app changes the event on the server.
    proxy.beforeNext(async (method) => {
      if (method !== 'DELETE') return false;
      await direct.updateEvent(created.id, { title: 'Standup (moved room)' }, { scope: 'series', timezone: ZONE });
      return true;
    });
    expect(await send('yes')).toBe("I couldn't do that: That event was changed in 127.0.0.1 (ana) since I read it, so I changed nothing. Ask again to see it as it is now.");
    expect(proxy.requests.filter((request) => request.startsWith('DELETE'))).toHaveLength(1);
    expect(await onServer(date)).toEqual(['Standup (moved room)']);
    await connectionKept();
  });
});
