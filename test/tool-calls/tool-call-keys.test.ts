/**
 * Keyed calls on Postgres, with Herald's real tools: each kind of thing an agent makes
 * (a reminder, list items, a calendar event on the built-in calendar, on CalDAV and on
 * Google, a fact, a page) is made once when the same request runs again, as it does when a
 * turn is taken over after a crash: another turn, a fresh ledger, the same first message.
 */
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarEventTools } from '../../src/agents/calendar/calendar-tools.js';
import { createHeraldAgents } from '../../src/agents/herald-agents.js';
import { runToolLoop, type ToolCallRecord, type ToolLoopProgress } from '../../src/agents/tool-loop.js';
import { CaldavCalendarProvider } from '../../src/calendar/caldav-provider.js';
import type { CalendarProvider } from '../../src/calendar/calendar-provider.js';
import type { CalendarService } from '../../src/calendar/calendar-service.js';
import { EventReminders } from '../../src/calendar/event-reminders.js';
import { GoogleCalendarProvider } from '../../src/calendar/google-provider.js';
import { ConnectionStore } from '../../src/connections/connection-store.js';
import { GoogleAccounts } from '../../src/connections/google-accounts.js';
import { SecretBox } from '../../src/connections/secret-box.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { FactService } from '../../src/memory/fact-service.js';
import { emptyUsage } from '../../src/model/model-client.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { systemClock } from '../../src/shared/clock.js';
import { randomIds } from '../../src/shared/ids.js';
import { PrismaToolCallKeys } from '../../src/tool-calls/tool-call-keys.js';
import { ToolCallLedger } from '../../src/tool-calls/tool-call-ledger.js';
import type { ToolDefinition } from '../../src/tools/tool.js';
import { FakeGoogleServer } from '../fakes/fake-google-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { localHttp } from '../helpers/outbound.js';
import { RadicaleServer } from '../helpers/radicale-server.js';

const ZONE = 'America/New_York';
const logger = createSilentLogger();

