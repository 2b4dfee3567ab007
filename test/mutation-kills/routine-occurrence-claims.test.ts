import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { routineQueueDefinition } from '../../src/routines/routine-queue.js';
import { ManualClock } from '../../src/shared/clock.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { createUser } from '../reminders/support.js';

/**
 * A routine's occurrence is claimed once (issue 32 item 8), through the runtime's own
 * RoutineRunner on real Postgres and pg-boss (no worker: jobs are fired by hand at fake times).
 * Runs are fired later than ROUTINE_MAX_LATENESS_MS, so each ends right after its claim
 * (skipped, nothing sent): what is tested is the claim, not the turn.
 */
const DAY = 24 * 60 * 60 * 1000;
const LATE = 60_000;

describe('routine occurrence claims', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock('2030-04-10T12:00:00Z');
  let userId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, start: false, env: { ROUTINE_MAX_LATENESS_MS: String(LATE), QUIET_HOURS: 'off' } });
    await harness.herald.queue.start([routineQueueDefinition(60_000)]);
    userId = (await createUser(harness, '+14155550991', { timezone: 'UTC' })).id;
  });
  beforeEach(async () => {
    clock.set('2030-04-10T12:00:00Z');
    await harness.database.pool.query(`DELETE FROM pgboss.job WHERE name = 'routine'`);
    await prisma().routine.deleteMany();
  });
  afterAll(async () => {
    await harness.close();
  });

  const prisma = () => harness.database.prisma;
  const runner = () => harness.herald.routineRunner;
  const dueAt = new Date('2030-04-10T07:00:00Z');

  /** A daily 07:00 UTC routine whose next run is `dueAt`. */
  async function routine(fields: { rrule?: string; status?: 'active' | 'paused'; nextDueAt?: Date } = {}) {
    return prisma().routine.create({
      data: { userId, name: 'brief', instruction: 'send my day', timezone: 'UTC', startLocal: '2030-04-01T07:00', rrule: fields.rrule ?? 'FREQ=DAILY', nextDueAt: fields.nextDueAt ?? dueAt, status: fields.status ?? 'active', createdAt: clock.now(), updatedAt: clock.now() },
    });
  }
  async function jobs(routineId: string) {
    const { rows } = await harness.database.pool.query<{ data: { dueAt: string } }>(`SELECT data FROM pgboss.job WHERE name = 'routine' AND data->>'routineId' = $1 ORDER BY start_after`, [routineId]);
    return rows.map((row) => row.data.dueAt);
  }
  const fire = (routineId: string, at = dueAt) => runner().run({ routineId, dueAt: at.toISOString() });

  it('the first job claims the occurrence: one run row, the routine moved to its next run after now, that run’s job enqueued', async () => {
    const { id } = await routine();
    // Herald was down for two days: the missed runs are not replayed one by one.
    clock.set(dueAt.getTime() + 2 * DAY + 60 * 60 * 1000);
    expect(await fire(id)).toEqual({ kind: 'finished', status: 'skipped_late' });
    const runs = await prisma().routineRun.findMany({ where: { routineId: id } });
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ userId, dueAt, status: 'skipped_late', createdAt: clock.now(), finishedAt: clock.now() });
    const next = new Date(dueAt.getTime() + 3 * DAY);
    expect((await prisma().routine.findUniqueOrThrow({ where: { id } })).nextDueAt).toEqual(next);
    expect((await prisma().routine.findUniqueOrThrow({ where: { id } })).updatedAt).toEqual(clock.now());
    expect(await jobs(id)).toEqual([next.toISOString()]);
  });

  it('moves on from the due time itself when the run is on time: the next run is a day later', async () => {
    const { id } = await routine();
    clock.set(dueAt.getTime() + LATE + 1);
    await fire(id);
    expect((await prisma().routine.findUniqueOrThrow({ where: { id } })).nextDueAt).toEqual(new Date(dueAt.getTime() + DAY));
  });

  it('a second job for the same occurrence is a duplicate: no second run, the routine not moved again, no job added', async () => {
    const { id } = await routine();
    clock.set(dueAt.getTime() + LATE + 1);
    await fire(id);
    const moved = (await prisma().routine.findUniqueOrThrow({ where: { id } })).nextDueAt;
    clock.advance(DAY * 5);
    expect(await fire(id)).toEqual({ kind: 'duplicate', status: 'skipped_late' });
    expect(await prisma().routineRun.count({ where: { routineId: id } })).toBe(1);
    expect((await prisma().routine.findUniqueOrThrow({ where: { id } })).nextDueAt).toEqual(moved);
    expect(await jobs(id)).toHaveLength(1);
  });

  it('four jobs for one occurrence at once: all answered, one run row, the routine moved once, one job', async () => {
    const { id } = await routine();
    clock.set(dueAt.getTime() + LATE + 1);
    const outcomes = await Promise.allSettled([fire(id), fire(id), fire(id), fire(id)]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(await prisma().routineRun.count({ where: { routineId: id } })).toBe(1);
    expect((await prisma().routine.findUniqueOrThrow({ where: { id } })).nextDueAt).toEqual(new Date(dueAt.getTime() + DAY));
    expect(await jobs(id)).toEqual([new Date(dueAt.getTime() + DAY).toISOString()]);
  });

  it('a job for another time than the routine’s next run, for a paused routine or a deleted one is stale: nothing claimed', async () => {
    const moved = await routine({ nextDueAt: new Date(dueAt.getTime() + DAY) });
    clock.set(dueAt.getTime() + LATE + 1);
    expect(await fire(moved.id)).toEqual({ kind: 'stale' });
    expect(await fire(moved.id, new Date(dueAt.getTime() + DAY - 1))).toEqual({ kind: 'stale' });
    const paused = await routine({ status: 'paused' });
    expect(await fire(paused.id)).toEqual({ kind: 'stale' });
    expect(await fire('00000000-0000-7000-8000-000000000000')).toEqual({ kind: 'stale' });
    expect(await prisma().routineRun.count()).toBe(0);
    expect(await jobs(moved.id)).toEqual([]);
    expect((await prisma().routine.findUniqueOrThrow({ where: { id: paused.id } })).nextDueAt).toEqual(dueAt);
  });

  it('a run claimed before a crash is found pending and run again, without moving the routine or enqueueing again', async () => {
    const { id } = await routine({ nextDueAt: new Date(dueAt.getTime() + DAY) });
    await prisma().routineRun.create({ data: { routineId: id, userId, dueAt, status: 'pending', createdAt: dueAt } });
    clock.set(dueAt.getTime() + LATE + 1);
    expect(await fire(id)).toEqual({ kind: 'finished', status: 'skipped_late' });
    expect((await prisma().routine.findUniqueOrThrow({ where: { id } })).nextDueAt).toEqual(new Date(dueAt.getTime() + DAY));
    expect(await jobs(id)).toEqual([]);
  });

  it('a run released by the user’s message and then paused before its job came is dropped, not sent late; an active one still runs', async () => {
    const paused = await routine({ status: 'paused', nextDueAt: new Date(dueAt.getTime() + DAY) });
    await prisma().routineRun.create({ data: { routineId: paused.id, userId, dueAt, status: 'pending', createdAt: dueAt, heldForWindowAt: dueAt } });
    clock.set(dueAt.getTime() + LATE + 1);
    expect(await fire(paused.id)).toEqual({ kind: 'finished', status: 'undeliverable' });
    expect(await prisma().routineRun.findFirstOrThrow({ where: { routineId: paused.id } })).toMatchObject({ status: 'undeliverable', finishedAt: clock.now() });

    const active = await routine({ nextDueAt: new Date(dueAt.getTime() + DAY) });
    await prisma().routineRun.create({ data: { routineId: active.id, userId, dueAt, status: 'pending', createdAt: dueAt, heldForWindowAt: dueAt } });
    expect(await fire(active.id)).toEqual({ kind: 'finished', status: 'skipped_late' });

    // Paused, but never held for the window: the claimed run is still the user's (it runs).
    const pausedUnheld = await routine({ status: 'paused', nextDueAt: new Date(dueAt.getTime() + DAY) });
    await prisma().routineRun.create({ data: { routineId: pausedUnheld.id, userId, dueAt, status: 'pending', createdAt: dueAt } });
    expect(await fire(pausedUnheld.id)).toEqual({ kind: 'finished', status: 'skipped_late' });
  });

  it('the last occurrence of a rule leaves no next run and no job', async () => {
    const { id } = await routine({ rrule: 'FREQ=DAILY;COUNT=1', nextDueAt: new Date('2030-04-01T07:00:00Z') });
    clock.set(Date.parse('2030-04-01T07:00:00Z') + LATE + 1);
    expect(await fire(id, new Date('2030-04-01T07:00:00Z'))).toEqual({ kind: 'finished', status: 'skipped_late' });
    expect((await prisma().routine.findUniqueOrThrow({ where: { id } })).nextDueAt).toBeNull();
    expect(await jobs(id)).toEqual([]);
  });
});
