import type { PrismaClient } from '../db/prisma-types.js';
import type { ContentApi, ContentDefinition } from './content-api.js';

/** A content Herald needs, named by its shape ("confirm-v1", "list-v1-4"): its texts are variables. */
export interface ContentShape {
  name: string;
  definition: ContentDefinition;
}

/**
 * The contents Herald sends buttons with, made through the Content API once per shape and
 * kept by SID: in memory, and in Postgres (`ContentShape`) so other instances and restarts
 * reuse them. Two instances making the same shape at once keep whichever was stored first
 * (the other content is merely unused). A failed creation is not remembered: the next
 * question tries again.
 */
export class ContentShapes {
  private readonly known = new Map<string, Promise<string>>();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly api: ContentApi,
  ) {}

  /** The shape's content SID, made on first use. Rejects when the Content API fails. */
  sidFor(shape: ContentShape): Promise<string> {
    let sid = this.known.get(shape.name);
    if (!sid) {
      sid = this.load(shape);
      this.known.set(shape.name, sid);
      sid.catch(() => this.known.delete(shape.name));
    }
    return sid;
  }

  /**
   * Forgets a content Twilio refused (deleted from the account, say): in memory and in
   * Postgres, so the next question makes the shape again. Never throws.
   */
  async forget(contentSid: string): Promise<void> {
    for (const [name, sid] of this.known) if ((await sid.catch(() => undefined)) === contentSid) this.known.delete(name);
    await this.prisma.contentShape.deleteMany({ where: { contentSid } }).catch(() => undefined);
  }

  private async load(shape: ContentShape): Promise<string> {
    const stored = await this.prisma.contentShape.findUnique({ where: { shape: shape.name } });
    if (stored) return stored.contentSid;
    const contentSid = await this.api.create(shape.definition);
    await this.prisma.contentShape.createMany({ data: [{ shape: shape.name, contentSid }], skipDuplicates: true });
    const kept = await this.prisma.contentShape.findUniqueOrThrow({ where: { shape: shape.name } });
    return kept.contentSid;
  }
}
