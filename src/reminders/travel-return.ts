import type { Prisma, Trip } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import { addressFor } from '../outbox/outbound-draft.js';
import type { OutboxService } from '../outbox/outbox-service.js';
import type { JobQueue } from '../queue/job-queue.js';
import { prismaSqlExecutor } from '../queue/prisma-sql-executor.js';
import type { TurnScheduler } from '../queue/turn-queue.js';
import type { Clock } from '../shared/clock.js';
import { estimateTokens } from '../shared/tokens.js';
import { say, textLanguageOf } from '../texts/texts.js';
import type { QuietHours } from '../users/quiet-hours.js';
import type { ReminderService } from './reminder-service.js';
import { placeOf, type TravellingRoutines } from './reminder-travel.js';
import { TRAVEL_RETURN_QUEUE, travelReturnJob, type TravelReturnJobData } from './travel-queue.js';

/** What one run of a trip's job did. */
export type TravelReturnOutcome =
  /** The trip is gone: replaced by a newer one, ended early, already returned, or the user erased. */
  | { kind: 'gone' }
  /** Run before the return instant (clock skew): the job is enqueued again for then. */
  | { kind: 'early'; at: Date }
  /** The zone is home again; the notice waits for the user's quiet hours to end. */
  | { kind: 'held'; until: Date }
  /** Done: the zone is home, what moved moved back, and the notice is staged (unless they opted out). */
  | { kind: 'returned'; moved: number; notified: boolean };

/** What TravelReturn needs. */
export interface TravelReturnDependencies {
  prisma: PrismaClient;
  queue: Pick<JobQueue, 'enqueue'>;
  reminders: Pick<ReminderService, 'moveRecurringTo'>;
  routines?: TravellingRoutines | undefined;
  outbox: Pick<OutboxService, 'stage'>;
  scheduler: Pick<TurnScheduler, 'schedule' | 'wake'>;
  quietHours: Pick<QuietHours, 'quietEndsAt'>;
  clock: Clock;
  logger: Logger;
}

/**
 * The end of a trip (issue 21 item 8, src/reminders/travel-trips.ts): at the trip's return
 * instant its pg-boss job sets the user's zone back home, moves their repeating reminders and
 * routines back to home time (same local times) when they said YES for this trip, and sends
 * one "welcome back" notice in their language, held by quiet hours like Herald's other notices.
 *
 * Exactly once, across retries, instances and restarts, in three steps each safe to repeat:
 * 1. **Claim** (the trip's row locked): `away` → `returning`, with the user's zone (and the
 *    zone the travel question last settled, so the return is never asked about) set home.
 * 2. **Move back**, when the trip says so: moving to a zone they are already on moves nothing.
 * 3. **Notice**: the trip's row is deleted in the transaction that stages the notice, so only one
 *    run sends it; inside quiet hours the trip keeps `returning` with `dueAt` at their end and the
 *    job comes back then.
 * The job names the trip's id: a trip changed since ("staying until Wednesday") is a new row,
 * so an outdated job finds nothing. A job lost with its process is enqueued again by the sweep
 * ({@link recoverOverdue}) from the trip's `dueAt`.
 */
export class TravelReturn {
  constructor(private readonly deps: TravelReturnDependencies) {}

  /** The job: returns the user home from the trip `tripId`, if it is still theirs and due. */
  async run(job: TravelReturnJobData): Promise<TravelReturnOutcome> {
    const claimed = await this.claim(job.tripId, false);
    if (claimed.kind !== 'claimed') return claimed;
    const trip = claimed.trip;
    const moved = await this.moveBack(trip);
    return this.notify(trip, moved);
  }

  /**
   * "I'm back home" before the return date (or a zone change to the home zone): the return
   * happens now, in the user's turn, without the notice (the reply says it). What moved.
   */
  async returnNow(tripId: string): Promise<{ homeTimezone: string; moved: number } | undefined> {
    const claimed = await this.claim(tripId, true);
    if (claimed.kind !== 'claimed') return undefined;
    const moved = await this.moveBack(claimed.trip);
    await this.deps.prisma.trip.deleteMany({ where: { id: tripId, status: 'returning' } });
    return { homeTimezone: claimed.trip.homeTimezone, moved };
  }

  /**
   * For start-up and the periodic sweep: enqueues again the job of every trip whose return (or
   * held notice) is overdue by more than `olderThanMs`. Harmless when the job is merely slow:
   * each step of a return happens once however many jobs run it. Returns how many.
   */
  async recoverOverdue(olderThanMs = 60_000, limit = 500): Promise<number> {
    const before = new Date(this.deps.clock.now().getTime() - olderThanMs);
    const overdue = await this.deps.prisma.trip.findMany({ where: { dueAt: { lte: before } }, select: { id: true, userId: true, dueAt: true }, orderBy: { dueAt: 'asc' }, take: limit });
    if (overdue.length === 0) return 0;
    await this.deps.prisma.$transaction(async (transaction) => {
      for (const trip of overdue) await this.schedule(transaction, trip.id, trip.userId, trip.dueAt);
    });
    return overdue.length;
  }

