import type { Fact } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type pg from 'pg';
import type { Clock } from '../shared/clock.js';
import { preparedName, uuidv7 } from '../shared/sql.js';
import type { EmbeddingCostSink } from '../search/embedding-indexer.js';
import type { SimilarFacts } from '../search/similar-facts.js';

const FACT_COLUMNS = 'id, category, subject, content, learned';
// Serialises one user's memory writes, so concurrent repeats still end up as one row.
const LOCK_USER_FACTS = 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))';
const USER_FACTS = `SELECT ${FACT_COLUMNS} FROM "Fact" WHERE "userId" = $1::uuid`;
const SET_SUBJECT = `UPDATE "Fact" SET subject = $2 WHERE id = $1::uuid RETURNING ${FACT_COLUMNS}`;
const REPLACE_FACT = `UPDATE "Fact" SET content = $2, category = $3, "updatedAt" = $4::timestamp, learned = $5, "sourceMessageId" = $6::uuid WHERE id = $1::uuid RETURNING ${FACT_COLUMNS}`;
// The user said it themselves: a fact Herald had only learned becomes one they asked for.
const MAKE_EXPLICIT = `UPDATE "Fact" SET learned = false, "sourceMessageId" = NULL WHERE id = $1::uuid RETURNING ${FACT_COLUMNS}`;
const INSERT_FACT = `INSERT INTO "Fact" (id, "userId", category, subject, content, "createdAt", "updatedAt", learned, "sourceMessageId")
  VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6::timestamp, $6::timestamp, $7, $8::uuid) RETURNING ${FACT_COLUMNS}`;

/** Fact categories, so memory stays organised and searchable. */
export const factCategories = ['personal', 'preferences', 'relationships', 'work', 'health', 'routine', 'other'] as const;

/** What a write actually did: the verifier checks agents' claims against this. */
export type FactEffect = 'created' | 'updated' | 'unchanged' | 'deleted';

/** A fact as tools return it. */
export interface FactView {
  id: string;
  category: string;
  subject: string | null;
  content: string;
  /** Learned in the background from the user's words (src/learning), not saved on request. */
  learned: boolean;
}

/** Where a fact came from: saved on request (the default), or learned from one of the user's messages. */
export interface FactOrigin {
  learned: boolean;
  sourceMessageId?: string | undefined;
}

const toView = (fact: Fact): FactView => ({ id: fact.id, category: fact.category, subject: fact.subject, content: fact.content, learned: fact.learned });

