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

  async remember(userId: string, fact: { category: string; subject?: string | undefined; content: string }): Promise<{ effect: FactEffect; fact: FactView }> {
    const content = fact.content.trim();
    const subject = fact.subject ? normalizeFact(fact.subject).slice(0, 80) || undefined : undefined;
    const existing = await this.prisma.fact.findMany({ where: { userId } });
    const normalized = normalizeFact(content);
    const repeat = existing.find((candidate) => normalizeFact(candidate.content) === normalized);
    if (repeat) return { effect: 'unchanged', fact: toView(repeat) };
    const sameSubject = subject ? existing.find((candidate) => candidate.subject === subject) : undefined;
    const now = this.clock.now();
    if (sameSubject) {
      const updated = await this.prisma.fact.update({ where: { id: sameSubject.id }, data: { content, category: fact.category, updatedAt: now } });
      return { effect: 'updated', fact: toView(updated) };
    }
    try {
      const created = await this.prisma.fact.create({
        data: { userId, category: fact.category, subject: subject ?? null, content, createdAt: now, updatedAt: now },
      });
      return { effect: 'created', fact: toView(created) };
    } catch (error) {
      // The same subject written concurrently: the unique (userId, subject) index decides.
      if ((error as { code?: string }).code === 'P2002' && subject) {
        const updated = await this.prisma.fact.update({ where: { userId_subject: { userId, subject } }, data: { content, category: fact.category, updatedAt: now } });
        return { effect: 'updated', fact: toView(updated) };
      }
      throw error;
    }
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
