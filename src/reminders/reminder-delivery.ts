import type pg from 'pg';
import type { Channel, ReminderDeliveryStatus, ReminderStatus } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import { addressFor, type ClaimedMessage } from '../outbox/outbound-draft.js';
import type { OutboxService } from '../outbox/outbox-service.js';
import type { Clock } from '../shared/clock.js';
import { estimateTokens } from '../shared/tokens.js';
import { readerLanguage, say } from '../texts/texts.js';
import { inTransaction, preparedName, sqlTimestamp, uuidv7 } from '../shared/sql.js';
import { formatLocal, nextOccurrenceSkipping } from './reminder-schedule.js';
import { occurrenceJob, REMINDER_QUEUE, type ReminderJobData } from './reminder-queue.js';
import type { ReminderService } from './reminder-service.js';

/** When a reminder counts as late, and when as too late to send as if current. */
export interface ReminderDeliveryPolicy {
  /** Later than this, the text is marked "(late: due at …)". */
  lateAfterMs: number;
  /** Later than this, it is reported as missed instead of sent as if current. */
  maxLatenessMs: number;
  /** Approved WhatsApp template for reminders outside the 24-hour window ({{1}} = the text). */
  whatsappTemplateSid?: string | undefined;
  /**
   * When the follow-up job checks that a staged reminder went out. Later than the
   * outbox's dispatch claim (60 s), so a send cut off by a crash can be taken over.
   */
  recheckAfterMs?: number | undefined;
  /**
   * Invite mode (src/access): a number no longer allowed (revoked) is treated as unknown, so
   * its reminders are not sent (recorded like an opt-out; they resume if it is invited again).
   * Absent: everyone is served.
   */
  access?: { mode: 'open' | 'invite'; ownerPhones: readonly string[] } | undefined;
}

/** Default for {@link ReminderDeliveryPolicy.recheckAfterMs}: the outbox's 60 s claim plus a margin. */
const DEFAULT_RECHECK_AFTER_MS = 65_000;

/** What happened to one job. */
export type DeliveryOutcome = { kind: 'stale' } | { kind: 'handled'; status: ReminderDeliveryStatus; duplicate: boolean };

const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;

/*
 * Delivery runs for every occurrence, 10,000 of them in a busy minute, so it is plain SQL on
 * the pool, each statement prepared once per connection (as the webhook's): through Prisma
 * its eight statements cost ~15 ms of CPU per reminder. The columns are timestamp(3)
 * without time zone holding UTC, as Prisma writes them: instants go in as UTC text
 * (sqlTimestamp) and come out as epoch milliseconds, never through node-pg's Date parsing,
 * which would read them in the process's local zone.
 */

/**
 * The occurrence's reminder, locked, with what the decision needs: its user, and the
 * occurrence's delivery if it was handled already. A transaction that waited for the lock
 * sees the reminder's latest version but the other tables as they were when it started.
 */
const LOCK_OCCURRENCE = `
SELECT r."text", r."timezone", r."startLocal", r."rrule", r."status",
       (extract(epoch FROM r."nextDueAt") * 1000)::float8 AS "nextDueAt",
       u."id" AS "userId", u."phone", u."language", u."optedOut", u."preferredChannel",
       EXISTS (SELECT 1 FROM "AccessGrant" g WHERE g."phone" = u."phone" AND g."revokedAt" IS NULL) AS "invited",
       (extract(epoch FROM u."lastWhatsappInboundAt") * 1000)::float8 AS "lastWhatsappInboundAt",
       d."status" AS "handledStatus", d."outboundGroupId" AS "handledGroupId",
       ARRAY(SELECT (extract(epoch FROM s."dueAt") * 1000)::float8 FROM "ReminderDelivery" s
              WHERE s."reminderId" = r."id" AND s."dueAt" > $2::timestamp AND s."status" = 'skipped') AS "skipped"
FROM "Reminder" r
JOIN "User" u ON u."id" = r."userId"
LEFT JOIN "ReminderDelivery" d ON d."reminderId" = r."id" AND d."dueAt" = $2::timestamp
WHERE r."id" = $1::uuid
FOR UPDATE OF r`;

