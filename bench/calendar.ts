/**
 * Calendar benchmark (issue 9): how long calendar-agent's tools take against a real CalDAV
 * server (a local Radicale, as the tests start it) and against the built-in calendar on
 * Postgres. Per provider: get_calendar_events over a month holding 200 events (expanded,
 * summarised for the model) and create_calendar_event (with its overlap check), p50/p95
 * over repeated calls after a warm-up, through the tools exactly as the agent calls them.
 * Targets: list p95 under 500 ms, create p95 under 300 ms, on either provider.
 */
import { DateTime } from 'luxon';
import { calendarEventTools } from '../src/agents/calendar/calendar-tools.js';
import { CalendarService } from '../src/calendar/calendar-service.js';
import { EventReminders } from '../src/calendar/event-reminders.js';
import { ConnectionStore } from '../src/connections/connection-store.js';
import { SecretBox } from '../src/connections/secret-box.js';
import { connectDatabase } from '../src/db/database.js';
import type { Logger } from '../src/logging/logger.js';
import { ReminderService } from '../src/reminders/reminder-service.js';
import type { JobQueue } from '../src/queue/job-queue.js';
import { systemClock } from '../src/shared/clock.js';
import { randomIds } from '../src/shared/ids.js';
import type { ToolContext } from '../src/tools/tool.js';
import { RadicaleServer } from '../test/helpers/radicale-server.js';
import type { Benchmark, Check } from './support/benchmark.js';
import { banner, ms, percentile, table } from './support/report.js';
import { runTool, sampleMs } from './support/sampling.js';
import { loopbackPolicy } from '../test/helpers/outbound.js';

const ZONE = 'America/New_York';
const EVENTS = 200;
const LIST_RUNS = 40;
const CREATE_RUNS = 60;
const WARM_UP = 5;
const LIST_TARGET_MS = 500;
const CREATE_TARGET_MS = 300;

/** The month measured: far enough ahead that nothing else is in it. */
const month = DateTime.fromISO('2027-05-01', { zone: ZONE });

export const calendarBenchmark: Benchmark = {
  name: 'calendar',
  description: 'Calendar tool latency: list a 200-event month and create, on a local Radicale (CalDAV) and the built-in calendar',
  async run({ postgres, logger, print }) {
    print(banner(`Calendar tools (${EVENTS} events in the month; list ×${LIST_RUNS}, create ×${CREATE_RUNS}, after ${WARM_UP} warm-up calls)`));
    const databaseInfo = await postgres.createMigratedDatabase('calendar', logger);
    const database = connectDatabase(databaseInfo.url, 5);
    const radicale = await RadicaleServer.start({ ana: 'app-password' });
    const rows: Array<Array<string | number>> = [];
    const checks: Check[] = [];
    try {
      await radicale.createCalendar('ana', 'app-password', 'personal', 'Personal');
      const connections = new ConnectionStore(database.prisma, new SecretBox(Buffer.alloc(32, 5)), systemClock);
      const calendars = new CalendarService({ prisma: database.prisma, connections, clock: systemClock, ids: randomIds, timeoutMs: 15_000, outbound: loopbackPolicy(), logger });
      // No event reminders are made here: the reminder service is never reached.
      const tools = calendarEventTools({ calendars, eventReminders: new EventReminders(database.prisma, new ReminderService(database.prisma, undefined as unknown as JobQueue, systemClock, { maxTextLength: 500, maxActivePerUser: 500 })) });
      const tool = (name: string) => tools.find((candidate) => candidate.name === name)!;

      for (const kind of ['CalDAV (Radicale)', 'built-in (Postgres)'] as const) {
        const user = await database.prisma.user.create({ data: { phone: kind.startsWith('CalDAV') ? '+14155550101' : '+14155550102', timezone: ZONE, updatedAt: new Date() } });
        if (kind.startsWith('CalDAV')) {
          const connected = await calendars.connectCaldav(user.id, { serverUrl: radicale.url, username: 'ana', password: 'app-password' });
          if (!connected.ok) throw new Error(connected.error);
        }
        const context: ToolContext = { userId: user.id, timezone: ZONE, clock: systemClock, logger: logger as Logger };
        const { provider } = await calendars.calendarOf(user.id);
        for (let index = 0; index < EVENTS; index += 1) {
          const start = month.plus({ days: index % 30, hours: 8 + (index % 10) });
          await provider.createEvent({ title: `Meeting ${index + 1}`, allDay: false, start: start.toFormat("yyyy-MM-dd'T'HH:mm"), end: start.plus({ minutes: 45 }).toFormat("yyyy-MM-dd'T'HH:mm"), timezone: ZONE });
        }
        let listed = 0;
        const list = await sampleMs(LIST_RUNS, WARM_UP, async () => {
          const output = (await runTool(tool('get_calendar_events'), { from: month.toISODate(), to: month.endOf('month').toISODate() }, context)) as { count: number };
          listed = output.count;
        });
        const create = await sampleMs(CREATE_RUNS, WARM_UP, (index) => {
          const start = month.plus({ months: 1, days: Math.abs(index) % 28, hours: 7 + (Math.abs(index) % 12) });
          return runTool(tool('create_calendar_event'), { title: `Bench ${index}`, start: start.toFormat("yyyy-MM-dd'T'HH:mm"), durationMinutes: 30 }, context);
        });
        rows.push([kind, 'get_calendar_events (a month, 200 events)', ms(percentile(list, 0.5)), ms(percentile(list, 0.95))]);
        rows.push([kind, 'create_calendar_event', ms(percentile(create, 0.5)), ms(percentile(create, 0.95))]);
        checks.push({ name: `${kind}: the month lists ${EVENTS} events`, target: String(EVENTS), measured: String(listed), pass: listed === EVENTS, kind: 'correctness' });
        checks.push({ name: `${kind}: list p95`, target: `< ${LIST_TARGET_MS} ms`, measured: `${ms(percentile(list, 0.95))} ms`, pass: percentile(list, 0.95) < LIST_TARGET_MS, kind: 'target' });
        checks.push({ name: `${kind}: create p95`, target: `< ${CREATE_TARGET_MS} ms`, measured: `${ms(percentile(create, 0.95))} ms`, pass: percentile(create, 0.95) < CREATE_TARGET_MS, kind: 'target' });
      }
    } finally {
      await radicale.stop();
      await database.close();
    }
    print(table(['calendar', 'tool', 'p50 ms', 'p95 ms'], rows));
    print('through the tools as calendar-agent calls them: list = query + expansion + the bounded summary; create = write + the overlap check');
    return { checks };
  },
};
