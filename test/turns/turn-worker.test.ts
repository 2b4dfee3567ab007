import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sidePool } from '../../src/db/database.js';
import type { Message } from '../../src/generated/prisma/client.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import type { OutboxService } from '../../src/outbox/outbox-service.js';
import { systemClock } from '../../src/shared/clock.js';
import { randomIds } from '../../src/shared/ids.js';
import { LeaseHeartbeat } from '../../src/turns/lease-heartbeat.js';
import { TurnLeases } from '../../src/turns/turn-lease.js';
import { TurnInterrupted, type TurnRunner } from '../../src/turns/turn-runner.js';
import type { TurnScheduler } from '../../src/queue/turn-queue.js';
import { TurnWorker } from '../../src/turns/turn-worker.js';
import { UserService } from '../../src/users/user-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The per-user lease (a compare-and-set on the User row) and the worker's use of it,
 * against a real database with the runner, outbox and scheduler stubbed.
 */
describe('turn leases', () => {
  let database: TestDatabase;
  let users: UserService;
  let phoneCounter = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    users = new UserService(database.prisma, systemClock);
  });
  const pools: pg.Pool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end().catch(() => {})));
    await database.drop();
  });

  async function newUser() {
    phoneCounter += 1;
    return database.prisma.user.create({ data: { phone: `+1415555${String(800 + phoneCounter).padStart(4, '0')}`, timezone: 'UTC', updatedAt: new Date() } });
  }
  const leaseOf = (userId: string) =>
    database.prisma.user.findUniqueOrThrow({ where: { id: userId }, select: { turnLeaseOwner: true, turnLeaseUntil: true } });

  describe('TurnLeases', () => {
    it('gives the lease to one owner at a time, lets the owner extend it, and frees it on release', async () => {
      const leases = new TurnLeases(database.prisma);
      const user = await newUser();
      expect(await leases.acquire(user.id, 'a', 60_000)).toEqual({ acquired: true });
      const taken = await leases.acquire(user.id, 'b', 60_000);
      expect(taken.acquired).toBe(false);
      expect(taken.acquired ? undefined : taken.heldUntil.getTime()).toBeGreaterThan(Date.now() + 50_000);
      expect(await leases.acquire(user.id, 'a', 60_000)).toEqual({ acquired: true });

      await leases.release(user.id, 'b'); // not b's to release
      expect((await leaseOf(user.id)).turnLeaseOwner).toBe('a');
      await leases.release(user.id, 'a');
      expect(await leaseOf(user.id)).toEqual({ turnLeaseOwner: null, turnLeaseUntil: null });
      expect(await leases.acquire(user.id, 'b', 60_000)).toEqual({ acquired: true });
    });

    it('lets anyone take a lease that has lapsed', async () => {
      const leases = new TurnLeases(database.prisma);
      const user = await newUser();
      await leases.acquire(user.id, 'dead', 60_000);
      await database.prisma.$executeRaw`UPDATE "User" SET "turnLeaseUntil" = (now() AT TIME ZONE 'UTC') - interval '1 second' WHERE id = ${user.id}::uuid`;
      expect(await leases.acquire(user.id, 'alive', 60_000)).toEqual({ acquired: true });
      expect((await leaseOf(user.id)).turnLeaseOwner).toBe('alive');
    });

    it('gives a contested lease to exactly one of many simultaneous takers', async () => {
      const leases = new TurnLeases(database.prisma);
      const user = await newUser();
      const attempts = await Promise.all(Array.from({ length: 8 }, (_, index) => leases.acquire(user.id, `owner-${index}`, 60_000)));
      expect(attempts.filter((attempt) => attempt.acquired)).toHaveLength(1);
    });
  });

  describe('LeaseHeartbeat', () => {
    it('renews every lease held in one statement per beat, and tells only the holder whose lease was taken', async () => {
      const leases = new TurnLeases(database.prisma);
      const held = await Promise.all(Array.from({ length: 20 }, () => newUser()));
      for (const [index, user] of held.entries()) await leases.acquire(user.id, `owner-${index}`, 1_000);
      const pool = sidePool(database.url);
      pools.push(pool);
      const statements: string[] = [];
      let beats!: () => void;
      const threeBeats = new Promise<void>((resolve) => (beats = resolve));
      const watched = {
        query: (async (text: string, values: unknown[]) => {
          const result = await pool.query(text, values);
          statements.push(text);
          if (statements.length === 3) beats();
          return result;
        }) as unknown as typeof pool.query,
        end: () => pool.end(),
      };
      const heartbeat = new LeaseHeartbeat(watched, 1_000, createSilentLogger());
      const lost: string[] = [];
      const stops = held.map((user, index) => heartbeat.hold(user.id, `owner-${index}`, () => lost.push(`owner-${index}`)));
      // Another instance took user 7 over (as if this one had stalled past the lease).
      await database.prisma.user.update({ where: { id: held[7]!.id }, data: { turnLeaseOwner: 'thief' } });
      await threeBeats;
      stops.forEach((stop) => stop());
      await heartbeat.settled();
      expect(statements).toHaveLength(3); // twenty leases, one statement a beat
      expect(lost).toEqual(['owner-7']); // told once, however many beats found it gone
      const rows = await database.prisma.$queryRaw<Array<{ live: boolean }>>`
        SELECT bool_and("turnLeaseUntil" > (now() AT TIME ZONE 'UTC')) AS live
          FROM "User" WHERE id = ANY(${held.filter((_, index) => index !== 7).map((user) => user.id)}::uuid[])`;
      expect(rows[0]?.live).toBe(true);
      expect((await leaseOf(held[7]!.id)).turnLeaseOwner).toBe('thief');
    });
  });

  describe('TurnWorker', () => {
    /** A worker whose runner blocks in runNext until told, with the lease renewals counted. */
    function setup(leaseMs: number) {
      const leases = new TurnLeases(database.prisma);
      // Lease takes and extensions (TurnLeases.acquire) and heartbeat beats, counted together.
      let renewals = 0;
      const renewalWaiters: Array<{ count: number; resolve: () => void }> = [];
      const counted = <T>(result: T): T => {
        renewals += 1;
        for (const waiter of renewalWaiters.filter((candidate) => renewals >= candidate.count)) {
          renewalWaiters.splice(renewalWaiters.indexOf(waiter), 1);
          waiter.resolve();
        }
        return result;
      };
      const countingLeases = {
        acquire: async (...args: Parameters<TurnLeases['acquire']>) => counted(await leases.acquire(...args)),
        release: (...args: Parameters<TurnLeases['release']>) => leases.release(...args),
      };
      const pool = sidePool(database.url);
      pools.push(pool);
      const countingPool = {
        query: (async (...args: Parameters<typeof pool.query>) => counted(await (pool.query as (...a: unknown[]) => Promise<unknown>)(...args))) as typeof pool.query,
        end: () => pool.end(),
      };
      const heartbeat = new LeaseHeartbeat(countingPool, leaseMs, createSilentLogger());
      let pending: Message[] = [{ id: 'm1' } as Message];
      let finishTurn!: () => void;
      const turnMayFinish = new Promise<void>((resolve) => (finishTurn = resolve));
      let turnStarted!: (signal: AbortSignal) => void;
      const started = new Promise<AbortSignal>((resolve) => (turnStarted = resolve));
      const runner = {
        pendingMessages: async () => pending,
        runNext: async (_userId: string, _pending: Message[], signal: AbortSignal) => {
          turnStarted(signal);
          const aborted = new Promise<never>((_, reject) =>
            signal.addEventListener('abort', () => reject(signal.reason instanceof TurnInterrupted ? signal.reason : new TurnInterrupted('aborted')), { once: true }),
          );
          await Promise.race([turnMayFinish, aborted]);
          pending = [];
          return 1;
        },
      };
      const scheduler = { schedule: vi.fn(async () => {}), wake: vi.fn() };
      const outbox = { flushUser: async () => ({ kind: 'done' as const }), hasUndelivered: async () => false };
      const worker = new TurnWorker({
        leases: countingLeases as unknown as TurnLeases,
        heartbeat,
        runner: runner as unknown as TurnRunner,
        outbox: outbox as unknown as OutboxService,
        scheduler: scheduler as unknown as TurnScheduler,
        ids: randomIds,
        logger: createSilentLogger(),
        leaseMs,
      });
      const renewalsReach = (count: number) =>
        renewals >= count ? Promise.resolve() : new Promise<void>((resolve) => renewalWaiters.push({ count, resolve }));
      return { worker, scheduler, started, finishTurn, renewalsReach };
    }

    it('keeps the lease alive through a turn that outlasts it, then releases it', async () => {
      const user = await newUser();
      const { worker, started, finishTurn, renewalsReach } = setup(300);
      const draining = worker.drain(user.id, 'job-1');
      await started;
      const { turnLeaseOwner: owner } = await leaseOf(user.id);
      await renewalsReach(6); // take, extend before the turn, then at least four heartbeats: > 300 ms
      const rows = await database.prisma.$queryRaw<Array<{ live: boolean }>>`
        SELECT "turnLeaseUntil" > (now() AT TIME ZONE 'UTC') AS live FROM "User" WHERE id = ${user.id}::uuid`;
      expect(rows[0]?.live).toBe(true);
      expect((await leaseOf(user.id)).turnLeaseOwner).toBe(owner);
      finishTurn();
      await draining;
      expect(await leaseOf(user.id)).toEqual({ turnLeaseOwner: null, turnLeaseUntil: null });
      // No renewal still on its way takes it back afterwards: a later drain gets it at once.
      const next = setup(300);
      next.finishTurn();
      await next.worker.drain(user.id, 'job-1b');
      expect(next.scheduler.schedule).not.toHaveBeenCalledWith(user.id, expect.objectContaining({ startAfter: expect.any(Date) }));
    });

    it('stops the turn when another worker has taken the lease, leaving the lease to it', async () => {
      const user = await newUser();
      const { worker, scheduler, started, renewalsReach } = setup(300);
      const draining = worker.drain(user.id, 'job-2');
      const signal = await started;
      // As if this process had stalled past its lease and another worker took over.
      await database.prisma.$executeRaw`
        UPDATE "User" SET "turnLeaseOwner" = 'thief', "turnLeaseUntil" = (now() AT TIME ZONE 'UTC') + interval '1 minute' WHERE id = ${user.id}::uuid`;
      await renewalsReach(3);
      await draining; // resolves: an interrupted turn is not a failed job
      expect(signal.aborted).toBe(true);
      expect((signal.reason as Error).message).toBe('lost the turn lease');
      expect((await leaseOf(user.id)).turnLeaseOwner).toBe('thief');
      expect(scheduler.schedule).toHaveBeenCalledWith(user.id);
    });

    it('leaves a busy user to the lease holder and looks again when the lease lapses', async () => {
      const user = await newUser();
      const leases = new TurnLeases(database.prisma);
      await leases.acquire(user.id, 'someone-else', 60_000);
      const { worker, scheduler } = setup(300);
      await worker.drain(user.id, 'job-3');
      const { turnLeaseUntil } = await leaseOf(user.id);
      expect(scheduler.schedule).toHaveBeenCalledWith(user.id, { startAfter: new Date(turnLeaseUntil!.getTime() + 1_000) });
      expect((await leaseOf(user.id)).turnLeaseOwner).toBe('someone-else');
    });
  });
});
