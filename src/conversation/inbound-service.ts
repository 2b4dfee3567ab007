import type pg from 'pg';
import { webhookAttachments, webhookLocation, type InboundMessageWebhook } from '../channels/twilio-webhook-schemas.js';
import { describeUnusableAddress, parseTwilioAddress } from '../channels/phone-number.js';
import { zoneOfPhone } from '../channels/phone-zones.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import { preparedName, uuidv7 } from '../shared/sql.js';
import { estimateTokens } from '../shared/tokens.js';
import { TURN_QUEUE } from '../queue/turn-queue.js';

/** What became of an inbound webhook. */
export type InboundOutcome =
  | { kind: 'accepted'; userId: string; messageId: string }
  | { kind: 'duplicate' }
  | { kind: 'rejected'; reason: string }
  /** Not allowed (src/access): nothing stored; `reply`, when set, is answered in the webhook's TwiML. */
  | { kind: 'refused'; reason: string; reply?: string | undefined };

/** Who may write (src/access/access-gate.ts); absent: everyone. */
export interface InboundGate {
  check(phone: string, body: string): Promise<{ kind: 'serve' } | { kind: 'refuse'; reason: string; reply?: string }>;
}

/** An inbound message as Twilio delivered it, plus the delivery's idempotency token. */
export interface InboundDelivery {
  webhook: InboundMessageWebhook;
  idempotencyToken?: string | undefined;
  /**
   * The sender is over the webhook rate limit: store the message without its turn job; the
   * caller schedules the turn for this instant (src/http/sender-rate-limit.ts).
   */
  deferTurnUntil?: Date | undefined;
  /** The webhook span's W3C traceparent (tracing on): stored with the message, for its turn to continue. */
  traceContext?: string | undefined;
  /**
   * When the webhook arrived, for one replayed from the inbound spool (src/conversation/inbound-spool.ts):
   * the message is stored as received then, in its place in the conversation. Default: now.
   */
  receivedAt?: Date | undefined;
}

/**
 * One statement records a delivery: its de-duplication keys (already pointing at the
 * message), the user (found or created by phone; the channel they wrote on, and for
 * WhatsApp the open 24-hour window), and the pending message — the last two only when
 * every key was new. Concurrent deliveries of one message serialise on the keys' unique
 * index, and the later one finds them taken.
 */
const RECORD_DELIVERY = `
WITH keys AS (
  INSERT INTO "InboundDedupe" ("key", "messageId", "receivedAt")
  SELECT key, $1::uuid, $2::timestamp FROM unnest($3::text[]) AS key
  ON CONFLICT DO NOTHING
  RETURNING "key"
), fresh AS (
  SELECT count(*) = cardinality($3::text[]) AS ok FROM keys
), contact AS (
  INSERT INTO "User" ("id", "phone", "timezone", "timezoneSource", "preferredChannel", "lastWhatsappInboundAt", "createdAt", "updatedAt")
  SELECT $4::uuid, $5, $6, $21::"TimezoneSource", $7::"Channel", CASE WHEN $7 = 'whatsapp' THEN $2::timestamp END, $2::timestamp, $2::timestamp
  FROM fresh WHERE ok
  ON CONFLICT ("phone") DO UPDATE SET
    "preferredChannel" = EXCLUDED."preferredChannel",
    "lastWhatsappInboundAt" = GREATEST(EXCLUDED."lastWhatsappInboundAt", "User"."lastWhatsappInboundAt"),
    "whatsappUnreachableAt" = CASE WHEN EXCLUDED."preferredChannel" = 'whatsapp' THEN NULL ELSE "User"."whatsappUnreachableAt" END,
    "smsUnreachableAt" = CASE WHEN EXCLUDED."preferredChannel" IN ('sms', 'rcs') THEN NULL ELSE "User"."smsUnreachableAt" END,
    "updatedAt" = EXCLUDED."updatedAt"
  RETURNING "id"
), message AS (
  INSERT INTO "Message" ("id", "userId", "role", "content", "channel", "twilioSid", "tokenCount", "numMedia", "heraldAddress", "optOutType", "quotedSid", "traceContext", "location", "buttonPayload", "inboundStatus", "createdAt")
  SELECT $1::uuid, contact."id", 'user'::"MessageRole", $8, $7::"Channel", $9, $10, $11, $12, $13, $14, $15, $16::jsonb, $20, 'pending'::"InboundStatus", $2::timestamp FROM contact
  RETURNING "id", "userId"
), media AS (
  INSERT INTO "MessageMedia" ("id", "messageId", "position", "url", "declaredType", "createdAt", "updatedAt")
  SELECT attachment.id, message."id", (attachment.position - 1)::int, attachment.url, attachment.type, $2::timestamp, $2::timestamp
  FROM message, unnest($17::uuid[], $18::text[], $19::text[]) WITH ORDINALITY AS attachment(id, url, type, position)
  RETURNING "id"
)`;

/**
 * The delivery plus its turn job, in the SAME statement, so the webhook costs one round
 * trip and is atomic without a transaction block. The job row is what pg-boss 10's own
 * `send` writes (its insertJob plan), with the queue's settings; queue/turn-job-sql.test.ts
 * holds the two equal, so a pg-boss upgrade that changes its table fails a test, not
 * production. No queue row yet (a database no worker has started on): no job, and
 * start-up recovery schedules the pending message.
 */
