import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { waitingOnLocks } from '../helpers/lock-race.js';
import { createUser, eventually, occurrenceJobs, reminderJobs, startQueueWithoutWorkers } from '../reminders/support.js';

/**
 * Delivery of due reminders (issue 4): on time, late, too late; recurring ones schedule
 * their next occurrence at the same local time across DST; exactly once however often a
 * job runs; opted-out users get nothing; WhatsApp's 24-hour window; Twilio failures.
 *
 * Most tests fire occurrences by hand at fake times (pg-boss compares start_after with
 * the database's clock, not the injected one): the harness runs no worker, so the jobs a
 * delivery enqueues stay in pgboss.job to be checked.
 */

const ZONE = 'America/New_York';
const HOUR = 3_600_000;

describe('reminder delivery at fake times', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock();
  let userId: string;
  const phone = '+14155550160';

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, start: false, env: { REMINDER_LATE_AFTER_MS: '60000', REMINDER_MAX_LATENESS_MS: String(HOUR) } });
    await startQueueWithoutWorkers(harness);
    userId = (await createUser(harness, phone, { timezone: ZONE })).id;
  });
  beforeEach(async () => {
    clock.set('2026-03-02T15:00:00Z');
    await harness.database.pool.query(`DELETE FROM pgboss.job WHERE name = 'reminder'`);
    await harness.database.prisma.reminder.deleteMany();
    await harness.database.prisma.outboundMessage.deleteMany();
    await harness.database.prisma.user.update({ where: { id: userId }, data: { optedOut: false } });
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  const prisma = () => harness.database.prisma;
  const delivery = () => harness.herald.reminderDelivery;

  async function create(text: string, at: string, recurrence?: Parameters<HeraldHarness['herald']['reminders']['create']>[2]['recurrence']) {
    const created = await harness.herald.reminders.create(userId, ZONE, { text, at, recurrence });
    if (!created.ok) throw new Error(created.error);
    return prisma().reminder.findUniqueOrThrow({ where: { id: created.value.id } });
  }

  /** Runs an occurrence's job by hand at `at`. */
  function fire(reminderId: string, dueAt: Date, at: Date | string, recheck = false) {
    clock.set(at);
    return delivery().deliver({ reminderId, dueAt: dueAt.toISOString(), ...(recheck ? { recheck: true } : {}) });
  }

  const bodies = () => harness.twilio.messages.map((message) => message.body);

  it('on time: "⏰ Reminder: …" to the user, recorded as sent, a one-off completes', async () => {
    const reminder = await create('Call mom', '2026-03-02T17:00');
    expect(await fire(reminder.id, reminder.nextDueAt!, '2026-03-02T22:00:02Z')).toEqual({ kind: 'handled', status: 'sent', duplicate: false });
    expect(harness.twilio.messages).toHaveLength(1);
    expect(harness.twilio.messages[0]).toMatchObject({ to: phone, body: '⏰ Reminder: Call mom' });
    expect(await prisma().reminderDelivery.findMany()).toMatchObject([{ reminderId: reminder.id, status: 'sent', dueAt: new Date('2026-03-02T22:00:00Z') }]);
    expect(await prisma().reminder.findUniqueOrThrow({ where: { id: reminder.id } })).toMatchObject({
      status: 'completed',
      nextDueAt: null,
      occurrencesSent: 1,
      lastSentAt: new Date('2026-03-02T22:00:02Z'),
    });
    // A one-off leaves no next occurrence behind, only the follow-up check of this one.
    expect(await occurrenceJobs(harness.database)).toHaveLength(1);
  });

  it('late within the limit: sent, marked "(late: due at …)"', async () => {
    const reminder = await create('Call mom', '2026-03-02T17:00');
    expect(await fire(reminder.id, reminder.nextDueAt!, '2026-03-02T22:20:00Z')).toMatchObject({ status: 'late' });
    expect(bodies()).toEqual(['⏰ Reminder (late: due at Mon, Mar 2, 5:00 PM): Call mom']);
  });

  it('later than REMINDER_MAX_LATENESS_MS: reported as missed, not sent as if current', async () => {
    const reminder = await create('Call mom', '2026-03-02T17:00');
    expect(await fire(reminder.id, reminder.nextDueAt!, '2026-03-02T23:00:01Z')).toMatchObject({ status: 'reported' });
    expect(bodies()).toEqual(['I missed a reminder while I was offline, sorry: "Call mom" (it was due Mon, Mar 2, 5:00 PM).']);
    expect((await prisma().reminder.findUniqueOrThrow({ where: { id: reminder.id } })).status).toBe('completed');
  });

  it('recurring: firing schedules the next occurrence as a new job and advances nextDueAt', async () => {
    const reminder = await create('Take pills', '2026-03-03T09:00', { frequency: 'daily' });
    expect(await occurrenceJobs(harness.database)).toMatchObject([{ data: { dueAt: '2026-03-03T14:00:00.000Z' } }]);
    await fire(reminder.id, reminder.nextDueAt!, '2026-03-03T14:00:01Z');
    expect(bodies()).toEqual(['⏰ Reminder: Take pills']);
    expect(await prisma().reminder.findUniqueOrThrow({ where: { id: reminder.id } })).toMatchObject({
      status: 'active',
      nextDueAt: new Date('2026-03-04T14:00:00Z'),
      occurrencesSent: 1,
    });
    const jobs = await reminderJobs(harness.database, reminder.id);
    expect(jobs.map((job) => [job.data.dueAt, job.startAfter.toISOString(), job.data.recheck ?? false])).toEqual([
      ['2026-03-03T14:00:00.000Z', '2026-03-03T14:00:00.000Z', false],
      // The follow-up that completes this occurrence's send if the process dies while sending.
      ['2026-03-03T14:00:00.000Z', '2026-03-03T14:00:36.000Z', true],
      ['2026-03-04T14:00:00.000Z', '2026-03-04T14:00:00.000Z', false],
    ]);
  });

  it('recurring across DST: the next job after the change is at 09:00 local with the new offset', async () => {
    clock.set('2026-03-06T15:00:00Z');
    const spring = await create('Take pills', '2026-03-07T09:00', { frequency: 'daily' });
    expect(spring.nextDueAt).toEqual(new Date('2026-03-07T14:00:00Z'));
    await fire(spring.id, spring.nextDueAt!, '2026-03-07T14:00:00.500Z');
    const [afterSpring] = await occurrenceJobs(harness.database, spring.id).then((jobs) => jobs.slice(-1));
    expect(afterSpring?.startAfter).toEqual(new Date('2026-03-08T13:00:00Z'));
    expect(DateTime.fromJSDate(afterSpring!.startAfter, { zone: ZONE }).toFormat('yyyy-MM-dd HH:mm ZZ')).toBe('2026-03-08 09:00 -04:00');
    await fire(spring.id, afterSpring!.startAfter, '2026-03-08T13:00:00.500Z');
    expect((await prisma().reminder.findUniqueOrThrow({ where: { id: spring.id } })).nextDueAt).toEqual(new Date('2026-03-09T13:00:00Z'));

    clock.set('2026-10-30T15:00:00Z');
    const fall = await create('Water plants', '2026-10-31T09:00', { frequency: 'daily' });
    await fire(fall.id, fall.nextDueAt!, '2026-10-31T13:00:00.500Z');
    const [afterFall] = await occurrenceJobs(harness.database, fall.id).then((jobs) => jobs.slice(-1));
    expect(DateTime.fromJSDate(afterFall!.startAfter, { zone: ZONE }).toFormat('yyyy-MM-dd HH:mm ZZ')).toBe('2026-11-01 09:00 -05:00');
    expect(bodies()).toEqual(['⏰ Reminder: Take pills', '⏰ Reminder: Take pills', '⏰ Reminder: Water plants']);
  });

  it('a late delivery inside the repeated hour does not schedule the occurrence it just handled again', async () => {
    clock.set('2026-10-30T12:00:00Z');
    const reminder = await create('Night meds', '2026-10-31T01:30', { frequency: 'daily' });
    await fire(reminder.id, reminder.nextDueAt!, '2026-10-31T05:30:00Z');
    const due = (await prisma().reminder.findUniqueOrThrow({ where: { id: reminder.id } })).nextDueAt!;
    expect(due).toEqual(new Date('2026-11-01T05:30:00Z')); // 01:30 EDT, the first of the two
    // Handled 40 minutes late, at 01:10 EST: the wall clock reads before 01:30 again.
    expect(await fire(reminder.id, due, '2026-11-01T06:10:00Z')).toMatchObject({ status: 'late' });
    expect((await prisma().reminder.findUniqueOrThrow({ where: { id: reminder.id } })).nextDueAt).toEqual(new Date('2026-11-02T06:30:00Z'));
  });

  it('after downtime, missed occurrences are not replayed one by one: one report, then the next one ahead', async () => {
    const reminder = await create('Take pills', '2026-03-03T09:00', { frequency: 'daily' });
    // Down from before Mar 3 09:00 until Mar 6 10:00: the Mar 3 job runs then.
    expect(await fire(reminder.id, reminder.nextDueAt!, '2026-03-06T15:00:00Z')).toMatchObject({ status: 'reported' });
    expect(bodies()).toEqual(['I missed a reminder while I was offline, sorry: "Take pills" (it was due Tue, Mar 3, 9:00 AM).']);
    expect(await prisma().reminderDelivery.count()).toBe(1);
    expect((await prisma().reminder.findUniqueOrThrow({ where: { id: reminder.id } })).nextDueAt).toEqual(new Date('2026-03-07T14:00:00Z'));
    expect((await occurrenceJobs(harness.database, reminder.id)).map((job) => job.data.dueAt)).toEqual(['2026-03-03T14:00:00.000Z', '2026-03-07T14:00:00.000Z']);
  });

  it('the same job run twice, one after the other and at once, sends one message and schedules one next occurrence', async () => {
    const reminder = await create('Take pills', '2026-03-03T09:00', { frequency: 'daily' });
    const job = { reminderId: reminder.id, dueAt: reminder.nextDueAt!.toISOString() };
    clock.set('2026-03-03T14:00:01Z');
    const [first, second] = await Promise.allSettled([delivery().deliver(job), delivery().deliver(job)]);
    // One handles it; the other finds it handled (and, if the message was still on its way,
    // fails so that the queue looks again later, when there is nothing left to send).
    const outcomes = [first, second].flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    expect(outcomes.filter((outcome) => outcome.kind === 'handled' && !outcome.duplicate)).toHaveLength(1);
    expect(await delivery().deliver(job)).toEqual({ kind: 'handled', status: 'sent', duplicate: true });
    expect(await delivery().deliver(job)).toEqual({ kind: 'handled', status: 'sent', duplicate: true });
    expect(bodies()).toEqual(['⏰ Reminder: Take pills']);
    expect(await prisma().reminderDelivery.count()).toBe(1);
    expect((await occurrenceJobs(harness.database, reminder.id)).map((stored) => stored.data.dueAt)).toEqual(['2026-03-03T14:00:00.000Z', '2026-03-04T14:00:00.000Z']);
    expect((await prisma().reminder.findUniqueOrThrow({ where: { id: reminder.id } })).occurrencesSent).toBe(1);
  });

  it('two deliveries of one occurrence that both started before either could record it: one message, one next occurrence', async () => {
    const reminder = await create('Take pills', '2026-03-03T09:00', { frequency: 'daily' });
    const job = { reminderId: reminder.id, dueAt: reminder.nextDueAt!.toISOString() };
    clock.set('2026-03-03T14:00:01Z');
    const pool = harness.database.pool;
    // Both transactions are open and queued on the reminder's lock before either may take it.
    const holder = await pool.connect();
    let outcomes: Array<PromiseSettledResult<Awaited<ReturnType<ReturnType<typeof delivery>['deliver']>>>>;
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM "Reminder" WHERE id = $1::uuid FOR UPDATE`, [reminder.id]);
      const racing = Promise.allSettled([delivery().deliver(job), delivery().deliver(job)]);
      await eventually(async () => ((await waitingOnLocks(pool)) >= 2 ? true : undefined), 'both deliveries to wait on the reminder\'s lock');
      await holder.query('COMMIT');
      outcomes = await racing;
    } finally {
      holder.release();
    }

    const handled = outcomes.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    expect(handled.filter((outcome) => outcome.kind === 'handled' && !outcome.duplicate)).toHaveLength(1);
    expect(bodies()).toEqual(['⏰ Reminder: Take pills']);
    expect(await prisma().reminderDelivery.count()).toBe(1);
    expect((await occurrenceJobs(harness.database, reminder.id)).map((stored) => stored.data.dueAt)).toEqual(['2026-03-03T14:00:00.000Z', '2026-03-04T14:00:00.000Z']);
    expect((await prisma().reminder.findUniqueOrThrow({ where: { id: reminder.id } })).occurrencesSent).toBe(1);
  });

  it('a job that waited for the reminder\'s lock while another handled the occurrence finds it handled; one that waited out a move finds it stale', async () => {
    const pool = harness.database.pool;
    /** Runs `change` holding the reminder's row lock while a delivery of `dueAt` waits for it. */
    async function whileDeliveryWaits(reminderId: string, dueAt: Date, change: (client: import('pg').PoolClient) => Promise<void>) {
      const holder = await pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query(`SELECT 1 FROM "Reminder" WHERE id = $1::uuid FOR UPDATE`, [reminderId]);
        const waiting = delivery().deliver({ reminderId, dueAt: dueAt.toISOString() });
        await eventually(async () => ((await waitingOnLocks(pool)) > 0 ? true : undefined), 'the delivery to wait on the reminder\'s lock');
        await change(holder);
        await holder.query('COMMIT');
        return await waiting;
      } finally {
        holder.release();
      }
    }

    const handled = await create('Call mom', '2026-03-02T17:00');
    clock.set('2026-03-02T22:00:01Z');
    // As a concurrent delivery of the same occurrence leaves it, committed while this one waited.
    const outcome = await whileDeliveryWaits(handled.id, handled.nextDueAt!, async (client) => {
      await client.query(
        `INSERT INTO "ReminderDelivery" ("id", "reminderId", "userId", "dueAt", "status", "handledAt") VALUES (gen_random_uuid(), $1::uuid, $2::uuid, $3::timestamp, 'sent', $4::timestamp)`,
        [handled.id, userId, handled.nextDueAt!.toISOString().replace('Z', ''), '2026-03-02T22:00:01'],
      );
      await client.query(`UPDATE "Reminder" SET "status" = 'completed', "nextDueAt" = NULL WHERE id = $1::uuid`, [handled.id]);
    });
    expect(outcome).toEqual({ kind: 'handled', status: 'sent', duplicate: true });

    clock.set('2026-03-02T15:00:00Z');
    const moved = await create('Water plants', '2026-03-02T17:00');
    clock.set('2026-03-02T22:00:01Z');
    const stale = await whileDeliveryWaits(moved.id, moved.nextDueAt!, async (client) => {
      await client.query(`UPDATE "Reminder" SET "nextDueAt" = $2::timestamp WHERE id = $1::uuid`, [moved.id, '2026-03-03T22:00:00']);
    });
    expect(stale).toEqual({ kind: 'stale' });
    expect(harness.twilio.requests).toHaveLength(0);
    expect(await prisma().reminderDelivery.count()).toBe(1);
  });

  it('an opted-out user gets nothing; the occurrence is recorded opted_out and a recurring reminder still advances', async () => {
    await prisma().user.update({ where: { id: userId }, data: { optedOut: true } });
    const reminder = await create('Take pills', '2026-03-03T09:00', { frequency: 'daily' });
    expect(await fire(reminder.id, reminder.nextDueAt!, '2026-03-03T14:00:01Z')).toMatchObject({ status: 'opted_out' });
    expect(harness.twilio.requests).toHaveLength(0);
    expect(await prisma().outboundMessage.count()).toBe(0);
    expect(await prisma().reminderDelivery.findMany()).toMatchObject([{ status: 'opted_out', outboundGroupId: null }]);
    expect(await prisma().reminder.findUniqueOrThrow({ where: { id: reminder.id } })).toMatchObject({ status: 'active', nextDueAt: new Date('2026-03-04T14:00:00Z'), occurrencesSent: 0 });
    expect((await occurrenceJobs(harness.database, reminder.id)).map((job) => job.data.dueAt)).toContain('2026-03-04T14:00:00.000Z');
    // Nothing was staged, so there is nothing to check on later.
    expect((await reminderJobs(harness.database, reminder.id)).some((job) => job.data.recheck)).toBe(false);
  });

  it('skipped occurrences (their event occurrence moved or was deleted) are stepped over: nothing sent, the series carries on', async () => {
    const reminder = await create('Choir at 6:00 PM', '2026-03-03T17:30', { frequency: 'weekly', weekdays: ['TU'] });
    const [first, second, third, fourth] = ['2026-03-03T22:30:00Z', '2026-03-10T21:30:00Z', '2026-03-17T21:30:00Z', '2026-03-24T21:30:00Z'].map((iso) => new Date(iso)) as [Date, Date, Date, Date];
    expect(reminder.nextDueAt).toEqual(first);
    const services = harness.herald.reminders;

    // The next one due: the reminder moves on at once; the old job finds nothing to do.
    await services.skipOccurrence(userId, reminder.id, first);
    expect(await prisma().reminder.findUniqueOrThrow({ where: { id: reminder.id } })).toMatchObject({ status: 'active', nextDueAt: second });
    expect((await occurrenceJobs(harness.database, reminder.id)).map((job) => job.data.dueAt)).toEqual([first.toISOString(), second.toISOString()]);
    expect(await fire(reminder.id, first, '2026-03-03T22:30:01Z')).toEqual({ kind: 'handled', status: 'skipped', duplicate: true });
    expect(harness.twilio.requests).toHaveLength(0);

    // A later one: the delivery before it schedules the one after it. Past or foreign ones are ignored.
    await services.skipOccurrence(userId, reminder.id, third);
    await services.skipOccurrence(userId, reminder.id, new Date('2026-03-01T00:00:00Z'));
    await services.skipOccurrence(randomUUID(), reminder.id, fourth);
    expect(await fire(reminder.id, second, '2026-03-10T21:30:01Z')).toMatchObject({ status: 'sent', duplicate: false });
    expect(bodies()).toEqual(['⏰ Reminder: Choir at 6:00 PM']);
    expect(await prisma().reminder.findUniqueOrThrow({ where: { id: reminder.id } })).toMatchObject({ nextDueAt: fourth, occurrencesSent: 1 });
    expect((await prisma().reminderDelivery.findMany({ where: { reminderId: reminder.id }, orderBy: { dueAt: 'asc' } })).map((row) => [row.dueAt.toISOString(), row.status])).toEqual([
      [first.toISOString(), 'skipped'],
      [second.toISOString(), 'sent'],
      [third.toISOString(), 'skipped'],
    ]);

    // Moving the series forgets what was skipped on the old schedule.
    await services.skipOccurrence(userId, reminder.id, new Date('2026-03-31T21:30:00Z'));
    clock.set('2026-03-11T12:00:00Z');
    const moved = await services.update(userId, { reminderId: reminder.id }, { at: '2026-03-17T16:30' });
    expect(moved.ok).toBe(true);
    expect(await prisma().reminderDelivery.count({ where: { reminderId: reminder.id, status: 'skipped', dueAt: { gt: new Date('2026-03-11T12:00:00Z') } } })).toBe(0);
  });

  it('Twilio answering 503: retried, sent once', async () => {
    const reminder = await create('Call mom', '2026-03-02T17:00');
    harness.twilio.failNext({ status: 503 });
    expect(await fire(reminder.id, reminder.nextDueAt!, '2026-03-02T22:00:01Z')).toMatchObject({ status: 'sent' });
    expect(harness.twilio.requests.map((request) => request.status)).toEqual([503, 201]);
    expect(bodies()).toEqual(['⏰ Reminder: Call mom']);
    expect(await prisma().outboundMessage.findMany()).toMatchObject([{ kind: 'reminder', status: 'queued', attempts: 2 }]);
  });

  it('the follow-up check finishes a send cut off by a dead sender once its claim lapses, and otherwise does nothing', async () => {
    const reminder = await create('Call mom', '2026-03-02T17:00');
    await fire(reminder.id, reminder.nextDueAt!, '2026-03-02T22:00:01Z');
    const [recheck] = (await reminderJobs(harness.database, reminder.id)).filter((job) => job.data.recheck);
    expect(recheck?.startAfter).toEqual(new Date('2026-03-02T22:00:36Z'));
    // Sent already: the check finds nothing to do.
    expect(await fire(reminder.id, reminder.nextDueAt!, recheck!.startAfter, true)).toEqual({ kind: 'handled', status: 'sent', duplicate: true });
    expect(harness.twilio.requests).toHaveLength(1);

    // As a process killed mid-request leaves it: claimed ("dispatching"), never accepted.
    const part = await prisma().outboundMessage.findFirstOrThrow({ where: { kind: 'reminder' } });
    await prisma().outboundMessage.update({
      where: { id: part.id },
      data: { status: 'dispatching', statusRank: 1, twilioSid: null, nextAttemptAt: new Date('2026-03-02T22:00:31Z') },
    });
    harness.twilio.reset();
    // While the claim holds, another sender may still be at it: nothing is sent, the job is retried later.
    await expect(fire(reminder.id, reminder.nextDueAt!, '2026-03-02T22:00:30Z', true)).rejects.toThrow(/deferred/);
    expect(harness.twilio.requests).toHaveLength(0);
    expect(await fire(reminder.id, reminder.nextDueAt!, recheck!.startAfter, true)).toEqual({ kind: 'handled', status: 'sent', duplicate: true });
    expect(bodies()).toEqual(['⏰ Reminder: Call mom']);
    expect(await prisma().reminderDelivery.count()).toBe(1);
  });

  it('the occurrence\'s own job, run again after its sender died mid-send, finishes that send once and records nothing new', async () => {
    const reminder = await create('Water the plants', '2026-03-02T17:00', { frequency: 'daily' });
    const dueAt = reminder.nextDueAt!;
    await fire(reminder.id, dueAt, '2026-03-02T22:00:01Z');
    const part = await prisma().outboundMessage.findFirstOrThrow({ where: { kind: 'reminder' } });
    await prisma().outboundMessage.update({
      where: { id: part.id },
      data: { status: 'dispatching', statusRank: 1, twilioSid: null, nextAttemptAt: new Date('2026-03-02T22:00:31Z') },
    });
    harness.twilio.reset();
    // pg-boss hands the expired job to another worker: the full path, not the follow-up's glance.
    expect(await fire(reminder.id, dueAt, '2026-03-02T22:05:00Z')).toEqual({ kind: 'handled', status: 'sent', duplicate: true });
    expect(bodies()).toEqual(['⏰ Reminder: Water the plants']);
    expect(await prisma().reminderDelivery.count({ where: { reminderId: reminder.id } })).toBe(1);
    // One next occurrence, still: the re-run scheduled nothing.
    expect((await reminderJobs(harness.database, reminder.id)).filter((job) => !job.data.recheck && new Date(job.data.dueAt) > dueAt)).toHaveLength(1);
  });
});

describe('recovering overdue reminders nobody handled', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock('2026-03-02T15:00:00Z');

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, start: false });
    await startQueueWithoutWorkers(harness);
  });
  afterAll(async () => {
    await harness.close();
  });

  it('re-enqueues the job of an occurrence overdue and never handled, and of no other', async () => {
    const user = await createUser(harness, '+14155550165');
    const ids: Record<string, string> = {};
    for (const [text, at] of [
      ['Orphaned', '2026-03-02T11:00'],
      ['Handled', '2026-03-02T11:00'],
      ['Just due', '2026-03-02T12:00'],
      ['Future', '2026-03-02T13:00'],
    ] as const) {
      const created = await harness.herald.reminders.create(user.id, ZONE, { text, at });
      if (!created.ok) throw new Error(created.error);
      ids[text] = created.value.id;
    }
    clock.set('2026-03-02T16:00:30Z');
    await harness.herald.reminderDelivery.deliver({ reminderId: ids.Handled!, dueAt: '2026-03-02T16:00:00.000Z' });
    await harness.database.pool.query(`DELETE FROM pgboss.job WHERE name = 'reminder'`);
    clock.set('2026-03-02T17:00:30Z');

    expect(await harness.herald.reminderDelivery.recoverOverdue(60_000)).toBe(1);
    expect((await reminderJobs(harness.database)).map((job) => [job.data.reminderId, job.data.dueAt])).toEqual([[ids.Orphaned, '2026-03-02T16:00:00.000Z']]);
    // Delivered by that job, late; after which there is nothing left to recover.
    expect(await harness.herald.reminderDelivery.deliver({ reminderId: ids.Orphaned!, dueAt: '2026-03-02T16:00:00.000Z' })).toMatchObject({ status: 'late' });
    expect(await harness.herald.reminderDelivery.recoverOverdue(60_000)).toBe(0);
  });
});

describe('WhatsApp reminders outside the 24-hour window, with a template configured', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock('2026-03-02T15:00:00Z');
  const templateSid = 'HX' + 'a'.repeat(32);

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, start: false, env: { TWILIO_WHATSAPP_REMINDER_CONTENT_SID: templateSid } });
    await startQueueWithoutWorkers(harness);
    // The operator's approved template, as it exists in their account.
    harness.twilio.content.register(templateSid, { body: 'Reminder: {{1}}' });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('goes as the template with the text as its variable; inside the window, as free text', async () => {
    const outside = await createUser(harness, '+14155550161', { channel: 'whatsapp', lastWhatsappInboundAt: new Date('2026-02-28T15:00:00Z') });
    const inside = await createUser(harness, '+14155550162', { channel: 'whatsapp', lastWhatsappInboundAt: new Date('2026-03-02T14:00:00Z') });
    for (const user of [outside, inside]) {
      const created = await harness.herald.reminders.create(user.id, ZONE, { text: 'Call mom', at: '2026-03-02T17:00' });
      if (!created.ok) throw new Error(created.error);
    }
    clock.set('2026-03-02T22:00:01Z');
    for (const reminder of await harness.database.prisma.reminder.findMany({ orderBy: { id: 'asc' } })) {
      expect(await harness.herald.reminderDelivery.deliver({ reminderId: reminder.id, dueAt: reminder.nextDueAt!.toISOString() })).toMatchObject({ status: 'sent' });
    }
    const [template, freeText] = harness.twilio.messages;
    expect(template).toMatchObject({ to: 'whatsapp:+14155550161', from: 'whatsapp:+14155238886', contentSid: templateSid });
    expect(JSON.parse(template!.contentVariables!)).toEqual({ '1': 'Call mom' });
    expect(freeText).toMatchObject({ to: 'whatsapp:+14155550162', contentSid: null, body: '⏰ Reminder: Call mom' });
    expect(harness.twilio.messages).toHaveLength(2);
  });
});

describe('WhatsApp reminders outside the 24-hour window, without a template', () => {
  let harness: HeraldHarness;
  // Real time, so the workers that run the user's turns find no job of ours due.
  const clock = new ManualClock(Date.now());
  const phone = '+14155550163';

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, env: { TWILIO_WHATSAPP_REMINDER_CONTENT_SID: undefined } });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('is recorded undeliverable, nothing is sent, and the user is told once, at their next message, before the reply', async () => {
    const user = await createUser(harness, phone, { channel: 'whatsapp', lastWhatsappInboundAt: new Date(clock.now().getTime() - 48 * HOUR) });
    const at = DateTime.fromJSDate(clock.now(), { zone: ZONE }).plus({ hours: 2 }).startOf('minute');
    const created = await harness.herald.reminders.create(user.id, ZONE, { text: 'Call mom', at: at.toFormat("yyyy-MM-dd'T'HH:mm") });
    if (!created.ok) throw new Error(created.error);
    const reminder = await harness.database.prisma.reminder.findUniqueOrThrow({ where: { id: created.value.id } });
    clock.set(reminder.nextDueAt!.getTime() + 1_000);
    expect(await harness.herald.reminderDelivery.deliver({ reminderId: reminder.id, dueAt: reminder.nextDueAt!.toISOString() })).toMatchObject({ status: 'undeliverable' });
    expect(harness.twilio.requests).toHaveLength(0);
    expect(await harness.database.prisma.outboundMessage.count()).toBe(0);
    expect(await harness.database.prisma.reminderDelivery.findMany()).toMatchObject([{ status: 'undeliverable', noticeDeliveredAt: null }]);

    harness.anthropic.enqueue({ text: 'Hi Ana! How can I help?' });
    await harness.inbound({ from: `whatsapp:${phone}`, body: 'hi' });
    const [notice, reply] = await harness.replies(2);
    expect(notice?.to).toBe(`whatsapp:${phone}`);
    expect(notice?.body).toBe(
      `While you were away I couldn't send this reminder (WhatsApp only lets me message you within 24 hours of your last message):\n• Call mom (${at.toFormat('ccc, LLL d, h:mm a')})`,
    );
    expect(reply?.body).toBe('Hi Ana! How can I help?');

    harness.anthropic.enqueue({ text: 'Anytime.' });
    await harness.inbound({ from: `whatsapp:${phone}`, body: 'thanks' });
    const messages = await harness.replies(3);
    expect(messages[2]?.body).toBe('Anytime.');
    expect(harness.anthropic.requests).toHaveLength(2);
    expect((await harness.database.prisma.reminderDelivery.findFirstOrThrow()).noticeDeliveredAt).not.toBeNull();
    // Told once: nothing else went out.
    expect(harness.twilio.messages).toHaveLength(3);
  });
});

