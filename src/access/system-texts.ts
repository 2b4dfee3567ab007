import { timezoneForPhone } from '../channels/phone-number.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import { addressFor, type OutboxService } from '../outbox/outbox-service.js';
import type { Clock } from '../shared/clock.js';
import { estimateTokens } from '../shared/tokens.js';
import type { TurnScheduler } from '../queue/turn-queue.js';

/**
 * Texts Herald sends on its own, outside the recipient's turn: an invitee's welcome, the
 * owners' budget alert. Staged in the outbox with a turn job for the recipient in one
 * transaction, and stored as a message of their conversation, so their worker delivers it
 * in order with everything else they get. A number that never wrote becomes a user (as
 * their first text would make them); an opted-out one gets nothing.
 */
export class SystemTexts {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly outbox: OutboxService,
    private readonly scheduler: TurnScheduler,
    private readonly clock: Clock,
    private readonly defaultTimezone: string,
    private readonly logger: Logger,
  ) {}

  /** Sends `text` to `phone` (E.164); false when they opted out and were not messaged. */
  async send(phone: string, text: string, purpose: string): Promise<boolean> {
    const now = this.clock.now();
    const userId = await this.prisma.$transaction(async (transaction) => {
      const user = await transaction.user.upsert({
        where: { phone },
        create: { phone, timezone: timezoneForPhone(phone, this.defaultTimezone), createdAt: now, updatedAt: now },
        update: {},
      });
      if (user.optedOut) return undefined;
      const staged = await this.outbox.stage(transaction, { userId: user.id, kind: 'system', channel: user.preferredChannel, toAddress: addressFor(phone, user.preferredChannel), text });
      // Part of the recipient's conversation, like everything Herald sends.
      await transaction.message.create({
        data: { userId: user.id, role: 'assistant', kind: 'notice', content: text, channel: user.preferredChannel, tokenCount: estimateTokens(text), outboundGroupId: staged.groupId, createdAt: now },
      });
      await this.scheduler.schedule(user.id, { transaction });
      return user.id;
    });
    this.logger.info({ userId, purpose, sent: Boolean(userId) }, userId ? 'system text staged' : 'system text not sent: the recipient opted out');
    if (userId) this.scheduler.wake();
    return Boolean(userId);
  }
}