/** Lower-cased, punctuation-free, single-spaced: "Is  vegetarian." equals "is vegetarian". */
export function normalizeFact(content: string): string {
  return content
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A user's long-term memory. Writes de-duplicate: a fact that repeats a stored one
 * (same words, ignoring case and punctuation) changes nothing, and a fact about a subject
 * already known ("diet", "sister") replaces the old one rather than contradicting it.
 * Every method is scoped to one user.
 */
export class FactService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    /** Finds a saved fact a new one repeats in other words (src/search); without it only exact repeats and subjects count. */
    private readonly similar?: SimilarFacts | undefined,
  ) {}

  async list(userId: string, category?: string): Promise<FactView[]> {
    const facts = await this.prisma.fact.findMany({
      where: { userId, ...(category ? { category } : {}) },
      orderBy: [{ category: 'asc' }, { createdAt: 'asc' }],
    });
    return facts.map(toView);
  }

  /**
   * Saves a fact: 'unchanged' when it repeats a saved one, 'updated' when it replaces the
   * fact about the same subject, else 'created'. Writes for one user are serialized by a
   * transaction-scoped advisory lock, so concurrent repeats (with or without a subject)
   * still end up as one row, reported once as created.
   */
  async remember(
    userId: string,
    fact: { category: string; subject?: string | undefined; content: string },
    onCost?: EmbeddingCostSink,
    origin: FactOrigin = { learned: false },
  ): Promise<{ effect: FactEffect; fact: FactView }> {
    try {
      return await this.rememberLocked(userId, fact, onCost, origin);
    } catch (error) {
      // A writer that bypassed the lock took the subject first: the unique (userId, subject)
      // index refused ours. Once more, now that its row is visible: it becomes an update.
      if ((error as { code?: string }).code === '23505') return this.rememberLocked(userId, fact, onCost, origin);
      throw error;
    }
  }

  /**
   * One short transaction on a pooled connection (the lock, one read, one write, in plain
   * prepared SQL: remember_fact sits on the reply's critical path, and each statement
   * through Prisma costs several times more).
   */
  private async rememberLocked(
    userId: string,
    fact: { category: string; subject?: string | undefined; content: string },
    onCost: EmbeddingCostSink | undefined,
    origin: FactOrigin,
  ): Promise<{ effect: FactEffect; fact: FactView }> {
    const content = fact.content.trim();
    const subject = fact.subject ? normalizeFact(fact.subject).slice(0, 80) || undefined : undefined;
    const normalized = normalizeFact(content);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query({ name: preparedName(LOCK_USER_FACTS), text: LOCK_USER_FACTS, values: [`fact:${userId}`] });
      const { rows: existing } = await client.query<FactView>({ name: preparedName(USER_FACTS), text: USER_FACTS, values: [userId] });
      const repeat = existing.find((candidate) => normalizeFact(candidate.content) === normalized);
      let sameSubject = subject ? existing.find((candidate) => candidate.subject === subject) : undefined;
      if (!repeat && !sameSubject && this.similar) {
        // The same thing in other words ("Lives in Tel Aviv", "Home is in Tel Aviv") updates that fact.
        const similarId = await this.similar.find(client, userId, content, onCost);
        sameSubject = existing.find((candidate) => candidate.id === similarId && (!subject || candidate.subject === null || candidate.subject === subject));
      }
      const now = this.clock.now().toISOString().replace('Z', '');
      let result: { effect: FactEffect; fact: FactView };
      if (repeat) {
        // Nothing new to know. A repeat saved without a subject takes this one (when no other
        // fact has it), so that a later fact about the subject replaces it instead of
        // contradicting it: "Is vegetarian", then "diet: eats fish now".
        if (subject && repeat.subject === null && !sameSubject) {
          const { rows } = await client.query<FactView>({ name: preparedName(SET_SUBJECT), text: SET_SUBJECT, values: [repeat.id, subject] });
          result = { effect: 'unchanged', fact: rows[0]! };
        } else {
          result = { effect: 'unchanged', fact: repeat };
        }
        if (!origin.learned && result.fact.learned) {
          const { rows } = await client.query<FactView>({ name: preparedName(MAKE_EXPLICIT), text: MAKE_EXPLICIT, values: [repeat.id] });
          result = { effect: 'unchanged', fact: rows[0]! };
        }
      } else if (sameSubject && origin.learned && !sameSubject.learned) {
        // A fact only guessed from conversation never overwrites one the user asked Herald to keep.
        result = { effect: 'unchanged', fact: sameSubject };
      } else if (sameSubject) {
        const { rows } = await client.query<FactView>({ name: preparedName(REPLACE_FACT), text: REPLACE_FACT, values: [sameSubject.id, content, fact.category, now, origin.learned, origin.learned ? (origin.sourceMessageId ?? null) : null] });
        result = { effect: 'updated', fact: rows[0]! };
      } else {
        const { rows } = await client.query<FactView>({
          name: preparedName(INSERT_FACT),
          text: INSERT_FACT,
          values: [uuidv7(this.clock.now()), userId, fact.category, subject ?? null, content, now, origin.learned, origin.learned ? (origin.sourceMessageId ?? null) : null],
        });
        result = { effect: 'created', fact: rows[0]! };
      }
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /** Changes a fact; undefined when the user has no such fact. */
  async update(userId: string, factId: string, changes: { content?: string | undefined; category?: string | undefined }): Promise<{ effect: FactEffect; fact: FactView } | undefined> {
    const existing = await this.prisma.fact.findFirst({ where: { id: factId, userId } });
    if (!existing) return undefined;
    const content = changes.content?.trim() ?? existing.content;
    const category = changes.category ?? existing.category;
    if (content === existing.content && category === existing.category) return { effect: 'unchanged', fact: toView(existing) };
    // A learned fact the user corrected is theirs now: no longer learned, nor tied to the message it came from.
    const updated = await this.prisma.fact.update({ where: { id: existing.id }, data: { content, category, learned: false, sourceMessageId: null, updatedAt: this.clock.now() } });
    return { effect: 'updated', fact: toView(updated) };
  }

  /** The facts written (saved, learned or changed) since `since`, newest first. */
  async writtenSince(userId: string, since: Date): Promise<FactView[]> {
    const facts = await this.prisma.fact.findMany({ where: { userId, updatedAt: { gte: since } }, orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }] });
    return facts.map(toView);
  }

  /** Deletes these of the user's facts (others' ids are ignored); returns those deleted. */
  async removeMany(userId: string, factIds: string[]): Promise<FactView[]> {
    const facts = await this.prisma.fact.findMany({ where: { userId, id: { in: factIds } } });
    await this.prisma.fact.deleteMany({ where: { userId, id: { in: facts.map((fact) => fact.id) } } });
    return facts.map(toView);
  }

  /** Deletes a fact; undefined when the user has no such fact. */
  async remove(userId: string, factId: string): Promise<{ effect: FactEffect; fact: FactView } | undefined> {
    const existing = await this.prisma.fact.findFirst({ where: { id: factId, userId } });
    if (!existing) return undefined;
    await this.prisma.fact.delete({ where: { id: existing.id } });
    return { effect: 'deleted', fact: toView(existing) };
  }
}
