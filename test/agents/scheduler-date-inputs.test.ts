import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { schedulerTools } from '../../src/agents/scheduler/scheduler-tools.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { ToolContext, ToolDefinition } from '../../src/tools/tool.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { createUser, reminderJobs, startQueueWithoutWorkers } from '../reminders/support.js';

/**
 * Forgiving tools, strict effects (issue 7): a model writes a date-time as it knows it.
 * Every form of `at` — the user's wall clock, an ISO timestamp with the zone's offset, the
 * same instant in UTC — creates the same reminder (one row, one job, one instant). An
 * offset that is not the zone's at that instant keeps the instant and says the local time.
 */
describe('scheduler tools: `at` as wall clock, with an offset, or in UTC', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock();
  let tools: Map<string, ToolDefinition>;
  let userId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, start: false });
    await startQueueWithoutWorkers(harness);
    tools = new Map(schedulerTools(harness.herald.reminders).map((tool) => [tool.name, tool]));
    userId = (await createUser(harness, '+14155550977', { timezone: 'America/Chicago' })).id;
  });
  beforeEach(async () => {
    clock.set('2026-03-01T12:00:00Z');
    await harness.database.pool.query(`DELETE FROM pgboss.job WHERE name = 'reminder'`);
    await harness.database.prisma.reminder.deleteMany();
  });
  afterAll(async () => {
    await harness.close();
  });

  /** Runs a tool as the tool loop does: the model's input through the schema, then `run`. */
  async function call(name: string, input: unknown, timezone = 'America/Chicago') {
    const tool = tools.get(name)!;
    const parsed = tool.inputSchema.safeParse(input);
    if (!parsed.success) return { isError: true as const, error: parsed.error.message };
    const context: ToolContext = { userId, timezone, clock, logger: createSilentLogger() };
    return tool.run(parsed.data, context);
  }

  // 2026-03-08 is the night US clocks go forward (at 02:00): by 09:30 Chicago is on CDT, UTC-05:00.
  it.each(['2026-03-08T09:30', '2026-03-08T09:30:00-05:00', '2026-03-08T14:30:00Z', '2026-03-08T14:30:00.000Z', '2026-03-08 09:30:00'])(
    'at %s creates the reminder for 09:30 Chicago time (14:30 UTC)',
    async (at) => {
      const result = await call('create_scheduled_job', { text: 'Stretch', at });
      expect(result).toMatchObject({ isError: false, output: { effect: 'created', reminder: { nextLocal: '2026-03-08T09:30', next: 'Sun, Mar 8, 9:30 AM' } } });
      // A UTC time is converted; the model is told the local time to say.
      const note = result.isError === false ? (result.output as { note?: string }).note : undefined;
      if (at.endsWith('Z')) expect(note).toBe("The time was given in UTC: that is 09:30 on Sun 8 Mar 2026 in the user's time zone (America/Chicago). Tell the user this local time.");
      else expect(note).toBeUndefined();
      const rows = await harness.database.prisma.reminder.findMany({ where: { userId } });
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ text: 'Stretch', startLocal: '2026-03-08T09:30', nextDueAt: new Date('2026-03-08T14:30:00Z') });
      expect(await reminderJobs(harness.database)).toHaveLength(1);
    },
  );

  it('keeps the instant when the offset is not the zone\'s, and says the local time', async () => {
    // -06:00 was Chicago's offset the week before (CST): the model guessed wrong.
    const result = await call('create_scheduled_job', { text: 'Stretch', at: '2026-03-08T09:30:00-06:00' });
    expect(result).toMatchObject({ isError: false, output: { reminder: { nextLocal: '2026-03-08T10:30' } } });
    const note = result.isError === false ? (result.output as { note?: string }).note : undefined;
    expect(note).toContain('10:30');
    expect(note).toContain('Tell the user this local time');
    expect((await harness.database.prisma.reminder.findFirstOrThrow({ where: { userId } })).nextDueAt).toEqual(new Date('2026-03-08T15:30:00Z'));
  });

  it('moves a reminder with an offset too, and keeps seconds', async () => {
    await call('create_scheduled_job', { text: 'Stretch', at: '2026-03-08T09:30' });
    const moved = await call('update_scheduled_job', { match: 'stretch', at: '2026-03-09T16:45:30Z' });
    expect(moved).toMatchObject({ isError: false, output: { effect: 'updated', reminder: { nextLocal: '2026-03-09T11:45:30' } } });
  });

  it('a timestamp at a time the clocks show twice picks the right one of the two, without asking', async () => {
    clock.set('2026-10-20T12:00:00Z');
    // 2026-11-01 01:30 happens twice in Chicago: 06:30Z (CDT) and 07:30Z (CST).
    const second = await call('create_scheduled_job', { text: 'Second 1:30', at: '2026-11-01T07:30:00Z' });
    expect(second).toMatchObject({ isError: false, output: { reminder: { nextLocal: '2026-11-01T01:30' } } });
    const ambiguous = await call('create_scheduled_job', { text: 'Which 1:30?', at: '2026-11-01T01:30' });
    expect(ambiguous).toMatchObject({ isError: true, error: expect.stringContaining('happens twice') });
    const rows = await harness.database.prisma.reminder.findMany({ where: { userId } });
    expect(rows.map((row) => row.nextDueAt)).toEqual([new Date('2026-11-01T07:30:00Z')]);
  });

  it('refuses what is not a date-time, saving nothing', async () => {
    for (const at of ['tomorrow at 9', '2026-03-08', '2026-02-30T09:00', '2026-03-08T25:00']) {
      const result = await call('create_scheduled_job', { text: 'Stretch', at });
      expect(result.isError).toBe(true);
    }
    expect(await harness.database.prisma.reminder.count({ where: { userId } })).toBe(0);
  });
});
