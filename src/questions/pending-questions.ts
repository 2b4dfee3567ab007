import { createHash } from 'node:crypto';
import type { Channel, PendingQuestion, Prisma } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { QuestionAsk } from './pending-question.js';

/** What became of a question, for metrics (src/observability): never its text or its user. */
export type QuestionOutcome = 'asked' | 'answered' | 'failed' | 'declined' | 'dropped' | 'expired';

export type { PendingQuestion } from '../generated/prisma/client.js';

/** How a claim on a question went. */
export type ClaimOutcome =
  /** This answer took it: act on it, then {@link PendingQuestions.finish}. */
  | 'claimed'
  /** This very message had taken it before a crash: act on it again (the same answer). */
  | 'resumed'
  /** Someone else's answer took it, or it expired or was cancelled meanwhile. */
  | 'taken';

/** A question as the next message reads it: flagged when this very read found it past its lifetime. */
export type LatestQuestion = PendingQuestion & { expiredNow: boolean };

const SHORT_ID_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/**
 * The questions Herald is waiting on (confirmations, choices, clarifications): one concept,
 * one lifetime (CONFIRMATION_TTL_MS), one atomic claim. A turn's reply stages its questions
 * in the turn's commit; an older question still pending is cancelled then (only the latest
 * turn's questions stand). The next message may answer one: answering claims it with a
 * compare-and-set (`status = 'pending'` → `executing`), so two answers at once act once.
 */
