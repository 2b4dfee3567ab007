import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { heldNoticeQueueDefinition, HELD_NOTICE_QUEUE } from '../../src/access/system-texts.js';
import { UserEraser } from '../../src/data-rights/user-eraser.js';
import { learningQueueDefinition, LEARNING_QUEUE } from '../../src/learning/fact-learner.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { TURN_QUEUE, turnQueueDefinition } from '../../src/queue/turn-queue.js';
import { REMINDER_QUEUE, reminderQueueDefinition } from '../../src/reminders/reminder-queue.js';
import { TRAVEL_RETURN_QUEUE, travelReturnQueueDefinition } from '../../src/reminders/travel-queue.js';
import { ROUTINE_QUEUE, routineQueueDefinition } from '../../src/routines/routine-queue.js';
import { ManualClock } from '../../src/shared/clock.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { createUser } from '../reminders/support.js';

/**
 * Erasure at its edges (issue 32 item 8), on real Postgres with pg-boss's own tables: every
 * queue's jobs that name the user go, in every state and from the archive, and nobody else's;
 * a send claimed until now exactly does not hold the erase, one claimed a millisecond longer
 * does; grants are revoked only after an erase that happened.
 */
describe('the user eraser', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock('2030-07-01T10:00:00Z');
  let counter = 0;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, start: false });
    await harness.herald.queue.start([reminderQueueDefinition, routineQueueDefinition(60_000), turnQueueDefinition(60_000), learningQueueDefinition, travelReturnQueueDefinition, heldNoticeQueueDefinition]);
  });
  beforeEach(() => {
    clock.set('2030-07-01T10:00:00Z');
  });
  afterAll(async () => {
    await harness.close();
  });

  const prisma = () => harness.database.prisma;
  const pool = () => harness.database.pool;
  const newUser = () => createUser(harness, `+1415555${String(3100 + (counter += 1))}`, { timezone: 'UTC' });
  const eraser = (options: ConstructorParameters<typeof UserEraser>[3] = {}) => new UserEraser(prisma(), clock, createSilentLogger(), options);

  /** A job in `queue` carrying `data`, in `state`; archived when asked. Its id. */
  async function job(queue: string, data: Record<string, unknown>, state = 'created', archived = false): Promise<string> {
    const { rows } = await pool().query<{ id: string }>(`INSERT INTO pgboss.job (name, data, state, start_after) VALUES ($1, $2, $3::pgboss.job_state, now() + interval '1 day') RETURNING id`, [queue, JSON.stringify(data), state]);
    const id = rows[0]!.id;
    if (archived) {
      await pool().query(`INSERT INTO pgboss.archive SELECT j.*, now() FROM pgboss.job j WHERE j.id = $1`, [id]);
      await pool().query(`DELETE FROM pgboss.job WHERE id = $1`, [id]);
    }
    return id;
  }
  async function present(ids: string[]): Promise<string[]> {
    const { rows } = await pool().query<{ id: string }>(`SELECT id FROM pgboss.job WHERE id = ANY($1::uuid[]) UNION SELECT id FROM pgboss.archive WHERE id = ANY($1::uuid[])`, [ids]);
    return rows.map((row) => row.id).sort();
  }

  /** A job of every kind that names `user` (through a reminder, a routine, the id or the phone), and the same for `other`. */
  async function jobsOf(user: { id: string; phone: string }) {
    const reminder = await prisma().reminder.create({ data: { userId: user.id, text: 'call mum', timezone: 'UTC', startLocal: '2030-07-02T09:00', nextDueAt: new Date('2030-07-02T09:00:00Z'), createdAt: clock.now(), updatedAt: clock.now() } });
    const routine = await prisma().routine.create({ data: { userId: user.id, name: 'brief', instruction: 'my day', timezone: 'UTC', startLocal: '2030-07-02T07:00', rrule: 'FREQ=DAILY', nextDueAt: new Date('2030-07-02T07:00:00Z'), createdAt: clock.now(), updatedAt: clock.now() } });
    return Promise.all([
      job(REMINDER_QUEUE, { reminderId: reminder.id, dueAt: '2030-07-02T09:00:00Z' }),
      job(REMINDER_QUEUE, { reminderId: reminder.id, dueAt: '2030-07-01T09:00:00Z' }, 'completed', true),
      job(ROUTINE_QUEUE, { routineId: routine.id, dueAt: '2030-07-02T07:00:00Z' }),
      job(ROUTINE_QUEUE, { routineId: routine.id, dueAt: '2030-07-01T07:00:00Z' }, 'completed', true),
      job(TURN_QUEUE, { userId: user.id }, 'active'),
      job(TURN_QUEUE, { userId: user.id }, 'completed', true),
      job(LEARNING_QUEUE, { userId: user.id }),
      job(TRAVEL_RETURN_QUEUE, { userId: user.id, tripId: 'x' }, 'retry'),
      job(HELD_NOTICE_QUEUE, { phone: user.phone }),
      job(HELD_NOTICE_QUEUE, { phone: user.phone }, 'completed', true),
    ]);
  }

  it('removes every job that names the user, in every state and from the archive, and no one else’s', async () => {
    const user = await newUser();
    const other = await newUser();
    const theirs = await jobsOf(user);
    const others = await jobsOf(other);
    // Jobs of other queues are not Herald's user jobs even when their data looks alike.
    others.push(await job(HELD_NOTICE_QUEUE, { userId: user.id }), await job(LEARNING_QUEUE, { phone: user.phone }));
    const message = await prisma().message.create({ data: { userId: user.id, role: 'user', content: 'DELETE MY DATA', channel: 'sms', tokenCount: 3, createdAt: clock.now() } });
    await prisma().inboundDedupe.create({ data: { key: 'SM-erase-1', messageId: message.id } });
    const otherMessage = await prisma().message.create({ data: { userId: other.id, role: 'user', content: 'hi', channel: 'sms', tokenCount: 1, createdAt: clock.now() } });
    await prisma().inboundDedupe.create({ data: { key: 'SM-keep-1', messageId: otherMessage.id } });

    expect(await eraser().erase(user.id)).toBe(true);
    expect(await present(theirs)).toEqual([]);
    expect(await present(others)).toEqual([...others].sort());
    expect(await prisma().user.findUnique({ where: { id: user.id } })).toBeNull();
    expect(await prisma().inboundDedupe.findMany({ where: { key: { in: ['SM-erase-1', 'SM-keep-1'] } }, select: { key: true } })).toEqual([{ key: 'SM-keep-1' }]);
    expect(await prisma().user.findUnique({ where: { id: other.id } })).not.toBeNull();
  });

  it('an unknown user: false, and no grant is revoked', async () => {
    const revoked: string[] = [];
    const grants = [{ revocationFor: async (userId: string) => async () => void revoked.push(userId) }];
    expect(await eraser({ grants }).erase('00000000-0000-7000-8000-000000000000')).toBe(false);
    expect(revoked).toEqual([]);
    const user = await newUser();
    expect(await eraser({ grants }).erase(user.id)).toBe(true);
    expect(revoked).toEqual([user.id]);
  });

  it('waits for a send claimed past now, retrying every 100 ms; a claim lapsing exactly now does not hold it', async () => {
    const user = await newUser();
    const part = await prisma().outboundMessage.create({
      data: { userId: user.id, kind: 'reply', channel: 'sms', toAddress: user.phone, body: 'hello', groupId: '00000000-0000-7000-8000-0000000000a1', partIndex: 0, partCount: 1, status: 'dispatching', statusRank: 1, attempts: 1, nextAttemptAt: new Date(clock.now().getTime() + 1), createdAt: clock.now(), updatedAt: clock.now() },
    });
    const waits: number[] = [];
    const erased = await eraser({
      sleep: async (milliseconds) => {
        waits.push(milliseconds);
        // The sender finishes after the second look.
        if (waits.length === 2) await prisma().outboundMessage.update({ where: { id: part.id }, data: { status: 'sent', statusRank: 3, nextAttemptAt: null } });
      },
    }).erase(user.id);
    expect(erased).toBe(true);
    expect(waits).toEqual([100, 100]);

    const lapsed = await newUser();
    await prisma().outboundMessage.create({
      data: { userId: lapsed.id, kind: 'reply', channel: 'sms', toAddress: lapsed.phone, body: 'hello', groupId: '00000000-0000-7000-8000-0000000000a2', partIndex: 0, partCount: 1, status: 'dispatching', statusRank: 1, attempts: 1, nextAttemptAt: clock.now(), createdAt: clock.now(), updatedAt: clock.now() },
    });
    const noWait: number[] = [];
    expect(await eraser({ sleep: async (milliseconds) => void noWait.push(milliseconds) }).erase(lapsed.id)).toBe(true);
    expect(noWait).toEqual([]);
  });

  it('a part merely pending does not hold the erase, and goes with the user', async () => {
    const user = await newUser();
    await prisma().outboundMessage.create({
      data: { userId: user.id, kind: 'reply', channel: 'sms', toAddress: user.phone, body: 'later', groupId: '00000000-0000-7000-8000-0000000000a3', partIndex: 0, partCount: 1, status: 'pending', statusRank: 0, attempts: 0, nextAttemptAt: new Date(clock.now().getTime() + 60_000), createdAt: clock.now(), updatedAt: clock.now() },
    });
    const waits: number[] = [];
    expect(await eraser({ sleep: async (milliseconds) => void waits.push(milliseconds) }).erase(user.id)).toBe(true);
    expect(waits).toEqual([]);
    expect(await prisma().outboundMessage.count({ where: { userId: user.id } })).toBe(0);
  });

  it('a failure that is not a send in flight is thrown, not retried', async () => {
    const user = await newUser();
    const failing = new UserEraser(
      new Proxy(prisma(), { get: (target, key) => (key === '$transaction' ? () => Promise.reject(new Error('connection lost')) : Reflect.get(target, key)) }),
      clock,
      createSilentLogger(),
      { sleep: async () => Promise.reject(new Error('must not wait')) },
    );
    await expect(failing.erase(user.id)).rejects.toThrow('connection lost');
  });
});
