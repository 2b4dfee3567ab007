import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import type { TurnScheduler } from '../queue/turn-queue.js';

/** Why a turn row was closed by recovery rather than by the worker that ran it. */
export const ABANDONED_TURN_MESSAGE = 'abandoned: its worker stopped (a crash) before finishing; its messages stayed pending and were answered by a later turn';

/** Users whose lapsed leases one sweep takes over at most (the rest go to the next sweep). */
const TAKEOVER_BATCH = 500;

/**
 * Finds users with work nobody may be doing, so that nobody is silently dropped:
 *
 * - {@link takeOverLapsedLeases}, every few seconds on every instance: a lease that
 *   lapsed without being released belongs to an instance that died mid-turn (live
 *   holders renew theirs by heartbeat). The sweep frees it, closes the dead turn, and
 *   schedules the user's pending work, in one transaction, so exactly one instance takes
 *   each one over.
 * - {@link recover}, at start-up and every minute: inbound messages never answered and
 *   parts never delivered, of every kind (a job lost with its process, a retry after a
 *   Twilio outage that outlived it): the user's drain sends them in order; at start-up also
 *   {@link closeAbandonedTurns}, turn rows left `running` by a holder that is gone.
 *
 * Scheduling is idempotent: a turn job that finds nothing to do simply ends.
 */
export class TurnRecovery {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly scheduler: TurnScheduler,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Schedules a turn for every user with orphaned work older than `olderThanMs`; returns how many. */
  async recover(olderThanMs = 0): Promise<number> {
    const before = new Date(this.clock.now().getTime() - olderThanMs);
    // Leases are not consulted: a turn job for a user whose lease is live (perhaps held by
    // a dead instance) reschedules itself for when the lease lapses.
    const rows = await this.prisma.$queryRaw<Array<{ userId: string }>>`
      SELECT DISTINCT "userId" FROM "Message"
       WHERE "inboundStatus" = 'pending' AND "createdAt" <= ${before}
      UNION
      SELECT DISTINCT "userId" FROM "OutboundMessage"
       WHERE status IN ('pending', 'dispatching') AND "createdAt" <= ${before}`;
    for (const row of rows) await this.scheduler.schedule(row.userId);
    if (rows.length > 0) {
      this.scheduler.wake(rows.length);
      this.logger.info({ users: rows.length }, 'recovered users with unanswered messages or undelivered replies');
    }
    return rows.length;
  }

  /**
   * Takes over every lease whose holder stopped renewing it (an instance that died): frees
   * it, fails the turn it was running, and schedules the user's work, atomically. Returns
   * the users taken over.
   */
  async takeOverLapsedLeases(): Promise<string[]> {
    const now = this.clock.now();
    const userIds = await this.prisma.$transaction(async (transaction) => {
      // Database time, as the leases themselves; SKIP LOCKED so instances sweeping at the
      // same moment split the work instead of queueing behind each other.
      const taken = await transaction.$queryRaw<Array<{ id: string }>>`
        WITH lapsed AS (
          SELECT id FROM "User"
           WHERE "turnLeaseUntil" < (now() AT TIME ZONE 'UTC') AND "turnLeaseOwner" IS NOT NULL
           ORDER BY "turnLeaseUntil"
           LIMIT ${TAKEOVER_BATCH}
           FOR UPDATE SKIP LOCKED
        )
        UPDATE "User" AS u SET "turnLeaseOwner" = NULL, "turnLeaseUntil" = NULL
          FROM lapsed WHERE u.id = lapsed.id
        RETURNING u.id::text AS id`;
      const ids = taken.map((row) => row.id);
      if (ids.length === 0) return ids;
      await transaction.turn.updateMany({
        where: { userId: { in: ids }, status: 'running' },
        data: { status: 'failed', errorKind: 'interrupted', errorMessage: ABANDONED_TURN_MESSAGE, finishedAt: now },
      });
      for (const id of ids) await this.scheduler.schedule(id, { transaction });
      return ids;
    });
    if (userIds.length > 0) {
      this.scheduler.wake(userIds.length);
      this.logger.warn({ users: userIds.length, userIds: userIds.slice(0, 20) }, 'took over lapsed turn leases (an instance stopped mid-turn)');
    }
    return userIds;
  }

  /**
   * Closes turn rows still `running` whose user holds no lease: a turn runs only under
   * its user's lease, and the lease is released only after the turn's row is closed, so
   * such a turn's worker is gone (killed before lapsed leases were taken over, say). A
   * start-up backstop (it scans running turns): the lapsed-lease sweep and the next turn of
   * the same user close them as they happen.
   */
  async closeAbandonedTurns(): Promise<void> {
    const closed = await this.prisma.$executeRaw`
      UPDATE "Turn" AS t
         SET status = 'failed', "errorKind" = 'interrupted', "errorMessage" = ${ABANDONED_TURN_MESSAGE}, "finishedAt" = ${this.clock.now().toISOString().replace('Z', '')}::timestamp
        FROM "User" AS u
       WHERE t."userId" = u.id AND t.status = 'running' AND u."turnLeaseOwner" IS NULL`;
    if (closed > 0) this.logger.info({ turns: closed }, 'closed turns left running by a stopped worker');
  }
}
