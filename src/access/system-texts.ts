import { newUserZone } from '../channels/phone-zones.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import { addressFor } from '../outbox/outbound-draft.js';
import type { OutboxService } from '../outbox/outbox-service.js';
import type { Clock } from '../shared/clock.js';
import { estimateTokens } from '../shared/tokens.js';
import type { TurnScheduler } from '../queue/turn-queue.js';
import type { JobQueue, QueueDefinition } from '../queue/job-queue.js';
import type { QuietHours } from '../users/quiet-hours.js';

/** Notices quiet hours held: each sent again (as `send`) when the recipient's quiet hours end. */
export const HELD_NOTICE_QUEUE = 'held-notice';

/** A held notice's job. */
export interface HeldNoticeJobData {
  phone: string;
  text: string;
  purpose: string;
}

/** A held notice that fails to go out is retried like any job. */
export const heldNoticeQueueDefinition: QueueDefinition = { name: HELD_NOTICE_QUEUE, expireInSeconds: 60, retryLimit: 5, retryDelaySeconds: 30 };

/**
 * Texts Herald sends on its own, outside the recipient's turn: an invitee's welcome, the
 * owners' budget alert. Staged in the outbox with a turn job for the recipient in one
 * transaction, and stored as a message of their conversation, so their worker delivers it
 * in order with everything else they get. A number that never wrote becomes a user (as
 * their first text would make them); an opted-out one gets nothing. Inside the recipient's
 * quiet hours (src/users/quiet-hours.ts) the text waits: a job sends it when they end.
 */
export class SystemTexts {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly outbox: OutboxService,
    private readonly scheduler: TurnScheduler,
    private readonly clock: Clock,
    private readonly defaultTimezone: string,
    private readonly logger: Logger,
    /** Quiet hours hold a notice (a job sends it when they end); absent: sent at once. */
    private readonly quiet?: { hours: Pick<QuietHours, 'quietEndsAt'>; queue: Pick<JobQueue, 'enqueue'> },
  ) {}

  /** Sends `text` to `phone` (E.164); false when they opted out and were not messaged. */
  async send(phone: string, text: string, purpose: string): Promise<boolean> {
    const now = this.clock.now();
    const outcome = await this.prisma.$transaction(async (transaction) => {
      const user = await transaction.user.upsert({
        where: { phone },
        create: { phone, ...newUserZone(phone, this.defaultTimezone, now), createdAt: now, updatedAt: now },
        update: {},
      });
      if (user.optedOut) return undefined;
      const until = this.quiet?.hours.quietEndsAt(user, now);
      if (until) return { userId: user.id, until };
      const staged = await this.outbox.stage(transaction, { userId: user.id, kind: 'system', channel: user.preferredChannel, toAddress: addressFor(phone, user.preferredChannel), text });
      // Part of the recipient's conversation, like everything Herald sends.
      await transaction.message.create({
        data: { userId: user.id, role: 'assistant', kind: 'notice', content: text, channel: user.preferredChannel, tokenCount: estimateTokens(text), outboundGroupId: staged.groupId, createdAt: now },
      });
      await this.scheduler.schedule(user.id, { transaction });
      return { userId: user.id, until: undefined };
    });
    if (outcome?.until) {
      await this.quiet!.queue.enqueue(HELD_NOTICE_QUEUE, { phone, text, purpose } satisfies HeldNoticeJobData, { startAfter: outcome.until });
      this.logger.info({ userId: outcome.userId, purpose, heldUntil: outcome.until.toISOString() }, 'system text held for quiet hours');
      return true;
    }
    const userId = outcome?.userId;
    this.logger.info({ userId, purpose, sent: Boolean(userId) }, userId ? 'system text staged' : 'system text not sent: the recipient opted out');
    if (userId) this.scheduler.wake();
    return Boolean(userId);
  }
}
