import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../src/db/prisma-types.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import type { MessageTransport, TransportMessage, TransportResult } from '../../src/outbox/message-transport.js';
import type { OutboxSendEvent } from '../../src/outbox/outbox-dependencies.js';
import { OutboxService } from '../../src/outbox/outbox-service.js';
import { JobQueue } from '../../src/queue/job-queue.js';
import { ReminderDelivery, type ReminderDeliveryPolicy } from '../../src/reminders/reminder-delivery.js';
import { reminderQueueDefinition, type ReminderJobData } from '../../src/reminders/reminder-queue.js';
import { ReminderService } from '../../src/reminders/reminder-service.js';
import { ManualClock } from '../../src/shared/clock.js';
import { randomIds } from '../../src/shared/ids.js';
import { UserService } from '../../src/users/user-service.js';
import { capturingLogger } from '../helpers/herald-harness.js';
import { waitingOnLocks } from '../helpers/lock-race.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { eventually, occurrenceJobs, reminderJobs } from '../reminders/support.js';

/**
 * A reminder occurrence's exactly-once claim and what it decides (issue 32 item 8), through
 * ReminderDelivery itself on real Postgres and pg-boss's tables (no worker, no harness: jobs
 * are fired by hand at fake times): the lateness limits to the millisecond, the invite gate,
 * WhatsApp's 24-hour window to the millisecond, the outbox row written already claimed (and
 * what happens when its sender dies), Twilio deferring a send, a job for an occurrence that
 * is gone, handled or moved, the follow-up glance, the recovery sweep racing a delivery, and
 * a delivery refused when its queue does not exist.
 */
const LATE_AFTER = 60_000;
const MAX_LATENESS = 3_600_000;
const CLAIM = 60_000;
const RECHECK = 65_000;
const DAY = 24 * 60 * 60 * 1000;
const TEMPLATE = 'HX' + 'b'.repeat(32);

/** Answers from a script (default: accepted), records every call; a script entry may throw, as a sender that dies mid-request. */
class ScriptedTransport implements MessageTransport {
  readonly name = 'twilio' as const;
  readonly calls: TransportMessage[] = [];
  readonly script: Array<TransportResult | (() => Promise<TransportResult>)> = [];

  async send(message: TransportMessage): Promise<TransportResult> {
    this.calls.push(message);
    const next = this.script.shift();
    if (typeof next === 'function') return next();
    return next ?? { ok: true, sid: 'SM' + randomUUID().replaceAll('-', ''), status: 'queued' };
  }
}

