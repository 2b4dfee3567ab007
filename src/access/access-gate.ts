import { createHmac } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import { preparedName, sqlTimestamp } from '../shared/sql.js';
import type { AccessService } from './access-service.js';
import { strangerReplies, strangerRepliesFor } from './access-replies.js';
import { joinCode } from './invite-code.js';
import { detectKeyword } from '../channels/keywords.js';

/** What the webhook does with a sender's message. */
export type AccessDecision =
  | { kind: 'serve' }
  /** Nothing is stored; `reply`, when set, is answered in the webhook's own TwiML (no user, no model). */
  | { kind: 'refuse'; reason: 'stranger' | 'busy' | 'joined' | 'join_failed' | 'join_locked'; reply?: string };

/** A stranger is told at most once in this long. */
const NOTICE_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** Failed JOINs a number may make per day; after that even a right code is refused (no guessing codes). */
export const MAX_FAILED_JOINS = 5;

const LOOKUP = `SELECT EXISTS (SELECT 1 FROM "User" WHERE "phone" = $1) AS "known",
       EXISTS (SELECT 1 FROM "AccessGrant" WHERE "phone" = $1 AND "revokedAt" IS NULL) AS "granted"`;

const RECENT_USERS = `SELECT count(*)::int AS "count" FROM "User" WHERE "createdAt" > $1::timestamp`;

/** Records a notice unless one went out within the interval; a row back means "say it now". */
const CLAIM_NOTICE = `
INSERT INTO "StrangerNotice" ("phoneHash", "kind", "lastNoticeAt") VALUES ($1, $2, $3::timestamp)
ON CONFLICT ("phoneHash") DO UPDATE SET "kind" = EXCLUDED."kind", "lastNoticeAt" = EXCLUDED."lastNoticeAt"
 WHERE "StrangerNotice"."lastNoticeAt" <= $4::timestamp
RETURNING 1`;

const FAILED_JOINS = `SELECT "failedJoins", "failedSince" FROM "StrangerNotice"
 WHERE "phoneHash" = $1 AND "failedSince" > $2::timestamp`;

/** Counts a failed JOIN; when the number was last told anything is the notice's business (CLAIM_NOTICE). */
const RECORD_FAILED_JOIN = `
INSERT INTO "StrangerNotice" ("phoneHash", "kind", "lastNoticeAt", "failedJoins", "failedSince") VALUES ($1, 'private', $2::timestamp, 1, $2::timestamp)
ON CONFLICT ("phoneHash") DO UPDATE SET
  "failedJoins" = CASE WHEN "StrangerNotice"."failedSince" > $3::timestamp THEN "StrangerNotice"."failedJoins" + 1 ELSE 1 END,
  "failedSince" = CASE WHEN "StrangerNotice"."failedSince" > $3::timestamp THEN "StrangerNotice"."failedSince" ELSE EXCLUDED."failedSince" END`;

/** Rows older than this say nothing any more. */
const FORGET_OLD = `DELETE FROM "StrangerNotice" WHERE "lastNoticeAt" < $1::timestamp AND ("failedSince" IS NULL OR "failedSince" < $1::timestamp)`;

/**
 * The door, checked by the webhook before anything is stored (ACCESS_MODE, OWNER_PHONES).
 *
 * - invite mode: owners and the invite list are served; `JOIN <code>` with a valid code
 *   joins the list (and is welcomed); anyone else gets at most one reply a day whatever they
 *   send: the private-assistant notice, or "that code didn't work".
 * - open mode: everyone is served, except that past NEW_USERS_PER_HOUR a new number is
 *   told (once a day) to come back later.
 *
 * A refused sender costs no model call and leaves no message, user or history: only a
 * keyed hash of their number and when they were last told (StrangerNotice), which is what
 * "at most once a day" needs.
 */
export class AccessGate {
  constructor(
    private readonly pool: pg.Pool,
    private readonly access: AccessService,
    private readonly clock: Clock,
    /** Keys the number's hash, so the table cannot be reversed by trying every number. */
    private readonly hashKey: Buffer,
    private readonly logger?: Logger,
  ) {}

