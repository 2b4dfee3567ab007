import type { QueueDefinition } from '../queue/job-queue.js';
import { dueTimePriority } from './reminder-queue.js';

/** The queue of trip returns ("I'm in Tokyo until Friday"): one delayed job per trip. */
export const TRAVEL_RETURN_QUEUE = 'travel-return';

/**
 * A job's data: which trip (its id is its version: a changed trip is a new row, so a job for
 * the old one finds nothing), and whose (DELETE MY DATA removes a user's jobs by it).
 */
export interface TravelReturnJobData {
  tripId: string;
  userId: string;
}

/** A return is a few statements; one stuck longer is presumed dead and retried (it is idempotent). */
export const travelReturnQueueDefinition: QueueDefinition = { name: TRAVEL_RETURN_QUEUE, expireInSeconds: 120, retryLimit: 20, retryDelaySeconds: 5 };

/** The job that acts on a trip at `dueAt`: what it carries, when it starts, its priority (earliest first). */
export function travelReturnJob(tripId: string, userId: string, dueAt: Date): { data: TravelReturnJobData; startAfter: Date; priority: number } {
  return { data: { tripId, userId }, startAfter: dueAt, priority: dueTimePriority(dueAt) };
}
