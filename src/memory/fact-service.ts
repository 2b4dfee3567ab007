import type { Fact } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Clock } from '../shared/clock.js';

/** Fact categories, so memory stays organised and searchable. */
export const factCategories = ['personal', 'preferences', 'relationships', 'work', 'health', 'routine', 'other'] as const;
export type FactCategory = (typeof factCategories)[number];

/** What a write actually did: the verifier checks agents' claims against this. */
export type FactEffect = 'created' | 'updated' | 'unchanged' | 'deleted';

/** A fact as tools return it. */
export interface FactView {
  id: string;
  category: string;
  subject: string | null;
  content: string;
}

const toView = (fact: Fact): FactView => ({ id: fact.id, category: fact.category, subject: fact.subject, content: fact.content });

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
    private readonly clock: Clock,
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
  async remember(userId: string, fact: { category: string; subject?: string | undefined; content: string }): Promise<{ effect: FactEffect; fact: FactView }> {
    try {
      return await this.rememberLocked(userId, fact);
    } catch (error) {
      // A writer that bypassed the lock took the subject first: the unique (userId, subject)
      // index refused ours. Once more, now that its row is visible: it becomes an update.
      if ((error as { code?: string }).code === 'P2002') return this.rememberLocked(userId, fact);
      throw error;
    }
  }

  private rememberLocked(userId: string, fact: { category: string; subject?: string | undefined; content: string }): Promise<{ effect: FactEffect; fact: FactView }> {
    const content = fact.content.trim();
    const subject = fact.subject ? normalizeFact(fact.subject).slice(0, 80) || undefined : undefined;
    const normalized = normalizeFact(content);
    return this.prisma.$transaction(async (transaction) => {
      await transaction.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`fact:${userId}`}, 0))`;
      const existing = await transaction.fact.findMany({ where: { userId } });
      const repeat = existing.find((candidate) => normalizeFact(candidate.content) === normalized);
      const sameSubject = subject ? existing.find((candidate) => candidate.subject === subject) : undefined;
      if (repeat) {
        // Nothing new to know. A repeat saved without a subject takes this one (when no other
        // fact has it), so that a later fact about the subject replaces it instead of
        // contradicting it: "Is vegetarian", then "diet: eats fish now".
        if (subject && repeat.subject === null && !sameSubject) {
          const keyed = await transaction.fact.update({ where: { id: repeat.id }, data: { subject } });
          return { effect: 'unchanged' as const, fact: toView(keyed) };
        }
        return { effect: 'unchanged' as const, fact: toView(repeat) };
      }
      const now = this.clock.now();
      if (sameSubject) {
        const updated = await transaction.fact.update({ where: { id: sameSubject.id }, data: { content, category: fact.category, updatedAt: now } });
        return { effect: 'updated' as const, fact: toView(updated) };
      }
      const created = await transaction.fact.create({
        data: { userId, category: fact.category, subject: subject ?? null, content, createdAt: now, updatedAt: now },
      });
      return { effect: 'created' as const, fact: toView(created) };
    });
  }

  /** Changes a fact; undefined when the user has no such fact. */
  async update(userId: string, factId: string, changes: { content?: string | undefined; category?: string | undefined }): Promise<{ effect: FactEffect; fact: FactView } | undefined> {
    const existing = await this.prisma.fact.findFirst({ where: { id: factId, userId } });
    if (!existing) return undefined;
    const content = changes.content?.trim() ?? existing.content;
    const category = changes.category ?? existing.category;
    if (content === existing.content && category === existing.category) return { effect: 'unchanged', fact: toView(existing) };
    const updated = await this.prisma.fact.update({ where: { id: existing.id }, data: { content, category, updatedAt: this.clock.now() } });
    return { effect: 'updated', fact: toView(updated) };
  }

  /** Deletes a fact; undefined when the user has no such fact. */
  async remove(userId: string, factId: string): Promise<{ effect: FactEffect; fact: FactView } | undefined> {
    const existing = await this.prisma.fact.findFirst({ where: { id: factId, userId } });
    if (!existing) return undefined;
    await this.prisma.fact.delete({ where: { id: existing.id } });
    return { effect: 'deleted', fact: toView(existing) };
  }
}
