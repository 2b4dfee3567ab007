import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import { storedPageSchema, type StoredPage } from './page-spec.js';

/** A stored page, found by its token's hash. */
export interface PageRecord {
  id: string;
  userId: string;
  title: string;
  spec: StoredPage;
  csrfToken: string;
  revision: number;
  createdAt: Date;
  expiresAt: Date;
}

/** A page to store. */
export interface NewPage {
  userId: string;
  tokenHash: string;
  spec: StoredPage;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}

/** Pages in Postgres. Only hashes of tokens go in or come out. */
export class PageStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly logger: Logger,
  ) {}

  async create(page: NewPage): Promise<{ id: string }> {
    return this.prisma.page.create({
      data: {
        userId: page.userId,
        tokenHash: page.tokenHash,
        title: page.spec.title,
        spec: page.spec,
        csrfToken: page.csrfToken,
        createdAt: page.createdAt,
        expiresAt: page.expiresAt,
      },
      select: { id: true },
    });
  }

  /** The page with this token hash; a row whose spec no longer parses counts as absent (and is logged). */
  async findByTokenHash(tokenHash: string): Promise<PageRecord | undefined> {
    const row = await this.prisma.page.findUnique({ where: { tokenHash } });
    if (!row) return undefined;
    const spec = storedPageSchema.safeParse(row.spec);
    if (!spec.success) {
      this.logger.warn({ pageId: row.id, issues: spec.error.issues.length }, 'stored page spec does not parse; treated as not found');
      return undefined;
    }
    return { id: row.id, userId: row.userId, title: row.title, spec: spec.data, csrfToken: row.csrfToken, revision: row.revision, createdAt: row.createdAt, expiresAt: row.expiresAt };
  }

  /**
   * Moves the page from `expected` to the next revision; false when someone else did first
   * (a replayed or stale submission). A compare-and-set, so two racing copies of one form
   * cannot both pass.
   */
  async advanceRevision(pageId: string, expected: number): Promise<boolean> {
    const { count } = await this.prisma.page.updateMany({ where: { id: pageId, revision: expected }, data: { revision: { increment: 1 } } });
    return count === 1;
  }

  /** The page's current revision; undefined when it is gone. */
  async revision(pageId: string): Promise<number | undefined> {
    return (await this.prisma.page.findUnique({ where: { id: pageId }, select: { revision: true } }))?.revision;
  }

  /** The user's pages, newest first (titles and dates only). */
  async listForUser(userId: string): Promise<Array<{ id: string; title: string; createdAt: Date; expiresAt: Date }>> {
    return this.prisma.page.findMany({ where: { userId }, orderBy: { createdAt: 'desc' }, select: { id: true, title: true, createdAt: true, expiresAt: true } });
  }

  /** Deletes these pages of this user; returns how many went. */
  async delete(userId: string, pageIds: string[]): Promise<number> {
    const { count } = await this.prisma.page.deleteMany({ where: { userId, id: { in: pageIds } } });
    return count;
  }

  /** Forgets the user's pages that expired before `before` (an expired page says so for a while, then is gone). */
  async deleteExpired(userId: string, before: Date): Promise<number> {
    const { count } = await this.prisma.page.deleteMany({ where: { userId, expiresAt: { lt: before } } });
    return count;
  }
}
