import type { Logger } from '../logging/logger.js';
import type { OutboxService } from '../outbox/outbox-service.js';
import type { IdGenerator } from '../shared/ids.js';
import { describeError } from '../shared/errors.js';
import type { LeaseHeartbeat } from './lease-heartbeat.js';
import type { TurnLeases } from './turn-lease.js';
import { TurnInterrupted, type TurnRunner } from './turn-runner.js';
import type { TurnScheduler } from '../queue/turn-queue.js';

/** What the worker needs. */
export interface TurnWorkerDependencies {
  leases: TurnLeases;
  /** Renews the leases this instance holds while it works (one statement for all of them). */
  heartbeat: LeaseHeartbeat;
  runner: TurnRunner;
  outbox: OutboxService;
  scheduler: TurnScheduler;
  ids: IdGenerator;
  logger: Logger;
  /**
   * How long a lease lasts without renewal. The heartbeat renews it every third of this while
   * the worker works, so it can be short: a crashed holder's users are taken over soon after it
   * lapses (TurnRecovery.takeOverLapsedLeases).
   */
  leaseMs: number;
}

/**
 * Drains one user's pending work under their lease: deliver undelivered parts first (every kind)
 * (so replies arrive in order), then answer pending messages one turn at a time, until
 * nothing is left. Any number of turn jobs for the same user may exist; whichever holds
 * the lease does the work and the rest find nothing to do.
 */
export class TurnWorker {
  private readonly inFlight = new Set<AbortController>();

  constructor(private readonly deps: TurnWorkerDependencies) {}

  /** Handles one turn job. */
  async drain(userId: string, jobId: string): Promise<void> {
    const owner = this.deps.ids.next('lease');
    const logger = this.deps.logger.child({ userId, jobId });
    const lease = await this.deps.leases.acquire(userId, owner, this.deps.leaseMs);
    if (!lease.acquired && lease.userGone) {
      // A job left for a user who erased their data: nothing to do, and nothing to re-check.
      // Deleted rather than completed: a completed job would keep their id in pg-boss for a day.
      await this.deps.scheduler.discard(jobId).catch((error: unknown) => logger.warn({ error: describeError(error) }, 'could not delete the erased user\'s turn job'));
      logger.debug('no such user (erased); turn job dropped');
      return;
    }
    if (!lease.acquired) {
      // Another worker is on it. It re-checks after releasing, but if it died the lease
      // lapses: look again then, so nothing waits forever on a dead holder.
      await this.deps.scheduler.schedule(userId, { startAfter: new Date(lease.heldUntil.getTime() + 1000) });
      logger.debug('user is busy in another worker; re-checking when its lease lapses');
      return;
    }
    const controller = new AbortController();
    this.inFlight.add(controller);
    // Keep the lease alive for as long as this drain works, however long that is (a slow
    // turn followed by a slow delivery can outlast any fixed lease). Should another worker
    // ever hold it (this process stalled past the lease), stop: two turns for one user
    // at once would answer the same messages twice.
    const lost = (): void => {
      if (controller.signal.aborted) return;
      logger.warn('lost the turn lease to another worker; stopping');
      controller.abort(new TurnInterrupted('lost the turn lease'));
    };
    const stopRenewing = this.deps.heartbeat.hold(userId, owner, lost);
    let rescheduled = false;
    try {
      for (;;) {
        const delivery = await this.deps.outbox.flushUser(userId);
        if (delivery.kind === 'retry_later') {
          await this.deps.scheduler.schedule(userId, { startAfter: delivery.at });
          rescheduled = true;
          break;
        }
        if (controller.signal.aborted) break;
        const pending = await this.deps.runner.pendingMessages(userId);
        if (pending.length === 0) break;
        // Extend for the next turn, and make sure the lease is still ours.
        if (!(await this.deps.leases.acquire(userId, owner, this.deps.leaseMs)).acquired) {
          lost();
          break;
        }
        await this.deps.runner.runNext(userId, pending, controller.signal, (transaction) =>
          this.deps.leases.confirm(transaction, userId, owner, this.deps.leaseMs),
        );
      }
    } catch (error) {
      if (error instanceof TurnInterrupted) {
        logger.info({ reason: error.message }, 'turn interrupted; its messages stay pending for another worker');
        await this.deps.scheduler.schedule(userId).catch(() => {});
        return;
      }
      logger.error({ error: describeError(error) }, 'draining the user failed; the job will be retried');
      throw error;
    } finally {
      // A renewal on its way after this matches no row: release clears the owner it is matched by.
      stopRenewing();
      this.inFlight.delete(controller);
      await this.deps.leases.release(userId, owner).catch(() => {});
    }
    // Work that arrived after our last look, while its job found us holding the lease,
    // is ours to pick up: the lease is free now, so schedule a fresh look.
    if (!rescheduled && !controller.signal.aborted && (await this.hasWork(userId))) {
      await this.deps.scheduler.schedule(userId);
      this.deps.scheduler.wake();
    }
  }

  /** Stops every turn in flight (shutdown after the grace period). */
  interruptAll(): void {
    for (const controller of this.inFlight) controller.abort(new TurnInterrupted('shutting down'));
  }

  /** Turns currently running on this instance. */
  get activeCount(): number {
    return this.inFlight.size;
  }

  private async hasWork(userId: string): Promise<boolean> {
    const [pending, undelivered] = await Promise.all([
      this.deps.runner.pendingMessages(userId),
      this.deps.outbox.hasUndelivered(userId),
    ]);
    return pending.length > 0 || undelivered;
  }
}
