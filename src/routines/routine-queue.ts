import type { QueueDefinition } from '../queue/job-queue.js';
import { dueTimePriority } from '../reminders/reminder-queue.js';

/** The queue of routine runs: one delayed job per occurrence. */
export const ROUTINE_QUEUE = 'routine';

/** A job's data: which routine, which occurrence (its due instant, ISO). */
export interface RoutineJobData {
  routineId: string;
  dueAt: string;
  /**
   * Set when the run was held (the user's turn was running, or quiet hours): lateness is
   * counted from here, so a run that waited its turn is not skipped as missed.
   */
  heldUntil?: string;
}

/**
 * A run is a whole turn (model calls, tools): a job running longer than the plan's limit
 * plus a margin is presumed dead, and its retry finds the run still pending and takes it over.
 */
export function routineQueueDefinition(planTimeoutMs: number): QueueDefinition {
  return { name: ROUTINE_QUEUE, expireInSeconds: Math.ceil(planTimeoutMs / 1000) + 120, retryLimit: 10, retryDelaySeconds: 5 };
}

/** The job that runs one occurrence: what it carries, when it starts, its priority (earliest due first). */
export function routineJob(routineId: string, dueAt: Date, heldUntil?: Date): { data: RoutineJobData; startAfter: Date; priority: number } {
  const startAfter = heldUntil ?? dueAt;
  return {
    data: { routineId, dueAt: dueAt.toISOString(), ...(heldUntil ? { heldUntil: heldUntil.toISOString() } : {}) },
    startAfter,
    priority: dueTimePriority(dueAt),
  };
}