interface LockedOccurrence {
  text: string;
  timezone: string;
  startLocal: string;
  rrule: string | null;
  status: ReminderStatus;
  nextDueAt: number | null;
  userId: string;
  phone: string;
  language: string | null;
  optedOut: boolean;
  /** On the owners' invite list (only consulted in invite mode). */
  invited: boolean;
  preferredChannel: Channel;
  lastWhatsappInboundAt: number | null;
  handledStatus: ReminderDeliveryStatus | null;
  handledGroupId: string | null;
  /** Later occurrences skipped ahead of time (their event occurrence moved or was deleted), epoch ms. */
  skipped: number[];
}

/** An occurrence's delivery, if it was handled, and whether any part of its message is still to go out. */
const FIND_HANDLED = `
SELECT d."status", d."outboundGroupId",
       EXISTS (SELECT 1 FROM "OutboundMessage" o WHERE o."groupId" = d."outboundGroupId" AND o."status" IN ('pending', 'dispatching')) AS "undelivered"
FROM "ReminderDelivery" d
WHERE d."reminderId" = $1::uuid AND d."dueAt" = $2::timestamp`;

/**
 * Everything an occurrence changes, in one statement: the message's parts (as the outbox
 * stages them, the first already claimed by this sender; `sequence` from its default, in
 * part order), the message as part of the user's conversation (so a reply to it has its
 * subject; written once, like the delivery), the occurrence's delivery (unique per reminder and due time), the reminder
 * (next due time, or completed), and its jobs — the next occurrence and the follow-up
 * check — as pg-boss 10's own `send` writes them (its insertJob plan, with the queue's
 * settings; ReminderService.scheduleOccurrence sends the same jobs through pg-boss, and
 * queue/reminder-job-sql.test.ts holds the two equal). Without a queue row no job is
 * written, and the caller rolls everything back.
 */
const RECORD_OCCURRENCE = `
WITH parts AS (
  INSERT INTO "OutboundMessage" ("id", "userId", "turnId", "kind", "channel", "toAddress", "fromAddress", "body", "groupId", "partIndex", "partCount",
                                 "contentSid", "contentVariables", "status", "statusRank", "attempts", "nextAttemptAt", "createdAt", "updatedAt")
  SELECT p.id, $3::uuid, NULL, 'reminder'::"OutboundKind", $11::"Channel", $12::text, NULL, p.body, $7::uuid, (p.n - 1)::int, cardinality($17::uuid[]),
         $13::text, $14::jsonb, p.status, p.rank, p.attempts, p.next_attempt_at, $15::timestamp, $16::timestamp
  FROM unnest($17::uuid[], $18::text[], $19::"OutboundStatus"[], $20::int[], $21::int[], $22::timestamp[])
       WITH ORDINALITY AS p(id, body, status, rank, attempts, next_attempt_at, n)
  ORDER BY p.n
  RETURNING 1
), delivery AS (
  INSERT INTO "ReminderDelivery" ("id", "reminderId", "userId", "dueAt", "status", "outboundGroupId", "handledAt")
  VALUES ($5::uuid, $1::uuid, $3::uuid, $2::timestamp, $6::"ReminderDeliveryStatus", $7::uuid, $4::timestamp)
  RETURNING 1
), reminder AS (
  UPDATE "Reminder"
  SET "nextDueAt" = $8::timestamp, "status" = $9::"ReminderStatus", "occurrencesSent" = "occurrencesSent" + $10::int,
      "lastSentAt" = CASE WHEN $10::int > 0 THEN $4::timestamp ELSE "lastSentAt" END, "updatedAt" = $4::timestamp
  WHERE "id" = $1::uuid
  RETURNING 1
), conversation AS (
  INSERT INTO "Message" ("id", "userId", "role", "content", "channel", "tokenCount", "kind", "reminderId", "reminderDueAt", "outboundGroupId", "createdAt")
  SELECT $26::uuid, $3::uuid, 'assistant'::"MessageRole", $27::text, $11::"Channel", $28::int, $29::"MessageKind", $1::uuid, $2::timestamp, $7::uuid, $4::timestamp
  WHERE $27::text IS NOT NULL
  RETURNING 1
), jobs AS (
  INSERT INTO pgboss.job (name, data, priority, start_after, expire_in, keep_until, retry_limit, retry_delay, retry_backoff, policy, dead_letter)
  SELECT q.name, j.data::jsonb, j.priority, j.start_after,
         COALESCE(q.expire_seconds * interval '1s', interval '15 minutes'),
         j.start_after + CAST(COALESCE((q.retention_minutes * 60)::text, '14 days') AS interval),
         COALESCE(q.retry_limit, 2),
         CASE WHEN COALESCE(q.retry_backoff, false) THEN GREATEST(COALESCE(q.retry_delay, 0), 1) ELSE COALESCE(q.retry_delay, 0) END,
         COALESCE(q.retry_backoff, false), q.policy, q.dead_letter
  FROM unnest($23::text[], $24::timestamptz[], $25::int[]) AS j(data, start_after, priority)
  JOIN pgboss.queue q ON q.name = '${REMINDER_QUEUE}'
  ON CONFLICT DO NOTHING
  RETURNING 1
)
SELECT (SELECT count(*) FROM jobs)::int AS jobs`;