  /** Decides for `phone` (E.164) writing `body`. */
  async check(phone: string, body: string): Promise<AccessDecision> {
    if (this.access.isOwner(phone)) return { kind: 'serve' };
    const { rows } = await this.pool.query<{ known: boolean; granted: boolean }>({ name: preparedName(LOOKUP), text: LOOKUP, values: [phone] });
    const { known, granted } = rows[0]!;
    if (this.access.settings.mode === 'open') {
      if (known || granted) return { kind: 'serve' };
      return this.admitNewcomer(phone, body);
    }
    const code = joinCode(body);
    // A JOIN from someone already in is not conversation (nor a code for the model to see).
    if (granted) return code === undefined ? { kind: 'serve' } : { kind: 'refuse', reason: 'joined', reply: strangerReplies.alreadyIn };
    if (code !== undefined) return this.join(phone, code);
    // STOP and the other opt-out words are answered by Twilio itself; a notice after them would be refused (21610) and rude.
    if (detectKeyword(body, { optedOut: false }) === 'stop') return { kind: 'refuse', reason: 'stranger' };
    return this.notice(phone, 'private', 'stranger', strangerRepliesFor(body).private);
  }

  /** Open mode: a new number, unless too many arrived this hour. */
  private async admitNewcomer(phone: string, body: string): Promise<AccessDecision> {
    const since = new Date(this.clock.now().getTime() - 60 * 60 * 1000);
    const { rows } = await this.pool.query<{ count: number }>({ name: preparedName(RECENT_USERS), text: RECENT_USERS, values: [sqlTimestamp(since)] });
    if ((rows[0]?.count ?? 0) < this.access.settings.newUsersPerHour) return { kind: 'serve' };
    this.logger?.warn({ limit: this.access.settings.newUsersPerHour }, 'new-user limit reached: a newcomer was turned away');
    if (detectKeyword(body, { optedOut: false }) === 'stop') return { kind: 'refuse', reason: 'busy' };
    return this.notice(phone, 'busy', 'busy', strangerRepliesFor(body).busy);
  }

  private async join(phone: string, code: string): Promise<AccessDecision> {
    const hash = this.hash(phone);
    const now = this.clock.now();
    const dayAgo = sqlTimestamp(new Date(now.getTime() - NOTICE_INTERVAL_MS));
    const { rows } = await this.pool.query<{ failedJoins: number }>({ name: preparedName(FAILED_JOINS), text: FAILED_JOINS, values: [hash, dayAgo] });
    if ((rows[0]?.failedJoins ?? 0) >= MAX_FAILED_JOINS) {
      this.logger?.warn('JOIN refused: too many failed attempts from this number today');
      return { kind: 'refuse', reason: 'join_locked' };
    }
    if (await this.access.redeem(phone, code)) {
      await this.pool.query('DELETE FROM "StrangerNotice" WHERE "phoneHash" = $1', [hash]);
      this.logger?.info('invite code redeemed: a new number joined');
      return { kind: 'refuse', reason: 'joined', reply: strangerReplies.joined };
    }
    // A stranger's failed JOIN is answered like anything else they send: at most once a day.
    const decision = await this.notice(phone, 'private', 'join_failed', strangerReplies.joinFailed);
    await this.pool.query({ name: preparedName(RECORD_FAILED_JOIN), text: RECORD_FAILED_JOIN, values: [hash, sqlTimestamp(now), dayAgo] });
    this.logger?.info({ replied: decision.kind === 'refuse' && decision.reply !== undefined }, 'JOIN with a code that does not work');
    return decision;
  }

  /** The reply, if this number was not told anything within a day; nothing otherwise. */
  private async notice(phone: string, kind: 'private' | 'busy', reason: 'stranger' | 'busy' | 'join_failed', reply: string): Promise<AccessDecision> {
    const now = this.clock.now();
    const dayAgo = sqlTimestamp(new Date(now.getTime() - NOTICE_INTERVAL_MS));
    const { rowCount } = await this.pool.query({ name: preparedName(CLAIM_NOTICE), text: CLAIM_NOTICE, values: [this.hash(phone), kind, sqlTimestamp(now), dayAgo] });
    if (!rowCount) return { kind: 'refuse', reason };
    await this.pool.query({ name: preparedName(FORGET_OLD), text: FORGET_OLD, values: [sqlTimestamp(new Date(now.getTime() - 2 * NOTICE_INTERVAL_MS))] });
    return { kind: 'refuse', reason, reply };
  }

  private hash(phone: string): string {
    return createHmac('sha256', this.hashKey).update(phone).digest('hex');
  }
}
