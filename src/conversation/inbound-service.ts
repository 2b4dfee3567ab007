import type { Prisma } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import type { InboundMessageWebhook } from '../channels/twilio-webhook-schemas.js';
import { parseTwilioAddress } from '../channels/phone-number.js';
import type { UserService } from '../users/user-service.js';
import type { TurnScheduler } from '../turns/turn-scheduler.js';
import type { Clock } from '../shared/clock.js';
import { estimateTokens } from '../shared/tokens.js';

/** What became of an inbound webhook. */
export type InboundOutcome =
  | { kind: 'accepted'; userId: string; messageId: string }
  | { kind: 'duplicate' }
  | { kind: 'rejected'; reason: string };

/** An inbound message as Twilio delivered it, plus the delivery's idempotency token. */
export interface InboundDelivery {
  webhook: InboundMessageWebhook;
  idempotencyToken?: string | undefined;
}

/** Thrown inside the transaction to roll it back when a delivery was already stored. */
class DuplicateDelivery extends Error {}

/**
 * Stores inbound messages durably. In one transaction it records the delivery's
 * de-duplication keys, finds or creates the user, stores the message as pending, and
 * enqueues the user's turn job: after it returns, nothing the user said can be lost,
 * and a repeated delivery (Twilio retries, two instances) is recognised.
 */
export class InboundService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly users: UserService,
    private readonly turns: TurnScheduler,
    private readonly clock: Clock,
    private readonly logger?: Logger,
  ) {}

  async receive(delivery: InboundDelivery): Promise<InboundOutcome> {
    const { webhook } = delivery;
    const sender = parseTwilioAddress(webhook.From);
    if (!sender) return { kind: 'rejected', reason: 'From is not a phone number Herald can answer' };

    const keys = [`sid:${webhook.MessageSid}`];
    if (delivery.idempotencyToken) keys.push(`token:${delivery.idempotencyToken}`);
    try {
      return await this.prisma.$transaction(async (transaction) => {
        // Concurrent deliveries of one message serialise on these keys' unique index:
        // the second waits for the first to commit, then sees the conflict.
        const inserted = await transaction.inboundDedupe.createMany({
          data: keys.map((key) => ({ key, receivedAt: this.clock.now() })),
          skipDuplicates: true,
        });
        if (inserted.count !== keys.length) throw new DuplicateDelivery();

        const user = await this.users.recordContact(sender.phone, sender.channel, transaction);
        const body = webhook.Body.trim();
        const message = await transaction.message.create({
          data: {
            userId: user.id,
            role: 'user',
            content: body,
            channel: sender.channel,
            twilioSid: webhook.MessageSid,
            tokenCount: estimateTokens(body),
            numMedia: webhook.NumMedia,
            heraldAddress: webhook.To,
            optOutType: webhook.OptOutType ?? null,
            inboundStatus: 'pending',
            createdAt: this.clock.now(),
          },
          select: { id: true },
        });
        await transaction.inboundDedupe.updateMany({ where: { key: { in: keys } }, data: { messageId: message.id } });
        await this.scheduleTurn(transaction, user.id, message.id);
        return { kind: 'accepted' as const, userId: user.id, messageId: message.id };
      });
    } catch (error) {
      if (error instanceof DuplicateDelivery || isUniqueViolation(error)) return { kind: 'duplicate' };
      throw error;
    }
  }

  /**
   * Enqueues the user's turn job in the message's transaction. The message, not the job,
   * is what must not be lost: if the queue cannot take the job (its tables are not there
   * yet because no worker ever started on this database, say), the job alone is rolled
   * back to a savepoint and the message still commits as pending, for start-up recovery
   * and the periodic sweep to schedule. Refusing the webhook instead would lose the
   * message: Twilio does not retry messaging webhooks by default.
   */
  private async scheduleTurn(transaction: Prisma.TransactionClient, userId: string, messageId: string): Promise<void> {
    await transaction.$executeRawUnsafe('SAVEPOINT inbound_turn_job');
    try {
      await this.turns.schedule(userId, { transaction });
    } catch (error) {
      await transaction.$executeRawUnsafe('ROLLBACK TO SAVEPOINT inbound_turn_job');
      this.logger?.error(
        { userId, messageId, error: error instanceof Error ? error.message : String(error) },
        'could not enqueue the turn job; the message is stored and recovery will schedule it',
      );
      return;
    }
    await transaction.$executeRawUnsafe('RELEASE SAVEPOINT inbound_turn_job');
  }
}

/** A unique-constraint violation that slipped past skipDuplicates (e.g. the MessageSid). */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'P2002';
}