describe('reminder occurrence claims', () => {
  let database: TestDatabase;
  let queue: JobQueue;
  let reminders: ReminderService;
  let outbox: OutboxService;
  const clock = new ManualClock('2030-05-06T09:00:00Z');
  const transport = new ScriptedTransport();
  const sends: OutboxSendEvent[] = [];
  const { logger, logs } = capturingLogger('info');
  let phones = 0;

  beforeAll(async () => {
    database = await createTestDatabase(8);
    queue = new JobQueue(database.pool, createSilentLogger());
    await queue.start([reminderQueueDefinition]);
    reminders = new ReminderService(database.prisma, queue, clock, { maxTextLength: 500, maxActivePerUser: 100 });
    outbox = new OutboxService({
      prisma: database.prisma,
      pool: database.pool,
      transport,
      users: new UserService(database.prisma, clock),
      clock,
      ids: randomIds,
      logger: createSilentLogger(),
      policy: { retryForMs: 3_600_000, baseDelayMs: 1_000, maxDelayMs: 10_000 },
      senders: { sms: '+15005550006', whatsapp: 'whatsapp:+14155238886' },
      dispatchClaimMs: CLAIM,
      // Any retry goes back to the queue: a 503 defers the job instead of being waited out in-process.
      inlineWaitLimitMs: 0,
      sleep: async () => {},
      random: () => 1,
      onSend: (event) => sends.push(event),
    });
  });
  beforeEach(async () => {
    clock.set('2030-05-06T09:00:00Z');
    await database.pool.query(`DELETE FROM pgboss.job WHERE name = 'reminder'`);
    await prisma().reminder.deleteMany();
    await prisma().outboundMessage.deleteMany();
    await prisma().accessGrant.deleteMany();
    transport.calls.length = 0;
    transport.script.length = 0;
    sends.length = 0;
    logs.lines.length = 0;
  });
  afterAll(async () => {
    await queue?.stop(5_000);
    await database?.drop();
  });

  const prisma = () => database.prisma;
  const dueAt = new Date('2030-05-06T09:00:00Z');
  const policy: ReminderDeliveryPolicy = { lateAfterMs: LATE_AFTER, maxLatenessMs: MAX_LATENESS, recheckAfterMs: RECHECK };
  const delivery = (overrides: Partial<ReminderDeliveryPolicy> = {}, client: PrismaClient = prisma()) =>
    new ReminderDelivery(client, database.pool, reminders, outbox, clock, logger, { ...policy, ...overrides });

  async function user(fields: { channel?: 'sms' | 'whatsapp'; lastWhatsappInboundAt?: Date | null; optedOut?: boolean } = {}) {
    phones += 1;
    return prisma().user.create({
      data: {
        phone: `+1415555${String(7300 + phones)}`,
        timezone: 'UTC',
        language: 'en',
        preferredChannel: fields.channel ?? 'sms',
        lastWhatsappInboundAt: fields.lastWhatsappInboundAt ?? null,
        optedOut: fields.optedOut ?? false,
        updatedAt: clock.now(),
      },
    });
  }
  /** A reminder due at `dueAt` (a one-off unless given a rule), of a new SMS user unless given one. */
  async function reminder(fields: { userId?: string; text?: string; rrule?: string; status?: 'active' | 'cancelled' | 'completed'; nextDueAt?: Date | null } = {}) {
    const userId = fields.userId ?? (await user()).id;
    return prisma().reminder.create({
      data: {
        userId,
        text: fields.text ?? 'Call mom',
        timezone: 'UTC',
        startLocal: '2030-05-06T09:00',
        rrule: fields.rrule ?? null,
        nextDueAt: fields.nextDueAt === undefined ? dueAt : fields.nextDueAt,
        status: fields.status ?? 'active',
        createdAt: clock.now(),
        updatedAt: clock.now(),
      },
    });
  }
  const job = (reminderId: string, at = dueAt, recheck = false): ReminderJobData => ({ reminderId, dueAt: at.toISOString(), ...(recheck ? { recheck: true } : {}) });
  const parts = (userId: string) => prisma().outboundMessage.findMany({ where: { userId }, orderBy: { sequence: 'asc' } });
  const handledLogs = () => logs.lines.filter((line) => line.msg === 'reminder occurrence handled');
  const recoveryLogs = () => logs.lines.filter((line) => line.msg === 'overdue reminders that were never handled: their jobs were enqueued again');

  it('lateness at each limit to the millisecond: at lateAfterMs still on time, at maxLatenessMs still late, a millisecond more reported as missed', async () => {
    const cases: Array<[number, string, string, string]> = [
      [LATE_AFTER, 'sent', '⏰ Reminder: Call mom', 'reminder'],
      [LATE_AFTER + 1, 'late', '⏰ Reminder (late: due at Mon, May 6, 9:00 AM): Call mom', 'reminder'],
      [MAX_LATENESS, 'late', '⏰ Reminder (late: due at Mon, May 6, 9:00 AM): Call mom', 'reminder'],
      [MAX_LATENESS + 1, 'reported', 'I missed a reminder while I was offline, sorry: "Call mom" (it was due Mon, May 6, 9:00 AM).', 'reminder_missed'],
    ];
    for (const [lateness, status, body, kind] of cases) {
      const { id, userId } = await reminder();
      clock.set(dueAt.getTime() + lateness);
      expect(await delivery().deliver(job(id))).toEqual({ kind: 'handled', status, duplicate: false });
      expect((await parts(userId)).map((part) => part.body)).toEqual([body]);
      // Written into the conversation as what it was: a missed one is not a reminder going off now.
      expect(await prisma().message.findMany({ where: { reminderId: id }, select: { kind: true, content: true, reminderDueAt: true, role: true } })).toEqual([
        { kind, content: body, reminderDueAt: dueAt, role: 'assistant' },
      ]);
    }
    expect(transport.calls.map((call) => call.body)).toEqual(cases.map(([, , body]) => body));
    // One line per occurrence; each sent part reported as a reminder's.
    expect(handledLogs().map((line) => line.status)).toEqual(['sent', 'late', 'late', 'reported']);
    expect(sends.map((event) => [event.part.kind, event.status])).toEqual(cases.map(() => ['reminder', 'sent']));
  });

  it('a second job of a handled occurrence is a duplicate: nothing sent again, nothing logged as handled again', async () => {
    const { id } = await reminder();
    clock.set(dueAt.getTime() + 1_000);
    expect(await delivery().deliver(job(id))).toEqual({ kind: 'handled', status: 'sent', duplicate: false });
    expect(await delivery().deliver(job(id))).toEqual({ kind: 'handled', status: 'sent', duplicate: true });
    expect(await delivery().deliver(job(id, dueAt, true))).toEqual({ kind: 'handled', status: 'sent', duplicate: true });
    expect(transport.calls).toHaveLength(1);
    expect(handledLogs()).toHaveLength(1);
  });

  it('an occurrence with a delivery recorded while its reminder still points at it is not handled twice', async () => {
    // However the reminder came to point at it again: the delivery row is the claim.
    const { id, userId } = await reminder({ rrule: 'FREQ=DAILY' });
    await prisma().reminderDelivery.create({ data: { reminderId: id, userId, dueAt, status: 'sent', handledAt: dueAt } });
    clock.set(dueAt.getTime() + 1_000);
    expect(await delivery().deliver(job(id))).toEqual({ kind: 'handled', status: 'sent', duplicate: true });
    expect(transport.calls).toHaveLength(0);
    expect(await prisma().reminderDelivery.count({ where: { reminderId: id } })).toBe(1);
    expect(await occurrenceJobs(database, id)).toEqual([]);
  });

  it('a job whose reminder was deleted is stale, the follow-up check’s too; one for a cancelled, completed or moved reminder is stale and records nothing', async () => {
    const deleted = await reminder();
    await prisma().reminder.delete({ where: { id: deleted.id } });
    clock.set(dueAt.getTime() + 1_000);
    expect(await delivery().deliver(job(deleted.id))).toEqual({ kind: 'stale' });
    expect(await delivery().deliver(job(deleted.id, dueAt, true))).toEqual({ kind: 'stale' });

    const cancelled = await reminder({ status: 'cancelled', nextDueAt: null });
    // Cancelled by a hand-written update that left its time: the status alone makes the job stale.
    const cancelledByHand = await reminder({ status: 'cancelled' });
    const completed = await reminder({ status: 'completed', nextDueAt: null });
    const moved = await reminder({ nextDueAt: new Date(dueAt.getTime() + DAY) });
    for (const id of [cancelled.id, cancelledByHand.id, completed.id, moved.id]) expect(await delivery().deliver(job(id))).toEqual({ kind: 'stale' });
    // The job a millisecond before the moved reminder's time is not its occurrence either.
    expect(await delivery().deliver(job(moved.id, new Date(dueAt.getTime() + DAY - 1)))).toEqual({ kind: 'stale' });
    expect(await prisma().reminderDelivery.count()).toBe(0);
    expect(transport.calls).toHaveLength(0);
    expect((await prisma().reminder.findUniqueOrThrow({ where: { id: moved.id } })).nextDueAt).toEqual(new Date(dueAt.getTime() + DAY));
    expect(handledLogs()).toEqual([]);
  });

  it('a follow-up job for an occurrence never recorded (its first job was lost) delivers it in full', async () => {
    const { id } = await reminder({ rrule: 'FREQ=DAILY' });
    clock.set(dueAt.getTime() + 1_000);
    expect(await delivery().deliver(job(id, dueAt, true))).toEqual({ kind: 'handled', status: 'sent', duplicate: false });
    expect(transport.calls.map((call) => call.body)).toEqual(['⏰ Reminder: Call mom']);
    expect((await occurrenceJobs(database, id)).map((stored) => stored.data.dueAt)).toEqual([new Date(dueAt.getTime() + DAY).toISOString()]);
  });

  it('the follow-up check of a recorded occurrence is a glance: it does not queue behind an edit holding the reminder’s lock', async () => {
    const { id } = await reminder();
    clock.set(dueAt.getTime() + 1_000);
    await delivery().deliver(job(id));
    const pool = database.pool;
    const holder = await pool.connect();
    let finished = false;
    let waited: boolean;
    let glance: Promise<unknown>;
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM "Reminder" WHERE id = $1::uuid FOR UPDATE`, [id]);
      glance = delivery()
        .deliver(job(id, dueAt, true))
        .finally(() => {
          finished = true;
        });
      await eventually(async () => (finished || (await waitingOnLocks(pool)) > 0 ? true : undefined), 'the follow-up to finish or to wait on the reminder\'s lock');
      waited = !finished;
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    expect(await glance).toEqual({ kind: 'handled', status: 'sent', duplicate: true });
    expect(waited).toBe(false);
  });

  it('the follow-up check of an occurrence that staged nothing (opted out) answers its status', async () => {
    const { id } = await reminder({ userId: (await user({ optedOut: true })).id });
    clock.set(dueAt.getTime() + 1_000);
    expect(await delivery().deliver(job(id))).toEqual({ kind: 'handled', status: 'opted_out', duplicate: false });
    expect(await delivery().deliver(job(id, dueAt, true))).toEqual({ kind: 'handled', status: 'opted_out', duplicate: true });
    expect(transport.calls).toHaveLength(0);
  });

  it('invite mode: a number never invited, or revoked, gets nothing (opted_out); an invited one and an owner get theirs; open mode and no gate serve everyone', async () => {
    const [owner, invited, revoked, stranger] = [await user(), await user(), await user(), await user()];
    await prisma().accessGrant.create({ data: { phone: invited.phone, source: 'operator' } });
    await prisma().accessGrant.create({ data: { phone: revoked.phone, source: 'operator', revokedAt: dueAt } });
    const gated = delivery({ access: { mode: 'invite', ownerPhones: [owner.phone] } });
    clock.set(dueAt.getTime() + 1_000);
    const expected: Array<[{ id: string }, string]> = [
      [owner, 'sent'],
      [invited, 'sent'],
      [revoked, 'opted_out'],
      [stranger, 'opted_out'],
    ];
    for (const [who, status] of expected) {
      const { id } = await reminder({ userId: who.id });
      expect(await gated.deliver(job(id))).toEqual({ kind: 'handled', status, duplicate: false });
    }
    expect(transport.calls.map((call) => call.to)).toEqual([owner.phone, invited.phone]);

    const open = await reminder({ userId: stranger.id, text: 'open' });
    expect(await delivery({ access: { mode: 'open', ownerPhones: [owner.phone] } }).deliver(job(open.id))).toMatchObject({ status: 'sent' });
    const ungated = await reminder({ userId: stranger.id, text: 'ungated' });
    expect(await delivery().deliver(job(ungated.id))).toMatchObject({ status: 'sent' });
    expect(transport.calls.map((call) => call.body)).toEqual(['⏰ Reminder: Call mom', '⏰ Reminder: Call mom', '⏰ Reminder: open', '⏰ Reminder: ungated']);
  });

  it('WhatsApp’s window closes exactly 24 hours after the last message: then the template goes (with the text as its variable), a millisecond before free text', async () => {
    const now = dueAt.getTime() + 1_000;
    const closed = await user({ channel: 'whatsapp', lastWhatsappInboundAt: new Date(now - DAY) });
    const open = await user({ channel: 'whatsapp', lastWhatsappInboundAt: new Date(now - DAY + 1) });
    const sms = await user();
    const templated = delivery({ whatsappTemplateSid: TEMPLATE });
    clock.set(now);
    for (const who of [closed, open, sms]) {
      const { id } = await reminder({ userId: who.id });
      expect(await templated.deliver(job(id))).toMatchObject({ status: 'sent' });
    }
    const [template, freeText, text] = transport.calls;
    expect(template).toMatchObject({ to: `whatsapp:${closed.phone}`, contentSid: TEMPLATE, contentVariables: { '1': 'Call mom' } });
    expect(freeText).toEqual(expect.objectContaining({ to: `whatsapp:${open.phone}`, body: '⏰ Reminder: Call mom' }));
    expect(freeText).not.toHaveProperty('contentSid');
    // A template is WhatsApp's: an SMS user gets the text itself.
    expect(text).toEqual(expect.objectContaining({ to: sms.phone, body: '⏰ Reminder: Call mom' }));
    expect(text).not.toHaveProperty('contentSid');
    expect(await parts(closed.id)).toMatchObject([{ contentSid: TEMPLATE, contentVariables: { '1': 'Call mom' } }]);
    expect(await parts(sms.id)).toMatchObject([{ contentSid: null, contentVariables: null }]);

    // Without a template, the closed window makes it undeliverable: nothing staged.
    const untemplated = await reminder({ userId: closed.id, text: 'no template' });
    expect(await delivery().deliver(job(untemplated.id))).toMatchObject({ status: 'undeliverable' });
    expect(transport.calls).toHaveLength(3);
  });

  it('the message is written already claimed by its sender; when the sender dies mid-send, the follow-up waits out the claim, then sends it once', async () => {
    const { id, userId } = await reminder();
    clock.set(dueAt.getTime() + 1_000);
    let row: unknown;
    transport.script.push(async () => {
      // What any other sender sees while this one is talking to Twilio.
      row = (await parts(userId))[0];
      throw new Error('the process died mid-request');
    });
    await expect(delivery().deliver(job(id))).rejects.toThrow('the process died mid-request');
    const claimEnds = new Date(clock.now().getTime() + CLAIM);
    expect(row).toMatchObject({ kind: 'reminder', status: 'dispatching', attempts: 1, nextAttemptAt: claimEnds, partIndex: 0, partCount: 1 });
    expect(await prisma().reminderDelivery.findFirstOrThrow({ where: { reminderId: id } })).toMatchObject({ status: 'sent' });

    // Before the claim lapses the dead sender may still be at it: the follow-up is retried then.
    clock.set(claimEnds.getTime() - 1);
    await expect(delivery().deliver(job(id, dueAt, true))).rejects.toThrow(`reminder ${id} delivery deferred until ${claimEnds.toISOString()}`);
    expect(transport.calls).toHaveLength(1);
    clock.set(claimEnds.getTime() + 1);
    expect(await delivery().deliver(job(id, dueAt, true))).toEqual({ kind: 'handled', status: 'sent', duplicate: true });
    expect(transport.calls.map((call) => call.body)).toEqual(['⏰ Reminder: Call mom', '⏰ Reminder: Call mom']);
    expect(await parts(userId)).toMatchObject([{ status: 'queued', attempts: 2 }]);
  });

  it('Twilio answering 503: the occurrence stays recorded, the job fails until the part’s retry time, and its rerun sends it once', async () => {
    const { id, userId } = await reminder({ rrule: 'FREQ=DAILY' });
    clock.set(dueAt.getTime() + 1_000);
    transport.script.push({ ok: false, retryable: true, httpStatus: 503, errorCode: 20503, message: 'Service Unavailable' });
    const failure = await delivery().deliver(job(id)).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    const [part] = await parts(userId);
    expect(part).toMatchObject({ status: 'pending', attempts: 1 });
    expect(part!.nextAttemptAt!.getTime()).toBeGreaterThan(clock.now().getTime());
    expect(failure?.message).toBe(`reminder ${id} delivery deferred until ${part!.nextAttemptAt!.toISOString()}`);
    expect(await prisma().reminderDelivery.count({ where: { reminderId: id } })).toBe(1);

    clock.set(part!.nextAttemptAt!);
    expect(await delivery().deliver(job(id))).toEqual({ kind: 'handled', status: 'sent', duplicate: true });
    expect(await parts(userId)).toMatchObject([{ status: 'queued', attempts: 2 }]);
    expect(transport.calls).toHaveLength(2);
    expect((await occurrenceJobs(database, id)).map((stored) => stored.data.dueAt)).toEqual([new Date(dueAt.getTime() + DAY).toISOString()]);
  });

  describe('recovering overdue occurrences', () => {
    /** A sweep whose read of overdue reminders is followed at once by `between` (as a delivery committing between the sweep's two reads). */
    function sweepWith(between: () => Promise<void>): ReminderDelivery {
      let ran = false;
      const extension = {
        query: {
          reminder: {
            async findMany({ args, query }: { args: unknown; query: (args: unknown) => Promise<unknown> }) {
              const rows = await query(args);
              if (!ran) {
                ran = true;
                await between();
              }
              return rows;
            },
          },
        },
      } as unknown as Parameters<PrismaClient['$extends']>[0];
      return delivery({}, prisma().$extends(extension) as unknown as PrismaClient);
    }

    it('re-enqueues only what was never handled: not an occurrence delivered between its two reads; it logs what it did, and nothing when there was nothing to do', async () => {
      const orphaned = await reminder({ text: 'orphaned' });
      const racing = await reminder({ text: 'racing' });
      clock.set(dueAt.getTime() + 2 * 60_000);
      expect(await sweepWith(() => delivery().deliver(job(racing.id)).then(() => undefined)).recoverOverdue(60_000)).toBe(1);
      expect((await reminderJobs(database)).filter((stored) => !stored.data.recheck).map((stored) => stored.data.reminderId)).toEqual([orphaned.id]);
      expect(recoveryLogs()).toMatchObject([{ level: 40, reminders: 1 }]);

      // Everything overdue was handled meanwhile: nothing enqueued, nothing logged.
      await delivery().deliver(job(orphaned.id));
      const alone = await reminder({ text: 'alone' });
      await database.pool.query(`DELETE FROM pgboss.job WHERE name = 'reminder'`);
      expect(await sweepWith(() => delivery().deliver(job(alone.id)).then(() => undefined)).recoverOverdue(60_000)).toBe(0);
      expect(await delivery().recoverOverdue(60_000)).toBe(0);
      expect(await occurrenceJobs(database)).toEqual([]);
      expect(recoveryLogs()).toHaveLength(1);
    });

    it('takes the longest overdue first when there are more than its limit', async () => {
      // Written in the opposite order of their due times.
      const later = await reminder({ text: 'later', nextDueAt: new Date(dueAt.getTime() + 60_000) });
      const earlier = await reminder({ text: 'earlier' });
      clock.set(dueAt.getTime() + 10 * 60_000);
      expect(await delivery().recoverOverdue(60_000, 1)).toBe(1);
      expect((await occurrenceJobs(database)).map((stored) => stored.data.reminderId)).toEqual([earlier.id]);
      expect(later.nextDueAt!.getTime()).toBeGreaterThan(earlier.nextDueAt!.getTime());
    });
  });
});

describe('a reminder occurrence when the reminder queue does not exist', () => {
  let database: TestDatabase;
  let queue: JobQueue;
  const clock = new ManualClock('2030-05-06T09:00:01Z');

  beforeAll(async () => {
    database = await createTestDatabase(4);
    queue = new JobQueue(database.pool, createSilentLogger());
    // pg-boss's tables, but no reminder queue.
    await queue.start([]);
  });
  afterAll(async () => {
    await queue?.stop(5_000);
    await database?.drop();
  });

  it('is refused and rolled back whole: no delivery, no message, the reminder not moved, so its job retried later finds it due', async () => {
    const prisma = database.prisma;
    const transport = new ScriptedTransport();
    const users = new UserService(prisma, clock);
    const outbox = new OutboxService({
      prisma,
      pool: database.pool,
      transport,
      users,
      clock,
      ids: randomIds,
      logger: createSilentLogger(),
      policy: { retryForMs: 3_600_000, baseDelayMs: 1_000, maxDelayMs: 10_000 },
      senders: { sms: '+15005550006' },
    });
    const reminders = new ReminderService(prisma, queue, clock, { maxTextLength: 500, maxActivePerUser: 100 });
    const delivery = new ReminderDelivery(prisma, database.pool, reminders, outbox, clock, createSilentLogger(), { lateAfterMs: LATE_AFTER, maxLatenessMs: MAX_LATENESS });
    const { id: userId } = await prisma.user.create({ data: { phone: '+14155557399', timezone: 'UTC', updatedAt: clock.now() } });
    const dueAt = new Date('2030-05-06T09:00:00Z');
    const { id } = await prisma.reminder.create({ data: { userId, text: 'Call mom', timezone: 'UTC', startLocal: '2030-05-06T09:00', rrule: 'FREQ=DAILY', nextDueAt: dueAt, updatedAt: clock.now() } });
    await expect(delivery.deliver({ reminderId: id, dueAt: dueAt.toISOString() })).rejects.toThrow('the reminder queue does not exist yet; the reminder was not saved');
    expect(await prisma.reminderDelivery.count()).toBe(0);
    expect(await prisma.outboundMessage.count()).toBe(0);
    expect(await prisma.message.count()).toBe(0);
    expect(await prisma.reminder.findUniqueOrThrow({ where: { id } })).toMatchObject({ nextDueAt: dueAt, status: 'active', occurrencesSent: 0 });
    expect(transport.calls).toHaveLength(0);
  });
});