describe('a reminder firing for real while Twilio answers 503', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('is retried and sent once', async () => {
    const user = await createUser(harness, '+14155550164');
    const at = DateTime.now().setZone(ZONE).plus({ seconds: 2 });
    harness.twilio.failNext({ status: 503 }, { status: 503 });
    const created = await harness.herald.reminders.create(user.id, ZONE, { text: 'Stretch', at: at.toFormat("yyyy-MM-dd'T'HH:mm:ss") });
    expect(created.ok).toBe(true);
    const [message] = await harness.replies(1);
    expect(message).toMatchObject({ to: '+14155550164', body: '⏰ Reminder: Stretch' });
    expect(harness.twilio.requests.map((request) => request.status)).toEqual([503, 503, 201]);
    expect(message!.dateCreated.getTime()).toBeGreaterThanOrEqual(at.startOf('second').toMillis());
    const [deliveryRow] = await harness.database.prisma.reminderDelivery.findMany();
    expect(deliveryRow).toMatchObject({ status: 'sent' });
    // Recorded as sent once Twilio's answer is back (just after the fake counted the message).
    const part = await eventually(async () => {
      const [stored] = await harness.database.prisma.outboundMessage.findMany();
      return stored?.status === 'queued' ? stored : undefined;
    });
    expect(part.attempts).toBe(3);
  });
});
