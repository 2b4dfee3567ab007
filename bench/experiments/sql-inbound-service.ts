/**
 * EXPERIMENT (benchmark only; not used by Herald). A what-if for the webhook path's
 * transaction: the same work as src/conversation/inbound-service.ts (de-duplication keys,
 * user upsert, pending message, turn job, all in one transaction) in four round trips on
 * one pg connection instead of nine Prisma statements:
 *
 *   BEGIN
 *   one statement: insert the keys (already pointing at the message), upsert the user and
 *                  insert the message, the last two only when every key was new
 *   pg-boss send of the turn job, through the same connection (pg-boss's own SQL)
 *   COMMIT        (ROLLBACK instead when a key existed: a duplicate delivery)
 *
 * Semantics kept: concurrent deliveries of one message serialise on the keys' unique index
 * and the later one sees the conflict; a duplicate stores nothing; the user row gets the
 * same create/update fields as UserService.recordContact; the message id is a UUIDv7 as
 * Prisma's @default(uuid(7)) makes. Dropped: the SAVEPOINT around the enqueue (a missing
 * queue would be a start-up error here, not a per-request case).
 *
 * Run by bench/targets/herald-sql.ts; `BENCH_WEBHOOK_TARGETS=herald,herald-sql,ceiling`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { parseTwilioAddress, timezoneForPhone } from '../../src/channels/phone-number.js';
import type { InboundDelivery, InboundOutcome } from '../../src/conversation/inbound-service.js';
import type { JobQueue } from '../../src/queue/job-queue.js';
import type { Clock } from '../../src/shared/clock.js';
import { estimateTokens } from '../../src/shared/tokens.js';
import { TURN_QUEUE } from '../../src/turns/turn-scheduler.js';

const RECORD_INBOUND = `
WITH keys AS (
  INSERT INTO "InboundDedupe" ("key", "messageId", "receivedAt")
  SELECT key, $1::uuid, $2::timestamp FROM unnest($3::text[]) AS key
  ON CONFLICT DO NOTHING
  RETURNING "key"
), fresh AS (
  SELECT count(*) = cardinality($3::text[]) AS ok FROM keys
), contact AS (
  INSERT INTO "User" ("id", "phone", "timezone", "preferredChannel", "lastWhatsappInboundAt", "createdAt", "updatedAt")
  SELECT $4::uuid, $5, $6, $7::"Channel", CASE WHEN $7 = 'whatsapp' THEN $2::timestamp END, $2::timestamp, $2::timestamp
  FROM fresh WHERE ok
  ON CONFLICT ("phone") DO UPDATE SET
    "preferredChannel" = EXCLUDED."preferredChannel",
    "lastWhatsappInboundAt" = COALESCE(EXCLUDED."lastWhatsappInboundAt", "User"."lastWhatsappInboundAt"),
    "whatsappUnreachableAt" = CASE WHEN EXCLUDED."preferredChannel" = 'whatsapp' THEN NULL ELSE "User"."whatsappUnreachableAt" END,
    "smsUnreachableAt" = CASE WHEN EXCLUDED."preferredChannel" = 'sms' THEN NULL ELSE "User"."smsUnreachableAt" END,
    "updatedAt" = EXCLUDED."updatedAt"
  RETURNING "id"
), message AS (
  INSERT INTO "Message" ("id", "userId", "role", "content", "channel", "twilioSid", "tokenCount", "numMedia", "heraldAddress", "optOutType", "inboundStatus", "createdAt")
  SELECT $1::uuid, contact."id", 'user'::"MessageRole", $8, $7::"Channel", $9, $10, $11, $12, $13, 'pending'::"InboundStatus", $2::timestamp FROM contact
  RETURNING "userId"
)
SELECT (SELECT ok FROM fresh) AS fresh, (SELECT "userId" FROM message) AS "userId"`;

export class SqlInboundService {
  constructor(
    private readonly pool: pg.Pool,
    private readonly queue: JobQueue,
    private readonly clock: Clock,
    private readonly defaultTimezone: string,
    /**
     * Use named (server-side prepared) statements, so Postgres parses and plans each
     * statement once per connection instead of on every request.
     */
    private readonly prepared = false,
  ) {}

  async receive(delivery: InboundDelivery): Promise<InboundOutcome> {
    const { webhook } = delivery;
    const sender = parseTwilioAddress(webhook.From);
    if (!sender) return { kind: 'rejected', reason: 'From is not a phone number Herald can answer' };
    const keys = [`sid:${webhook.MessageSid}`];
    if (delivery.idempotencyToken) keys.push(`token:${delivery.idempotencyToken}`);
    const body = webhook.Body.trim();
    const messageId = uuidv7();
    // Herald's columns are timestamp(3) without time zone, holding UTC (as Prisma writes them).
    const now = this.clock.now().toISOString().replace('Z', '');

    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ fresh: boolean; userId: string | null }>({
        ...(this.prepared ? { name: 'herald_record_inbound' } : {}),
        text: RECORD_INBOUND,
        values: [
          messageId,
          now,
          keys,
          uuidv7(),
          sender.phone,
          timezoneForPhone(sender.phone, this.defaultTimezone),
          sender.channel,
          body,
          webhook.MessageSid,
          estimateTokens(body),
          webhook.NumMedia,
          webhook.To,
          webhook.OptOutType ?? null,
        ],
      });
      const userId = rows[0]?.userId;
      if (!rows[0]?.fresh || !userId) {
        await client.query('ROLLBACK');
        return { kind: 'duplicate' };
      }
      const executeSql = (text: string, values: unknown[]) =>
        client.query({ ...(this.prepared ? { name: `pgboss_${statementName(text)}` } : {}), text, values });
      const jobId = await this.queue.enqueue(TURN_QUEUE, { userId }, { transaction: { executeSql } });
      if (jobId === null) throw new Error(`the ${TURN_QUEUE} queue does not exist; start the queue before taking webhooks`);
      await client.query('COMMIT');
      return { kind: 'accepted', userId, messageId };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      if ((error as { code?: string }).code === '23505') return { kind: 'duplicate' };
      throw error;
    } finally {
      client.release();
    }
  }
}

const statementNames = new Map<string, string>();

/** A stable name for a statement's text (pg prepares a named statement once per connection). */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = createHash('sha1').update(text).digest('hex').slice(0, 16);
    statementNames.set(text, name);
  }
  return name;
}

/** A UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then random bits. */
function uuidv7(): string {
  const bytes = randomBytes(16);
  const milliseconds = Date.now();
  bytes.writeUIntBE(milliseconds, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