describe('keyed calls on Postgres', () => {
  let harness: HeraldHarness;
  let keys: PrismaToolCallKeys;
  let radicale: RadicaleServer;
  let google: FakeGoogleServer;
  let phone = 0;

  beforeAll(async () => {
    [harness, radicale, google] = await Promise.all([HeraldHarness.start(), RadicaleServer.start({ ana: 'app-password' }), FakeGoogleServer.start()]);
    keys = new PrismaToolCallKeys(harness.database.prisma);
  });
  afterAll(async () => {
    await Promise.all([harness?.close(), radicale?.stop(), google?.close()]);
  });

  const newUser = async () => {
    phone += 1;
    const user = await harness.database.prisma.user.create({ data: { phone: `+1415555${String(7100 + phone)}`, timezone: ZONE, updatedAt: new Date() } });
    const message = await harness.database.prisma.message.create({ data: { userId: user.id, role: 'user', content: 'do it', channel: 'sms', tokenCount: 2 } });
    return { userId: user.id, messageId: message.id };
  };

  /** One step's tool loop for the request `messageId`, in turn `turnId`: the call, then a text answer. */
  async function runStep(tools: ToolDefinition[], user: { userId: string; messageId: string }, turnId: string, name: string, input: unknown): Promise<ToolCallRecord> {
    const progress: ToolLoopProgress = { toolCalls: [], usage: emptyUsage(), modelCalls: 0 };
    const ledger = new ToolCallLedger(keys, { userId: user.userId, scope: user.messageId, turnId }, systemClock, logger);
    await runToolLoop({
      model: new ScriptedModel([{ toolCalls: [{ name, input }] }, { text: 'done' }]),
      request: { model: 'test', system: [], maxTokens: 100 },
      messages: [{ role: 'user', content: 'do it' }],
      tools,
      toolContext: { userId: user.userId, timezone: ZONE, clock: systemClock, logger },
      maxIterations: 4,
      keyedCalls: ledger.forStep('step_1'),
      progress,
    });
    // The turn's end: what the calls did is recorded (orchestrate waits for it too).
    await ledger.flush();
    expect(progress.toolCalls).toHaveLength(1);
    return progress.toolCalls[0]!;
  }

  const tomorrowAt = (hour: number) => DateTime.now().setZone(ZONE).plus({ days: 1 }).set({ hour, minute: 0 }).toFormat("yyyy-MM-dd'T'HH:mm");
  const agentTools = (agent: string) => {
    const facts = new FactService(harness.database.prisma, harness.database.pool, systemClock);
    const { herald } = harness;
    const registry = createHeraldAgents({ reminders: herald.reminders, lists: herald.lists, facts, users: herald.users, pages: herald.pages, calendar: herald.calendar, email: herald.email }, 4000);
    return registry.get(agent)!.tools;
  };
  const calendarTools = (provider: CalendarProvider) =>
    calendarEventTools({ calendars: { calendarOf: async () => ({ provider, key: 'test' }) } as unknown as CalendarService, eventReminders: new EventReminders(harness.database.prisma, harness.herald.reminders) });

  const cases: Array<{ what: string; tools: () => Promise<ToolDefinition[]> | ToolDefinition[]; call: () => [string, unknown]; count: (userId: string) => Promise<number> }> = [
    {
      what: 'a reminder',
      tools: () => agentTools('scheduler-agent'),
      call: () => ['create_scheduled_job', { text: 'Call mom', at: tomorrowAt(17) }],
      count: (userId) => harness.database.prisma.reminder.count({ where: { userId } }),
    },
    {
      what: 'list items',
      tools: () => agentTools('list-agent'),
      call: () => ['add_list_items', { list: 'shopping', items: ['milk', 'eggs'] }],
      count: (userId) => harness.database.prisma.listItem.count({ where: { list: { userId } } }),
    },
    {
      what: 'an event on the built-in calendar',
      tools: () => agentTools('calendar-agent'),
      call: () => ['create_calendar_event', { title: 'Dentist', start: tomorrowAt(15), durationMinutes: 45 }],
      count: (userId) => harness.database.prisma.calendarEvent.count({ where: { userId } }),
    },
    {
      what: 'a fact',
      tools: () => agentTools('memory-agent'),
      call: () => ['remember_fact', { category: 'preferences', subject: 'diet', content: 'Is vegetarian' }],
      count: (userId) => harness.database.prisma.fact.count({ where: { userId } }),
    },
    {
      what: 'a page',
      tools: () => agentTools('ui-agent'),
      call: () => ['render_page', { title: 'Ideas', sections: [{ kind: 'text', markdown: 'One idea' }] }],
      count: (userId) => harness.database.prisma.page.count({ where: { userId } }),
    },
  ];

  it.each(cases)('makes $what once when the request runs again; another request makes it anew', async ({ tools, call, count }) => {
    const toolset = await tools();
    const user = await newUser();
    const [name, input] = call();

    const first = await runStep(toolset, user, 'turn-that-crashed', name, input);
    expect(first).toMatchObject({ name, isError: false });
    const made = await count(user.userId);
    expect(made).toBeGreaterThan(0);

    const again = await runStep(toolset, user, 'turn-that-took-over', name, input);
    expect(again).toMatchObject({ name, isError: false, replayed: true, result: first.result });
    expect(await count(user.userId)).toBe(made);

    const row = await harness.database.prisma.toolCallKey.findFirstOrThrow({ where: { userId: user.userId } });
    expect(row).toMatchObject({ scope: user.messageId, turnId: 'turn-that-crashed', stepId: 'step_1', tool: name, finishedAt: expect.any(Date) });

    // The user's next message asking the same: a new request, so the tool runs.
    const next = await harness.database.prisma.message.create({ data: { userId: user.userId, role: 'user', content: 'again', channel: 'sms', tokenCount: 1 } });
    expect((await runStep(toolset, { userId: user.userId, messageId: next.id }, 'next-turn', name, input)).replayed).toBeUndefined();
  });

  it.each([
    {
      what: 'a CalDAV calendar (a real Radicale)',
      provider: async () => {
        const calendarUrl = await radicale.createCalendar('ana', 'app-password', `keyed-${phone}`, 'Keyed');
        return new CaldavCalendarProvider({ label: 'Radicale (ana)', calendarUrl, username: 'ana', password: 'app-password', http: localHttp() }, systemClock, randomIds);
      },
    },
    {
      what: 'Google Calendar (the fake Calendar API)',
      provider: async (userId: string) => {
        const store = new ConnectionStore(harness.database.prisma, new SecretBox(Buffer.alloc(32, 3)), systemClock);
        const env = google.env();
        const accounts = new GoogleAccounts(
          { clientId: env.GOOGLE_CLIENT_ID!, clientSecret: env.GOOGLE_CLIENT_SECRET!, authUrl: env.GOOGLE_OAUTH_AUTH_URL!, tokenUrl: env.GOOGLE_OAUTH_TOKEN_URL!, revokeUrl: env.GOOGLE_OAUTH_REVOKE_URL!, apiBaseUrl: env.GOOGLE_API_BASE_URL! },
          'https://herald.test/oauth/google/callback',
          store,
          logger,
        );
        const connection = await store.save(userId, { provider: 'google', account: `ana${phone}@gmail.com`, label: 'Google', settings: {}, secrets: google.grant() });
        return new GoogleCalendarProvider(connection, accounts, 5000);
      },
    },
  ])('makes an event on $what once when the request runs again', async ({ provider: open }) => {
    const user = await newUser();
    const provider = await open(user.userId);
    const tools = calendarTools(provider);
    const start = tomorrowAt(9);
    const day = { from: DateTime.fromISO(start, { zone: ZONE }).startOf('day').toJSDate(), to: DateTime.fromISO(start, { zone: ZONE }).endOf('day').toJSDate() };

    await runStep(tools, user, 'turn-that-crashed', 'create_calendar_event', { title: 'Standup', start, durationMinutes: 15 });
    const again = await runStep(tools, user, 'turn-that-took-over', 'create_calendar_event', { title: 'Standup', start, durationMinutes: 15 });

    expect(again).toMatchObject({ replayed: true });
    expect((await provider.listEvents(day, ZONE)).map((event) => event.title)).toEqual(['Standup']);
  });

  it('claims a key once when two claim it at the same moment, forgets a released one, and keeps keys a day', async () => {
    const user = await newUser();
    const claim = (key: string, at = new Date()) => keys.claim({ key, userId: user.userId, scope: user.messageId, turnId: 't', stepId: 's', tool: 'book', at });
    const outcomes = await Promise.all([claim('k1'), claim('k1'), claim('k1')]);
    expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(['claimed', 'started', 'started']);
    await keys.done('k1', 'booked', new Date());
    expect(await claim('k1')).toEqual({ kind: 'done', result: 'booked' });

    expect(await claim('k2')).toEqual({ kind: 'claimed' });
    await keys.release('k2');
    expect(await claim('k2')).toEqual({ kind: 'claimed' });

    await claim('old', new Date(Date.now() - 25 * 3_600_000));
    await keys.forget(user.userId, new Date(Date.now() - 24 * 3_600_000));
    expect((await harness.database.prisma.toolCallKey.findMany({ where: { userId: user.userId } })).map((row) => row.key).sort()).toEqual(['k1', 'k2']);
  });
});
