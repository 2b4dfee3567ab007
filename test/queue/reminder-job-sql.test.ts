import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { turnQueueDefinition } from '../../src/queue/turn-queue.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { createUser, reminderJobs, startQueueWithoutWorkers } from '../reminders/support.js';

/**
 * A reminder delivery writes the jobs of the next occurrence and of its follow-up check in
 * its own SQL statement (src/reminders/reminder-delivery.ts). Those rows must be what
 * pg-boss 10's `send` writes for the same jobs — which is how ReminderService schedules
 * occurrences everywhere else — so that a pg-boss upgrade changing its table fails here,
 * not in production.
 */

const columns = `name, data, priority, state, retry_limit, retry_count, retry_delay, retry_backoff, singleton_key, singleton_on,
  EXTRACT(epoch FROM expire_in)::int AS expire_seconds, start_after, keep_until, dead_letter, policy, started_on, completed_on, output`;

const ZONE = 'America/New_York';

describe('a reminder delivery writes its jobs exactly as pg-boss would', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock('2026-03-02T15:00:00Z');

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, start: false });
    await startQueueWithoutWorkers(harness);
  });
  afterAll(async () => {
    await harness.close();
  });

  it('matches the rows pg-boss 10 writes for the next occurrence and the follow-up check, column for column', async () => {
    const user = await createUser(harness, '+14155550170', { timezone: ZONE });
    const created = await harness.herald.reminders.create(user.id, ZONE, { text: 'Take pills', at: '2026-03-03T09:00', recurrence: { frequency: 'daily' } });
    if (!created.ok) throw new Error(created.error);
    const dueAt = new Date('2026-03-03T14:00:00Z');
    await harness.database.pool.query(`DELETE FROM pgboss.job WHERE name = 'reminder'`);

    clock.set('2026-03-03T14:00:01Z');
    expect(await harness.herald.reminderDelivery.deliver({ reminderId: created.value.id, dueAt: dueAt.toISOString() })).toMatchObject({ status: 'sent', duplicate: false });
    const written = await reminderJobs(harness.database);
    expect(written.map((job) => job.data)).toEqual([
      { reminderId: created.value.id, dueAt: dueAt.toISOString(), recheck: true },
      { reminderId: created.value.id, dueAt: '2026-03-04T14:00:00.000Z' },
    ]);
    const recheckAt = written[0]!.startAfter;

    // The same two jobs, sent through pg-boss.
    await harness.database.prisma.$transaction(async (transaction) => {
      await harness.herald.reminders.scheduleOccurrence(transaction, created.value.id, new Date('2026-03-04T14:00:00Z'));
      await harness.herald.reminders.scheduleOccurrence(transaction, created.value.id, dueAt, recheckAt);
    });

    const { rows } = await harness.database.pool.query(`SELECT ${columns} FROM pgboss.job WHERE name = 'reminder' ORDER BY start_after, created_on`);
    expect(rows).toHaveLength(4);
    const [ours, theirs, oursNext, theirsNext] = rows;
    expect(ours.data.recheck).toBe(true);
    expect(ours).toEqual(theirs);
    expect(oursNext.data.recheck).toBeUndefined();
    expect(oursNext).toEqual(theirsNext);
  });
});

describe('a reminder delivery when the reminder queue does not exist', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock('2026-03-02T15:00:00Z');

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, start: false });
    // pg-boss's schema, without the reminder queue.
    await harness.herald.queue.start([turnQueueDefinition(120_000)]);
  });
  afterAll(async () => {
    await harness.close();
  });

  it('refuses, as ReminderService does, and leaves nothing behind: no delivery, no message, the reminder unchanged', async () => {
    const user = await createUser(harness, '+14155550171', { timezone: ZONE });
    const dueAt = new Date('2026-03-02T22:00:00Z');
    const reminder = await harness.database.prisma.reminder.create({
      data: { userId: user.id, text: 'Call mom', timezone: ZONE, startLocal: '2026-03-02T17:00', nextDueAt: dueAt, createdAt: clock.now(), updatedAt: clock.now() },
    });
    clock.set('2026-03-02T22:00:01Z');
    await expect(harness.herald.reminderDelivery.deliver({ reminderId: reminder.id, dueAt: dueAt.toISOString() })).rejects.toThrow(/queue does not exist/);
    expect(harness.twilio.requests).toHaveLength(0);
    expect(await harness.database.prisma.reminderDelivery.count()).toBe(0);
    expect(await harness.database.prisma.outboundMessage.count()).toBe(0);
    expect(await harness.database.prisma.reminder.findUniqueOrThrow({ where: { id: reminder.id } })).toEqual(reminder);
  });
});