const RECORD_DELIVERY_AND_JOB = `${RECORD_DELIVERY}, job AS (
  INSERT INTO pgboss.job (name, data, expire_in, keep_until, retry_limit, retry_delay, retry_backoff, policy, dead_letter)
  SELECT q.name, jsonb_build_object('userId', message."userId"),
         COALESCE(q.expire_seconds * interval '1s', interval '15 minutes'),
         now() + COALESCE((q.retention_minutes * 60)::text::interval, interval '14 days'),
         COALESCE(q.retry_limit, 2),
         CASE WHEN COALESCE(q.retry_backoff, false) THEN GREATEST(COALESCE(q.retry_delay, 0), 1) ELSE COALESCE(q.retry_delay, 0) END,
         COALESCE(q.retry_backoff, false), q.policy, q.dead_letter
  FROM message JOIN pgboss.queue q ON q.name = '${TURN_QUEUE}'
  RETURNING id
)
SELECT (SELECT ok FROM fresh) AS fresh, (SELECT "userId" FROM message) AS "userId", (SELECT count(*) FROM job)::int AS jobs`;

const RECORD_DELIVERY_ONLY = `${RECORD_DELIVERY}
SELECT (SELECT ok FROM fresh) AS fresh, (SELECT "userId" FROM message) AS "userId", 0 AS jobs`;

/**
 * Stores inbound messages durably, on the webhook's hot path: one prepared statement
 * records the delivery and enqueues the user's turn job, atomically. After it returns,
 * nothing the user said can be lost, and a repeated delivery (Twilio retries, two
 * instances) is recognised.
 *
 * Plain SQL rather than Prisma here on purpose: it is the one path whose speed Twilio
 * waits for (bench/webhook.ts measured ~5 ms of CPU per webhook through Prisma's nine
 * statements, versus ~1 ms like this).
 */
export class InboundService {
  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    private readonly defaultTimezone: string,
    private readonly logger?: Logger,
    private readonly gate?: InboundGate,
  ) {}

  async receive(delivery: InboundDelivery): Promise<InboundOutcome> {
    const { webhook } = delivery;
    const sender = parseTwilioAddress(webhook.From);
    if (!sender) return { kind: 'rejected', reason: `From ${describeUnusableAddress(webhook.From)}` };
    // Before anything is stored: a sender who may not use Herald leaves no trace but a notice.
    if (this.gate) {
      const decision = await this.gate.check(sender.phone, webhook.Body);
      if (decision.kind === 'refuse') return { kind: 'refused', reason: decision.reason, ...(decision.reply ? { reply: decision.reply } : {}) };
    }
    const keys = [`sid:${webhook.MessageSid}`];
    if (delivery.idempotencyToken) keys.push(`token:${delivery.idempotencyToken}`);
    const body = webhook.Body.trim();
    const receivedAt = delivery.receivedAt ?? this.clock.now();
    const messageId = uuidv7(receivedAt);
    // Only where each attachment is: the turn downloads it (never this request: Twilio waits).
    const attachments = webhookAttachments(webhook);
    const location = webhookLocation(webhook);
    // The columns are timestamp(3) without time zone holding UTC, as Prisma writes them.
    const now = receivedAt.toISOString().replace('Z', '');
    // A new user's zone: their number's, when it keeps one clock; else a guess Herald asks about once (src/timezones).
    const zone = zoneOfPhone(sender.phone, this.defaultTimezone, receivedAt);
    const values = [
      messageId,
      now,
      keys,
      uuidv7(receivedAt),
      sender.phone,
      zone.timezone,
      sender.channel,
      body,
      webhook.MessageSid,
      estimateTokens(body),
      webhook.NumMedia,
      webhook.To,
      webhook.OptOutType ?? null,
      webhook.OriginalRepliedMessageSid ?? null,
      delivery.traceContext ?? null,
      location ? JSON.stringify(location) : null,
      attachments.map(() => uuidv7(receivedAt)),
      attachments.map((attachment) => attachment.url),
      attachments.map((attachment) => attachment.contentType),
      webhook.ButtonPayload ?? null,
      zone.source,
    ];
    try {
      return await this.record(values, messageId, !delivery.deferTurnUntil);
    } catch (error) {
      if (isUniqueViolation(error)) return { kind: 'duplicate' };
      // The message, not the job, is what must not be lost (Twilio does not retry messaging
      // webhooks by default): store it without its job; recovery schedules pending messages.
      this.logger?.error({ messageId, error: error instanceof Error ? error.message : String(error) }, 'could not enqueue the turn job; storing the message for recovery');
      return this.record(values, messageId, false);
    }
  }

  private async record(values: unknown[], messageId: string, withJob: boolean): Promise<InboundOutcome> {
    const text = withJob ? RECORD_DELIVERY_AND_JOB : RECORD_DELIVERY_ONLY;
    const { rows } = await this.pool.query<{ fresh: boolean; userId: string | null; jobs: number }>({ name: preparedName(text), text, values });
    const userId = rows[0]?.userId;
    if (!rows[0]?.fresh || !userId) return { kind: 'duplicate' };
    if (withJob && rows[0].jobs === 0) this.logger?.warn({ messageId }, 'turn queue missing: message stored for start-up recovery');
    return { kind: 'accepted', userId, messageId };
  }
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505';
}
