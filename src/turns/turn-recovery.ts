import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import type { TurnScheduler } from './turn-scheduler.js';

/**
 * Finds users with work nobody may be doing: inbound messages never answered, or replies
 * never delivered. Run at start-up (after a crash or a
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
    // Leases are not consulted: a turn job for a user whose lease is live (perhaps held by
    // a dead instance) reschedules itself for when the lease lapses.
    const rows = await this.prisma.$queryRaw<Array<{ userId: string }>>`
      SELECT DISTINCT "userId" FROM "Message"
       WHERE "inboundStatus" = 'pending' AND "createdAt" <= ${before}
      UNION
      SELECT DISTINCT "userId" FROM "OutboundMessage"
       WHERE status IN ('pending', 'dispatching') AND kind IN ('reply', 'progress', 'system')
         AND "createdAt" <= ${before}`;
    for (const row of rows) await this.scheduler.schedule(row.userId);
    if (rows.length > 0) {
      this.scheduler.wake();
      this.logger.info({ users: rows.length }, 'recovered users with unanswered messages or undelivered replies');
    }
    return rows.length;
  }
}
