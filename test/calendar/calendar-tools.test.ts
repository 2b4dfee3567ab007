import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { calendarEventTools } from '../../src/agents/calendar/calendar-tools.js';
import { CalendarService } from '../../src/calendar/calendar-service.js';
import { EventReminders } from '../../src/calendar/event-reminders.js';
import { ConnectionStore } from '../../src/connections/connection-store.js';
import { SecretBox } from '../../src/connections/secret-box.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import type { JobQueue } from '../../src/queue/job-queue.js';
import { ReminderService } from '../../src/reminders/reminder-service.js';
import { ManualClock } from '../../src/shared/clock.js';
import { randomIds } from '../../src/shared/ids.js';
import type { ToolContext, ToolDefinition } from '../../src/tools/tool.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { loopbackPolicy } from '../helpers/outbound.js';

/**
 * What calendar-agent's tools ask before acting (docs/ARCHITECTURE.md "The orchestrator", step 6): moving (or changing
 * when an event ends), deleting, and inviting people wait for YES; renaming and creating a
 * private event do not. Each question names the event and its time in the user's words.
 */
describe('calendar tools: what needs the user\'s YES', () => {
  let database: TestDatabase;
  let tools: ToolDefinition[];
  let context: ToolContext;
  const tool = (name: string) => tools.find((candidate) => candidate.name === name)!;
  const ask = (name: string, input: unknown) => tool(name).confirmation!(tool(name).inputSchema.parse(input), context);

  const clock = new ManualClock('2026-03-01T12:00:00Z');

  beforeAll(async () => {
    database = await createTestDatabase(2);
    const clock = new ManualClock('2026-03-01T12:00:00Z');
    const calendars = new CalendarService({ prisma: database.prisma, connections: new ConnectionStore(database.prisma, new SecretBox(Buffer.alloc(32, 1)), clock), clock, ids: randomIds, timeoutMs: 1000, outbound: loopbackPolicy(), logger: createSilentLogger() });
    const reminders = new ReminderService(database.prisma, undefined as unknown as JobQueue, clock, { maxTextLength: 500, maxActivePerUser: 500 });
    tools = calendarEventTools({ calendars, eventReminders: new EventReminders(database.prisma, reminders) });
  });
  // Each test has a user of its own, with a dentist appointment on Friday.
  let counter = 0;
  beforeEach(async () => {
    counter += 1;
    const user = await database.prisma.user.create({ data: { phone: `+1415555${String(1900 + counter)}`, timezone: 'America/New_York', updatedAt: new Date() } });
    context = { userId: user.id, timezone: 'America/New_York', clock, logger: createSilentLogger() };
    const created = await tool('create_calendar_event').run(tool('create_calendar_event').inputSchema.parse({ title: 'Dentist', start: '2026-03-06T15:00', durationMinutes: 45 }), context);
    expect(created.isError).toBe(false);
  });
  afterAll(async () => {
    await database.drop();
  });

  it('creating a private event asks nothing; inviting people asks first', async () => {
    expect(await ask('create_calendar_event', { title: 'Gym', start: '2026-03-07T08:00' })).toBeUndefined();
    expect(await ask('create_calendar_event', { title: 'Lunch with Dana', start: '2026-03-06T13:00', attendees: ['dana@example.com'] })).toEqual({
      question: 'Add "Lunch with Dana" on Fri 6 Mar, 1:00 PM and invite dana@example.com?',
      done: 'Added "Lunch with Dana" (Fri 6 Mar, 1:00 PM) and invited dana@example.com.',
    });
  });

  it('renaming asks nothing; moving, or changing when it ends, asks, naming the event by id and version', async () => {
    expect(await ask('update_calendar_event', { match: 'dentist', title: 'Dentist (Dr Lee)' })).toBeUndefined();
    const moved = await ask('update_calendar_event', { match: 'dentist', start: '2026-03-09T10:00' });
    expect(moved).toMatchObject({ question: 'Move "Dentist" from Fri 6 Mar, 3:00 PM to Mon 9 Mar, 10:00 AM?', done: 'Moved "Dentist" to Mon 9 Mar, 10:00 AM.', input: { eventId: expect.any(String), version: '0', start: '2026-03-09T10:00' } });
    expect(await ask('update_calendar_event', { match: 'dentist', durationMinutes: 90 })).toMatchObject({ question: 'Change "Dentist" (Fri 6 Mar, 3:00 PM) to end at 4:30 PM?' });
    expect(await ask('delete_calendar_event', { match: 'dentist' })).toMatchObject({ question: 'Delete "Dentist" on Fri 6 Mar, 3:00 PM?' });
  });

  it('without the YES the tools refuse to move or delete, even when called directly', async () => {
    const moved = await tool('update_calendar_event').run(tool('update_calendar_event').inputSchema.parse({ match: 'dentist', start: '2026-03-09T10:00' }), context);
    expect(moved).toMatchObject({ isError: true });
    const deleted = await tool('delete_calendar_event').run(tool('delete_calendar_event').inputSchema.parse({ match: 'dentist' }), context);
    expect(deleted).toMatchObject({ isError: true, error: expect.stringContaining('Nothing was deleted') });
    const confirmed = await tool('delete_calendar_event').run(tool('delete_calendar_event').inputSchema.parse({ match: 'dentist' }), { ...context, confirmed: true });
    expect(confirmed).toMatchObject({ isError: false, output: { effect: 'deleted', event: { title: 'Dentist', when: 'Fri 6 Mar, 3:00 PM–3:45 PM' } } });
  });
});
