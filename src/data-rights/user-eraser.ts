import { setTimeout as sleep } from 'node:timers/promises';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import { REMINDER_QUEUE } from '../reminders/reminder-queue.js';
import { ROUTINE_QUEUE } from '../routines/routine-queue.js';
import { TRAVEL_RETURN_QUEUE } from '../reminders/travel-queue.js';
import type { Clock } from '../shared/clock.js';
import { TURN_QUEUE } from '../queue/turn-queue.js';
import { LEARNING_QUEUE } from '../learning/fact-learner.js';
import { HELD_NOTICE_QUEUE } from '../access/system-texts.js';

/** A service where the user granted Herald access (Google): what revokes it, read before the erase. */
export interface GrantHolder {
  revocationFor(userId: string): Promise<() => Promise<void>>;
}

/** Thrown inside the erase transaction to roll it back while one of the user's messages is being sent. */
class SendInFlight extends Error {}

/** How often the eraser looks again while a send is in flight. */
const IN_FLIGHT_RETRY_MS = 100;

/**
 * Erases a user: DELETE MY DATA after their YES. One transaction removes the user row,
 * and with it (every user-owned table references User with ON DELETE CASCADE; a test walks
 * the schema to keep it so) their messages, turns, plans and steps, facts, reminders and
 * deliveries, lists, calendar events and settings, connections and their encrypted
 * secrets, connect links, pages, pending confirmations and outbox rows; plus what does
 * not hang off the user row: every pg-boss job that names them or their reminders and
 * routines, in any state (the one running this erase included), and the webhook's
 * de-duplication keys of their messages.
 *
 * Racing a reminder: the transaction locks the user's reminders (a delivery holds its
 * reminder's lock while it records the occurrence), so a delivery either committed before
 * (its message is then being sent, or sent) or finds the reminder gone. And it never
 * commits while one of the user's messages is claimed for sending: it rolls back and
 * tries again until that send is over. Pending parts are locked, so no sender can claim
 * one meanwhile. So nothing goes out after the erase commits. Grants at Google are revoked
 * after it commits (an erase that fails leaves the user's accounts working).
 */
export class UserEraser {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: {
      /** Grants held at other services (Google's), revoked once the erase has committed. */
      grants?: GrantHolder[];
      sleep?: (milliseconds: number) => Promise<void>;
    } = {},
  ) {}

  /** Erases everything of `userId`; false when there was no such user. */
  async erase(userId: string): Promise<boolean> {
    // Read before the erase: the credentials that name the grants are erased with the user.
    const revocations = await Promise.all((this.options.grants ?? []).map((holder) => holder.revocationFor(userId)));
    const wait = this.options.sleep ?? ((milliseconds: number) => sleep(milliseconds));
    for (let attempt = 1; ; attempt += 1) {
      try {
        const erased = await this.prisma.$transaction((transaction) => this.eraseOnce(transaction as unknown as PrismaClient, userId), { timeout: 30_000 });
        this.logger.info({ userId, attempts: attempt, erased }, erased ? 'user data erased' : 'nothing to erase: no such user');
        if (erased) for (const revoke of revocations) await revoke();
        return erased;
      } catch (error) {
        if (!(error instanceof SendInFlight)) throw error;
        this.logger.debug({ userId, attempt }, 'a message to the user is being sent; erasing once it is out');
        await wait(IN_FLIGHT_RETRY_MS);
      }
    }
  }

  private async eraseOnce(transaction: PrismaClient, userId: string): Promise<boolean> {
    // Reminders before the user, in the order a delivery takes them (its reminder, then the
    // user row its outbox insert references): the other order could deadlock with it.
    const reminders = await transaction.$queryRaw<Array<{ id: string }>>`SELECT "id" FROM "Reminder" WHERE "userId" = ${userId}::uuid FOR UPDATE`;
    const user = await transaction.$queryRaw<Array<{ id: string }>>`SELECT "id" FROM "User" WHERE "id" = ${userId}::uuid FOR UPDATE`;
    if (user.length === 0) return false;
    // Parts still to go: locked, so no sender claims one until this commits (and finds it gone).
    await transaction.$queryRaw`
      SELECT "id" FROM "OutboundMessage" WHERE "userId" = ${userId}::uuid AND "status" IN ('pending', 'dispatching') FOR UPDATE`;
    // A live claim means a sender may be talking to Twilio right now: let it finish first.
    const claimed = await transaction.outboundMessage.count({ where: { userId, status: 'dispatching', nextAttemptAt: { gt: this.clock.now() } } });
    if (claimed > 0) throw new SendInFlight();

    const reminderIds = reminders.map((reminder) => reminder.id);
    // Routines are not locked: a run locks its routine without the user, and commits holding
    // the user then the routine; the user's delete takes them in that same order (cascade).
    const routineIds = (await transaction.routine.findMany({ where: { userId }, select: { id: true } })).map((routine) => routine.id);
    // Every job of theirs, in every state, waiting, done or archived: a completed job keeps its
    // data for a day. The active ones too, the job running this erase among them (its turn
    // answered the YES): pg-boss completing or failing a job that is gone changes nothing, and a
    // worker still busy with one of theirs finds the user gone.
    for (const table of ['job', 'archive'] as const) {
      await transaction.$executeRawUnsafe(
        `DELETE FROM pgboss.${table} WHERE (name = $1 AND data->>'reminderId' = ANY($2::text[])) OR (name = ANY($3::text[]) AND data->>'userId' = $4)
           OR (name = $5 AND data->>'phone' = (SELECT phone FROM "User" WHERE id = $4::uuid))
           OR (name = $6 AND data->>'routineId' = ANY($7::text[]))`,
        REMINDER_QUEUE,
        reminderIds,
        // Learning passes and held offers carry what was learned (a name, a date): they go too.
        [TURN_QUEUE, LEARNING_QUEUE, TRAVEL_RETURN_QUEUE],
        userId,
        HELD_NOTICE_QUEUE,
        ROUTINE_QUEUE,
        routineIds,
      );
    }
    await transaction.$executeRaw`DELETE FROM "InboundDedupe" WHERE "messageId" IN (SELECT "id" FROM "Message" WHERE "userId" = ${userId}::uuid)`;
    await transaction.user.delete({ where: { id: userId } });
    return true;
  }
}