/** What the transaction decided; `message` when it wrote one, claimed, for this sender to send. */
type Handled =
  | { kind: 'stale' }
  | { kind: 'handled'; status: ReminderDeliveryStatus; duplicate: boolean; groupId: string | null; message?: ClaimedMessage | undefined };

/**
 * Fires one reminder occurrence, exactly once: in one transaction it records the
 * occurrence (unique per reminder and due time — a retried or duplicated job finds it
 * done), stages the message in the outbox and schedules the next occurrence; then it
 * delivers. Late occurrences say so; very late ones are reported as missed; opted-out
 * users get nothing; outside WhatsApp's 24-hour window the approved template is used, or
 * the occurrence is recorded as undeliverable and the user is told at their next message.
 */
export class ReminderDelivery {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly pool: pg.Pool,
    private readonly reminders: ReminderService,
    private readonly outbox: OutboxService,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly policy: ReminderDeliveryPolicy,
  ) {}

  /**
   * For start-up and a periodic sweep: re-enqueues the job of every active reminder whose
   * occurrence is overdue by more than `olderThanMs` and was never handled — its job was
   * lost, or is stuck "active" on an instance that died before its delivery committed
   * (pg-boss expires those only after expireInSeconds, at its next maintenance, minutes
   * later). Harmless when the job is merely slow: an occurrence is handled once, however
   * many jobs it has. Returns how many were re-enqueued.
   */
  async recoverOverdue(olderThanMs = 60_000, limit = 500): Promise<number> {
    const before = new Date(this.clock.now().getTime() - olderThanMs);
    const overdue = await this.prisma.reminder.findMany({
      where: { status: 'active', nextDueAt: { lte: before } },
      select: { id: true, nextDueAt: true },
      orderBy: { nextDueAt: 'asc' },
      take: limit,
    });
    if (overdue.length === 0) return 0;
    const handled = await this.prisma.reminderDelivery.findMany({
      where: { OR: overdue.map((reminder) => ({ reminderId: reminder.id, dueAt: reminder.nextDueAt! })) },
      select: { reminderId: true, dueAt: true },
    });
    const done = new Set(handled.map((delivery) => `${delivery.reminderId}@${delivery.dueAt.getTime()}`));
    const orphaned = overdue.filter((reminder) => !done.has(`${reminder.id}@${reminder.nextDueAt!.getTime()}`));
    if (orphaned.length === 0) return 0;
    await this.prisma.$transaction(async (transaction) => {
      for (const reminder of orphaned) await this.reminders.scheduleOccurrence(transaction, reminder.id, reminder.nextDueAt!);
    });
    this.logger.warn({ reminders: orphaned.length }, 'overdue reminders that were never handled: their jobs were enqueued again');
    return orphaned.length;
  }

  async deliver(job: ReminderJobData): Promise<DeliveryOutcome> {
    const dueAt = new Date(job.dueAt);
    if (job.recheck) {
      // The follow-up of an occurrence handled a minute ago: a glance, not a transaction.
      const recheck = await this.recheck(job.reminderId, dueAt);
      if (recheck) return recheck;
    }
    const outcome = await inTransaction(this.pool, (client) => this.handle(client, job, dueAt));
    if (outcome.kind === 'stale') return outcome;
    // A message written just now is claimed by this sender already and goes at once. On a
    // duplicate the group is flushed too: a crash between commit and delivery leaves it pending.
    const delivery = outcome.message
      ? await this.outbox.sendClaimed(outcome.message)
      : outcome.groupId
        ? await this.outbox.flushGroup(outcome.groupId)
        : undefined;
    // Twilio is struggling: fail the job so the queue retries it later; the retry finds
    // the occurrence recorded and only delivers the parts still pending.
    if (delivery?.kind === 'retry_later') throw deferred(job, delivery.at);
    if (!outcome.duplicate) this.logger.info({ reminderId: job.reminderId, dueAt: job.dueAt, status: outcome.status }, 'reminder occurrence handled');
    return { kind: 'handled', status: outcome.status, duplicate: outcome.duplicate };
  }

  /**
   * A follow-up job: the occurrence is recorded (in the transaction that enqueued this job);
   * only parts of its message still undelivered need a flush. Undefined when the occurrence
   * is not recorded after all (its reminder was deleted, say): the full path decides.
   */
  private async recheck(reminderId: string, dueAt: Date): Promise<DeliveryOutcome | undefined> {
    const { rows } = await this.pool.query<{ status: ReminderDeliveryStatus; outboundGroupId: string | null; undelivered: boolean }>({
      name: preparedName(FIND_HANDLED),
      text: FIND_HANDLED,
      values: [reminderId, sqlTimestamp(dueAt)],
    });
    const handled = rows[0];
    if (!handled) return undefined;
    if (handled.outboundGroupId && handled.undelivered) {
      const delivery = await this.outbox.flushGroup(handled.outboundGroupId);
      if (delivery.kind === 'retry_later') throw deferred({ reminderId }, delivery.at);
    }
    return { kind: 'handled', status: handled.status, duplicate: true };
  }

  /**
   * Decides and records one occurrence, holding its reminder's row lock: a concurrent edit
   * of the reminder (ReminderService.update locks the same row) waits for us, and we for it.
   * One statement reads, one writes.
   */
  private async handle(client: pg.PoolClient, job: ReminderJobData, dueAt: Date): Promise<Handled> {
    const { rows } = await client.query<LockedOccurrence>({ name: preparedName(LOCK_OCCURRENCE), text: LOCK_OCCURRENCE, values: [job.reminderId, sqlTimestamp(dueAt)] });
    const current = rows[0];
    if (!current) return { kind: 'stale' };
    if (current.handledStatus) return { kind: 'handled', status: current.handledStatus, duplicate: true, groupId: current.handledGroupId };
    if (current.status !== 'active' || current.nextDueAt !== dueAt.getTime()) {
      // The reminder changed while we waited for its lock; the statement's snapshot predates
      // the wait, so a delivery of this very occurrence committed meanwhile shows only now.
      const { rows: handled } = await client.query<{ status: ReminderDeliveryStatus; outboundGroupId: string | null }>({
        name: preparedName(FIND_HANDLED),
        text: FIND_HANDLED,
        values: [job.reminderId, sqlTimestamp(dueAt)],
      });
      return handled[0] ? { kind: 'handled', status: handled[0].status, duplicate: true, groupId: handled[0].outboundGroupId } : { kind: 'stale' };
    }

    const now = this.clock.now();
    const lateness = now.getTime() - dueAt.getTime();
    const language = readerLanguage(current.language);
    const due = () => formatLocal(dueAt, current.timezone);
    let status: ReminderDeliveryStatus;
    let text: string | undefined;
    const access = this.policy.access;
    const shutOut = access?.mode === 'invite' && !current.invited && !access.ownerPhones.includes(current.phone);
    if (current.optedOut || shutOut) status = 'opted_out';
    else if (lateness > this.policy.maxLatenessMs) [status, text] = ['reported', say(language, 'reminderMissed', { text: current.text, due: due() })];
    else if (lateness > this.policy.lateAfterMs) [status, text] = ['late', say(language, 'reminderLate', { text: current.text, due: due() })];
    else [status, text] = ['sent', say(language, 'reminder', { text: current.text })];

    const channel = current.preferredChannel;
    let message: ClaimedMessage | undefined;
    if (text) {
      const windowOpen = current.lastWhatsappInboundAt !== null && now.getTime() - current.lastWhatsappInboundAt < WHATSAPP_WINDOW_MS;
      const template = channel === 'whatsapp' && !windowOpen ? this.policy.whatsappTemplateSid : undefined;
      if (channel === 'whatsapp' && !windowOpen && !template) {
        status = 'undeliverable';
      } else {
        message = this.outbox.claimed({
          userId: current.userId,
          kind: 'reminder',
          channel,
          toAddress: addressFor(current.phone, channel),
          text,
          template: template ? { contentSid: template, variables: { '1': current.text } } : undefined,
        });
      }
    }
    // Missed occurrences during downtime are not replayed one by one: the next one is after now.
    const after = new Date(Math.max(dueAt.getTime(), now.getTime()));
    const next = current.rrule ? nextOccurrenceSkipping(current.rrule, current.startLocal, current.timezone, after, new Set(current.skipped)) : undefined;
    const jobs = [
      ...(next ? [occurrenceJob(job.reminderId, next)] : []),
      // This job stays "active" until pg-boss expires it (minutes) if the process dies while
      // sending; the follow-up lets any instance finish the send soon after the outbox claim
      // lapses. It finds the occurrence recorded and only delivers parts still pending.
      ...(message ? [occurrenceJob(job.reminderId, dueAt, new Date(now.getTime() + (this.policy.recheckAfterMs ?? DEFAULT_RECHECK_AFTER_MS)))] : []),
    ];
    const parts = message?.parts ?? [];
    const first = parts[0];
    const { rows: written } = await client.query<{ jobs: number }>({
      name: preparedName(RECORD_OCCURRENCE),
      text: RECORD_OCCURRENCE,
      values: [
        job.reminderId,
        sqlTimestamp(dueAt),
        current.userId,
        sqlTimestamp(now),
        uuidv7(now),
        status,
        message?.groupId ?? null,
        next ? sqlTimestamp(next) : null,
        next ? 'active' : 'completed',
        message ? 1 : 0,
        channel,
        first?.toAddress ?? null,
        first?.contentSid ?? null,
        first?.contentVariables ? JSON.stringify(first.contentVariables) : null,
        message ? sqlTimestamp(message.createdAt) : null,
        sqlTimestamp(new Date()),
        parts.map((part) => part.id),
        parts.map((part) => part.body),
        parts.map((part) => part.status),
        parts.map((part) => part.statusRank),
        parts.map((part) => part.attempts),
        parts.map((part) => (part.nextAttemptAt ? sqlTimestamp(part.nextAttemptAt) : null)),
        jobs.map((entry) => JSON.stringify(entry.data)),
        jobs.map((entry) => entry.startAfter.toISOString()),
        jobs.map((entry) => entry.priority),
        uuidv7(now),
        message ? text! : null,
        message ? estimateTokens(text!) : 0,
        status === 'reported' ? 'reminder_missed' : 'reminder',
      ],
    });
    // pg-boss stores nothing when the queue does not exist yet (ReminderService.scheduleOccurrence
    // refuses the same way): a reminder without its next job would never fire, so all of it is rolled back.
    if ((written[0]?.jobs ?? 0) < jobs.length) throw new Error(`the ${REMINDER_QUEUE} queue does not exist yet; the reminder was not saved`);
    return { kind: 'handled', status, duplicate: false, groupId: message?.groupId ?? null, message };
  }
}

function deferred(job: Pick<ReminderJobData, 'reminderId'>, at: Date): Error {
  return new Error(`reminder ${job.reminderId} delivery deferred until ${at.toISOString()}`);
}
