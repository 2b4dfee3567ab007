import type { QueueDefinition } from '../queue/job-queue.js';

/** The queue of due reminder occurrences: one delayed job per occurrence. */
export const REMINDER_QUEUE = 'reminder';

/** A job's data: which reminder, and which occurrence (its due instant, ISO). */
export interface ReminderJobData {
  reminderId: string;
  dueAt: string;
  /**
   * Set on the follow-up job a delivery enqueues with its message: if the process died
   * while sending, this job (run by any instance) sends what is still pending.
   */
  recheck?: boolean;
}

/** Settings: a delivery stuck longer than this is presumed dead and retried (idempotently). */
export const reminderQueueDefinition: QueueDefinition = { name: REMINDER_QUEUE, expireInSeconds: 120, retryLimit: 20, retryDelaySeconds: 5 };

const PRIORITY_EPOCH_MS = Date.UTC(2020, 0, 1);

/**
 * Earliest due runs first. pg-boss fetches due jobs by priority, then by creation time,
 * so without this a backlog (10,000 reminders in one minute, or catching up after
 * downtime) would be worked in creation order and an early reminder could wait behind
 * later ones. Seconds since 2020, negated, fit pg-boss's integer priority for decades.
 */
export function dueTimePriority(dueAt: Date): number {
  return -Math.floor((dueAt.getTime() - PRIORITY_EPOCH_MS) / 1000);
}

/**
 * The job that fires one occurrence (at its due time), or, with `recheckAt`, the follow-up
 * that makes sure an occurrence already handled went out: what it carries, when it runs,
 * and its priority. Shared by pg-boss's `send` (ReminderService) and the delivery's own SQL.
 */
export function occurrenceJob(reminderId: string, dueAt: Date, recheckAt?: Date): { data: ReminderJobData; startAfter: Date; priority: number } {
  const startAfter = recheckAt ?? dueAt;
  return {
    data: { reminderId, dueAt: dueAt.toISOString(), ...(recheckAt ? { recheck: true } : {}) },
    startAfter,
    priority: dueTimePriority(startAfter),
  };
}