  /** Enqueues the job that acts on the trip at `dueAt`, in the caller's transaction. */
  async schedule(executor: Prisma.TransactionClient, tripId: string, userId: string, dueAt: Date): Promise<void> {
    const job = travelReturnJob(tripId, userId, dueAt);
    const id = await this.deps.queue.enqueue(TRAVEL_RETURN_QUEUE, job.data, { startAfter: job.startAfter, priority: job.priority, transaction: prismaSqlExecutor(executor) });
    // pg-boss stores nothing when the queue does not exist: a trip without its job would never end.
    if (id === null) throw new Error(`the ${TRAVEL_RETURN_QUEUE} queue does not exist yet; the trip was not saved`);
  }

  /** Step 1: the zone set home once (`away` → `returning`), the trip's row locked while it is. */
  private async claim(tripId: string, early: boolean): Promise<{ kind: 'claimed'; trip: Trip; now?: true } | { kind: 'gone' } | { kind: 'early'; at: Date }> {
    const now = this.deps.clock.now();
    const outcome = await this.deps.prisma.$transaction(async (transaction) => {
      const locked = await transaction.$queryRaw<Array<{ id: string }>>`SELECT id FROM "Trip" WHERE id = ${tripId}::uuid FOR UPDATE`;
      if (locked.length === 0) return { kind: 'gone' as const };
      const trip = await transaction.trip.findUniqueOrThrow({ where: { id: tripId } });
      if (trip.status === 'returning') return { kind: 'claimed' as const, trip };
      if (!early && trip.returnAt.getTime() > now.getTime()) {
        await this.schedule(transaction, trip.id, trip.userId, trip.returnAt);
        return { kind: 'early' as const, at: trip.returnAt };
      }
      // homeTimezone is the zone the travel question last settled (reminder-travel.ts): home, so nothing asks about the return.
      await transaction.user.update({ where: { id: trip.userId }, data: { timezone: trip.homeTimezone, homeTimezone: trip.homeTimezone } });
      return { kind: 'claimed' as const, trip: await transaction.trip.update({ where: { id: trip.id }, data: { status: 'returning', updatedAt: now } }), now: true as const };
    });
    if (outcome.kind === 'claimed' && outcome.now) {
      this.deps.logger.info({ userId: outcome.trip.userId, tripId, event: early ? 'trip_ended_early' : 'trip_returned', movesReminders: outcome.trip.movesReminders }, 'trip over: the time zone is home again');
    }
    return outcome;
  }

  /** Step 2: back to home time at the same local times, only when the user's YES for this trip moved them. */
  private async moveBack(trip: Trip): Promise<number> {
    if (!trip.movesReminders) return 0;
    const reminders = await this.deps.reminders.moveRecurringTo(trip.userId, trip.homeTimezone);
    const routines = (await this.deps.routines?.moveTo(trip.userId, trip.homeTimezone)) ?? 0;
    return reminders + routines;
  }

  /** Step 3: one notice, staged with the trip's deletion; held while the user's quiet hours last. */
  private async notify(trip: Trip, moved: number): Promise<TravelReturnOutcome> {
    const { prisma, clock } = this.deps;
    const now = clock.now();
    const user = await prisma.user.findUnique({ where: { id: trip.userId } });
    if (!user) return { kind: 'gone' };
    const until = user.optedOut ? undefined : this.deps.quietHours.quietEndsAt(user, now);
    if (until) {
      const held = await prisma.$transaction(async (transaction) => {
        const updated = await transaction.trip.updateMany({ where: { id: trip.id, status: 'returning' }, data: { dueAt: until, updatedAt: now } });
        if (updated.count > 0) await this.schedule(transaction, trip.id, trip.userId, until);
        return updated.count > 0;
      });
      return held ? { kind: 'held', until } : { kind: 'gone' };
    }
    const language = textLanguageOf(user.language) ?? 'en';
    const text = say(language, trip.movesReminders ? 'travelReturnedMoved' : 'travelReturned', { home: placeOf(trip.homeTimezone) });
    const sent = await prisma.$transaction(async (transaction) => {
      // The claim on the notice: only the run that deletes the trip stages it.
      const deleted = await transaction.trip.deleteMany({ where: { id: trip.id, status: 'returning' } });
      if (deleted.count === 0) return undefined;
      if (user.optedOut) return false;
      const channel = user.preferredChannel;
      const staged = await this.deps.outbox.stage(transaction, { userId: user.id, kind: 'system', channel, toAddress: addressFor(user.phone, channel), text });
      // Part of the conversation, like everything Herald sends.
      await transaction.message.create({
        data: { userId: user.id, role: 'assistant', kind: 'notice', content: text, channel, tokenCount: estimateTokens(text), outboundGroupId: staged.groupId, createdAt: now },
      });
      await this.deps.scheduler.schedule(user.id, { transaction });
      return true;
    });
    if (sent === undefined) return { kind: 'gone' };
    if (sent) this.deps.scheduler.wake();
    return { kind: 'returned', moved, notified: sent };
  }
}