export class PendingQuestions {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    readonly ttlMs: number,
    /** Told what became of each question (metrics); absent: nobody. */
    private readonly observe: (kind: PendingQuestion['kind'], outcome: QuestionOutcome) => void = () => {},
  ) {}

  /**
   * Stores what a turn asked, in the caller's transaction; questions asked before are
   * cancelled. `ttlMs` overrides the lifetime (an offer Herald makes on its own waits longer
   * than 5 minutes); `shortIds`, when given, are the ids the reply's buttons already carry (one
   * per ask, from {@link newShortId}).
   */
  async stage(
    transaction: Prisma.TransactionClient,
    asked: { userId: string; turnId?: string | undefined; channel: Channel },
    asks: QuestionAsk[],
    options: { ttlMs?: number | undefined; shortIds?: string[] | undefined } = {},
  ): Promise<string[]> {
    const ttlMs = options.ttlMs ?? this.ttlMs;
    const givenShortIds = options.shortIds ?? [];
    const now = this.clock.now();
    await transaction.pendingQuestion.updateMany({ where: { userId: asked.userId, status: 'pending' }, data: { status: 'cancelled', resolvedAt: now } });
    const shortIds: string[] = [];
    for (const [index, ask] of asks.entries()) {
      const shortId = givenShortIds[index] ?? this.shortId();
      shortIds.push(shortId);
      await transaction.pendingQuestion.create({
        data: {
          shortId,
          userId: asked.userId,
          turnId: asked.turnId ?? null,
          kind: ask.kind,
          question: ask.question,
          payload: ask.payload as Prisma.InputJsonValue,
          channel: asked.channel,
          expiresAt: new Date(now.getTime() + ttlMs),
          createdAt: now,
        },
      });
      this.observe(ask.kind, 'asked');
    }
    return shortIds;
  }

  /**
   * The questions of the latest turn that asked any, newest first: what the user's next
   * message may answer (whatever their status; a pending one past its lifetime is marked expired).
   */
  async latest(userId: string): Promise<LatestQuestion[]> {
    const rows = await this.prisma.pendingQuestion.findMany({ where: { userId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 4 });
    const first = rows[0];
    if (!first) return [];
    const group = rows.filter((row) => row.turnId === first.turnId && row.createdAt.getTime() === first.createdAt.getTime());
    const now = this.clock.now();
    const latest: LatestQuestion[] = [];
    for (const row of group) {
      if (row.status === 'pending' && row.expiresAt.getTime() <= now.getTime()) {
        const { count } = await this.prisma.pendingQuestion.updateMany({ where: { id: row.id, status: 'pending' }, data: { status: 'expired', resolvedAt: now } });
        if (count === 1) this.observe(row.kind, 'expired');
        latest.push({ ...row, status: 'expired', resolvedAt: now, expiredNow: count === 1 });
      } else latest.push({ ...row, expiredNow: false });
    }
    return latest;
  }

  /** A question by its short id (a button's payload), if it is this user's. */
  async byShortId(userId: string, shortId: string): Promise<PendingQuestion | undefined> {
    return (await this.prisma.pendingQuestion.findFirst({ where: { userId, shortId } })) ?? undefined;
  }

  /**
   * Claims a question for an answer, atomically: only one answer can move it from pending
   * (within its lifetime) to executing. `messageIds` are the messages answering; when one
   * of them claimed it already (its turn was cut short by a crash and runs again), the
   * claim is resumed rather than refused.
   */
  async claim(id: string, messageIds: string[], answer?: unknown): Promise<ClaimOutcome> {
    const now = this.clock.now();
    const claimed = await this.prisma.pendingQuestion.updateMany({
      where: { id, status: 'pending', expiresAt: { gt: now } },
      data: { status: 'executing', resolvedAt: now, claimedBy: messageIds[messageIds.length - 1] ?? null, ...(answer !== undefined ? { answer: answer as Prisma.InputJsonValue } : {}) },
    });
    if (claimed.count === 1) return 'claimed';
    const row = await this.prisma.pendingQuestion.findUnique({ where: { id }, select: { status: true, claimedBy: true } });
    return row?.status === 'executing' && row.claimedBy !== null && messageIds.includes(row.claimedBy) ? 'resumed' : 'taken';
  }

  /** A question's status now (after a claim lost to another answer). */
  async statusOf(id: string): Promise<PendingQuestion['status'] | undefined> {
    return (await this.prisma.pendingQuestion.findUnique({ where: { id }, select: { status: true } }))?.status;
  }

  /**
   * Records what answering did; the question is done. (updateMany: the action may have erased
   * it with the user.) `succeeded` says whether all it ran went well.
   */
  async finish(question: Pick<PendingQuestion, 'id' | 'kind'>, outcome: unknown, succeeded: boolean, executor: Prisma.TransactionClient | PrismaClient = this.prisma): Promise<void> {
    await executor.pendingQuestion.updateMany({ where: { id: question.id }, data: { status: 'done', outcome: outcome as Prisma.InputJsonValue } });
    this.observe(question.kind, succeeded ? 'answered' : 'failed');
  }

  /**
   * Drops a question still pending: the user said NO (`declined`) or moved on (`dropped`).
   * False when it was no longer pending (another answer claimed it first, or it expired).
   */
  async cancel(question: Pick<PendingQuestion, 'id' | 'kind'>, reason: 'declined' | 'dropped'): Promise<boolean> {
    const { count } = await this.prisma.pendingQuestion.updateMany({ where: { id: question.id, status: 'pending' }, data: { status: 'cancelled', resolvedAt: this.clock.now() } });
    if (count === 1) this.observe(question.kind, reason);
    return count === 1;
  }

  /** Drops every question of the user still pending (they opted out). */
  async cancelAll(userId: string, executor: Prisma.TransactionClient | PrismaClient = this.prisma): Promise<number> {
    const { count } = await executor.pendingQuestion.updateMany({ where: { userId, status: 'pending' }, data: { status: 'cancelled', resolvedAt: this.clock.now() } });
    return count;
  }

  /** Keeps a question pending with a new payload (a choice asked again once). */
  async update(id: string, payload: unknown): Promise<void> {
    await this.prisma.pendingQuestion.updateMany({ where: { id, status: 'pending' }, data: { payload: payload as Prisma.InputJsonValue } });
  }

  /** A short id for a question about to be asked, so the buttons that answer it can carry it before it is stored. */
  newShortId(): string {
    return this.shortId();
  }

  /** Eight characters, from the injected id generator (predictable in tests, random in production). */
  private shortId(): string {
    const digest = createHash('sha256').update(this.ids.next('question')).digest();
    let id = '';
    for (let index = 0; index < 8; index += 1) id += SHORT_ID_ALPHABET[digest[index]! % SHORT_ID_ALPHABET.length];
    return id;
  }
}
