import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import type { TurnScheduler } from './turn-scheduler.js';

/**
 * Finds users with work nobody is doing: inbound messages never answered, or replies
 * never delivered, whose user holds no live lease. Run at start-up (after a crash or a
 * deploy) and periodically (an instance that died takes its in-memory state with it,
 * but never the database's). Scheduling is idempotent: a turn job that finds nothing to
 * do simply ends.
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
    const rows = await this.prisma.$queryRaw<Array<{ userId: string }>>`
      SELECT DISTINCT m."userId" AS "userId"
        FROM "Message" m JOIN "User" u ON u.id = m."userId"
       WHERE m."inboundStatus" = 'pending' AND m."createdAt" <= ${before}
         AND (u."turnLeaseUntil" IS NULL OR u."turnLeaseUntil" < (now() AT TIME ZONE 'UTC'))
      UNION
      SELECT DISTINCT o."userId" AS "userId"
        FROM "OutboundMessage" o JOIN "User" u ON u.id = o."userId"
       WHERE o.status IN ('pending', 'dispatching') AND o.kind IN ('reply', 'progress', 'system')
         AND o."createdAt" <= ${before}
         AND (o."nextAttemptAt" IS NULL OR o."nextAttemptAt" <= ${this.clock.now()})
         AND (u."turnLeaseUntil" IS NULL OR u."turnLeaseUntil" < (now() AT TIME ZONE 'UTC'))`;
    for (const row of rows) await this.scheduler.schedule(row.userId);
    if (rows.length > 0) {
      this.scheduler.wake();
      this.logger.info({ users: rows.length }, 'recovered users with unanswered messages or undelivered replies');
    }
    return rows.length;
  }
}
