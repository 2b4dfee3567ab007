import type { Channel } from '../../src/generated/prisma/client.js';
import type { ReminderJobData } from '../../src/reminders/reminder-queue.js';
import { reminderQueueDefinition } from '../../src/reminders/reminder-queue.js';
import type { Database } from '../../src/db/database.js';
import type { HeraldHarness } from '../helpers/herald-harness.js';

/** A reminder job as stored by pg-boss. */
export interface StoredReminderJob {
  id: string;
  data: ReminderJobData;
  startAfter: Date;
  state: string;
}

/** Every job of the reminder queue (optionally one reminder's), oldest due first. */
export async function reminderJobs(database: Pick<Database, 'pool'>, reminderId?: string): Promise<StoredReminderJob[]> {
  const { rows } = await database.pool.query<{ id: string; data: ReminderJobData; start_after: Date; state: string }>(
    `SELECT id, data, start_after, state FROM pgboss.job
      WHERE name = 'reminder' AND ($1::text IS NULL OR data->>'reminderId' = $1)
      ORDER BY start_after, created_on`,
    [reminderId ?? null],
  );
  return rows.map((row) => ({ id: row.id, data: row.data, startAfter: row.start_after, state: row.state }));
}

/** The jobs that fire occurrences (not the follow-up checks a delivery leaves behind). */
export async function occurrenceJobs(database: Pick<Database, 'pool'>, reminderId?: string): Promise<StoredReminderJob[]> {
  return (await reminderJobs(database, reminderId)).filter((job) => !job.data.recheck);
}

/**
 * For harnesses started with `start: false`: creates pg-boss's schema and the reminder
 * queue without any worker, so jobs stay in the table for the test to read and fire by
 * hand (at fake times far from the database's now()).
 */
export async function startQueueWithoutWorkers(harness: HeraldHarness): Promise<void> {
  await harness.herald.queue.start([reminderQueueDefinition]);
}

/** Creates a user directly (no onboarding turn). */
export async function createUser(
  harness: HeraldHarness,
  phone: string,
  options: { timezone?: string; channel?: Channel; lastWhatsappInboundAt?: Date | null; optedOut?: boolean; name?: string } = {},
) {
  return harness.database.prisma.user.create({
    data: {
      phone,
      name: options.name ?? 'Ana',
      timezone: options.timezone ?? 'America/New_York',
      language: 'en',
      preferredChannel: options.channel ?? 'sms',
      lastWhatsappInboundAt: options.lastWhatsappInboundAt ?? null,
      optedOut: options.optedOut ?? false,
      updatedAt: new Date(),
    },
  });
}

export { eventually } from '../helpers/eventually.js';
