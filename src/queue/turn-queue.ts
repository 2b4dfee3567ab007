import type { Prisma } from '../generated/prisma/client.js';
import type { JobQueue, QueueDefinition } from './job-queue.js';
import { prismaSqlExecutor } from './prisma-sql-executor.js';

/** The queue of turn jobs. A job means "this user may have something to answer or deliver". */
export const TURN_QUEUE = 'turn';

/** The data of a turn job. */
export interface TurnJobData {
  userId: string;
}

/** The turn queue's settings: a job running longer than a whole turn is presumed dead. */
export function turnQueueDefinition(planTimeoutMs: number): QueueDefinition {
  return { name: TURN_QUEUE, expireInSeconds: Math.ceil(planTimeoutMs / 1000) + 120, retryLimit: 10, retryDelaySeconds: 2 };
}

/** Enqueues turn jobs. */
export class TurnScheduler {
  constructor(private readonly queue: JobQueue) {}

  /** Schedules a drain of the user's pending work, inside a transaction when given one. */
  async schedule(userId: string, options: { transaction?: Prisma.TransactionClient; startAfter?: Date } = {}): Promise<void> {
    const id = await this.queue.enqueue(TURN_QUEUE, { userId } satisfies TurnJobData, {
      ...(options.transaction ? { transaction: prismaSqlExecutor(options.transaction) } : {}),
      ...(options.startAfter ? { startAfter: options.startAfter } : {}),
    });
    // pg-boss answers null, storing nothing, when the queue does not exist (no worker has
    // started on this database yet): say so rather than pretend the turn is scheduled.
    if (id === null) throw new Error(`the ${TURN_QUEUE} queue does not exist yet; the job was not stored`);
  }

  /** Deletes a turn job (the running one included): for a job whose user no longer exists. */
  async discard(jobId: string): Promise<void> {
    await this.queue.discard(TURN_QUEUE, jobId);
  }

  /** Tells `jobs` of this instance's idle turn workers (one per job just scheduled) to look now rather than at their next poll. */
  wake(jobs = 1): void {
    this.queue.wake(TURN_QUEUE, jobs);
  }
}
