import type { Note } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import { lockUserRows } from '../db/user-lock.js';
import { embeddingCostSink, type EmbeddingIndexer } from '../search/embedding-indexer.js';
import type { Clock } from '../shared/clock.js';
import type { ToolContext } from '../tools/tool.js';
import { detectLanguage } from './note-language.js';

/** The longest note body (characters): a long article fits, a book does not. */
export const NOTE_MAX_CHARACTERS = 20_000;
/** A title longer than this is cut (a title is a line, not a paragraph). */
const NOTE_TITLE_MAX = 120;
/** Tags per note, and characters per tag. */
export const NOTE_MAX_TAGS = 12;
const NOTE_TAG_MAX = 40;

/** A note as tools see it. */
export interface NoteView {
  id: string;
  title: string;
  body: string;
  tags: string[];
  language: string;
  createdAt: string;
  updatedAt: string;
}

/** A note in a listing: no body, its length instead. */
export interface NoteSummary {
  id: string;
  title: string;
  tags: string[];
  characters: number;
  updatedAt: string;
}

/** An expected failure, worded for the model to pass on. */
export type NoteResult<Value> = { ok: true; value: Value } | { ok: false; error: string };

const toView = (note: Note): NoteView => ({
  id: note.id,
  title: note.title,
  body: note.body,
  tags: note.tags,
  language: note.language,
  createdAt: note.createdAt.toISOString(),
  updatedAt: note.updatedAt.toISOString(),
});

/** Tags lower-cased, trimmed, without "#", repeats or blanks. */
function normalizeTags(tags: readonly string[]): string[] {
  const result: string[] = [];
  for (const tag of tags) {
    const clean = tag.normalize('NFKC').trim().replace(/^#+/, '').toLowerCase().replace(/\s+/g, '-').slice(0, NOTE_TAG_MAX);
    if (clean && !result.includes(clean)) result.push(clean);
  }
  return result.slice(0, NOTE_MAX_TAGS);
}

/** `text` without its last (partial) word and the space before it; unchanged when it is one word. */
function cutAtLastSpace(text: string): string {
  const space = Math.max(text.lastIndexOf(' '), text.lastIndexOf('\t'));
  return space > 0 ? text.slice(0, space).trimEnd() : text;
}

/** A title from the body's first line when none was given. */
function titleFrom(body: string): string {
  const firstLine = body.trim().split(/\r?\n/, 1)[0]!.trim();
  return firstLine.length <= 60 ? firstLine : `${cutAtLastSpace(firstLine.slice(0, 57))}…`;
}

const tooLong = (length: number) =>
  `The note is ${length.toLocaleString('en-US')} characters; a note holds at most ${NOTE_MAX_CHARACTERS.toLocaleString('en-US')}. Nothing was saved: ask the user to shorten it or split it into parts.`;

/**
 * The user's notes (the second brain): saved from their words, listed, shown, edited,
 * appended to and deleted, always within one user's own. Every write is indexed for search
 * by the database itself (the herald_search triggers), so nothing here can forget to.
 */
export class NoteService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    private readonly options: { maxPerUser: number },
    private readonly indexer?: EmbeddingIndexer | undefined,
  ) {}

  /**
   * After a write: embeds the user's notes and facts still waiting (this one among them),
   * its cost reported to the turn. Best effort: a service that is down leaves them waiting
   * for the next search or save, and the note is saved either way.
   */
  async afterWrite(userId: string, context: Pick<ToolContext, 'recordCost' | 'signal'>): Promise<void> {
    if (!this.indexer) return;
    await this.indexer.embedWithPending(userId, [], embeddingCostSink(context), context.signal);
  }

  /** Saves a note; refused (nothing saved) past the size limit or the user's note limit. */
  async save(
    userId: string,
    input: {
      title?: string | undefined;
      body: string;
      tags?: readonly string[] | undefined;
      /** The message the note came from; or `fromLatestMessage`: the user's latest message (the one the turn answers). */
      sourceMessageId?: string | undefined;
      fromLatestMessage?: boolean | undefined;
      userLanguage?: string | null | undefined;
    },
  ): Promise<NoteResult<{ effect: 'created'; note: NoteView }>> {
    const body = input.body.trim();
    if (body.length === 0) return { ok: false, error: 'The note is empty: there is nothing to save.' };
    if (body.length > NOTE_MAX_CHARACTERS) return { ok: false, error: tooLong(body.length) };
    const title = (input.title?.trim() || titleFrom(body)).slice(0, NOTE_TITLE_MAX);
    const now = this.clock.now();
    // One user's saves in a row, so two at once cannot both take the last place.
    return this.prisma.$transaction(async (transaction) => {
      await lockUserRows(transaction, 'note', userId);
      const count = await transaction.note.count({ where: { userId } });
      if (count >= this.options.maxPerUser) {
        return {
          ok: false as const,
          error: `The user already has ${count.toLocaleString('en-US')} notes, the most Herald keeps. Nothing was saved: they can delete notes they no longer need first.`,
        };
      }
      const source = input.sourceMessageId
        ? await transaction.message.findFirst({ where: { id: input.sourceMessageId, userId }, select: { id: true } })
        : input.fromLatestMessage
          ? await transaction.message.findFirst({ where: { userId, role: 'user' }, orderBy: { createdAt: 'desc' }, select: { id: true } })
          : null;
      const sourceMessageId = source?.id ?? null;
      const userLanguage = input.userLanguage ?? (await transaction.user.findUnique({ where: { id: userId }, select: { language: true } }))?.language;
      const note = await transaction.note.create({
        data: {
          userId,
          title,
          body,
          tags: normalizeTags(input.tags ?? []),
          language: detectLanguage(`${title}\n${body}`, userLanguage),
          sourceMessageId,
          createdAt: now,
          updatedAt: now,
        },
      });
      return { ok: true as const, value: { effect: 'created' as const, note: toView(note) } };
    });
  }

  /** The user's notes, newest first; optionally only those with a tag. */
  async list(userId: string, options: { tag?: string | undefined; limit?: number; offset?: number } = {}): Promise<{ notes: NoteSummary[]; total: number }> {
    const tag = options.tag ? normalizeTags([options.tag])[0] : undefined;
    const where = { userId, ...(tag ? { tags: { has: tag } } : {}) };
    const [rows, total] = await Promise.all([
      this.prisma.$queryRaw<Array<{ id: string; title: string; tags: string[]; characters: number; updatedAt: Date }>>`
        SELECT "id", "title", coalesce("tags", '{}') AS tags, char_length("body")::int AS characters, "updatedAt" FROM "Note"
         WHERE "userId" = ${userId}::uuid AND (${tag ?? null}::text IS NULL OR ${tag ?? null}::text = ANY("tags"))
         ORDER BY "updatedAt" DESC, "id" DESC LIMIT ${options.limit ?? 20} OFFSET ${options.offset ?? 0}`,
      this.prisma.note.count({ where }),
    ]);
    return { notes: rows.map((row) => ({ ...row, updatedAt: row.updatedAt.toISOString() })), total };
  }

  /** One note, in full; undefined when the user has none with this id. */
  async get(userId: string, noteId: string): Promise<NoteView | undefined> {
    const note = await this.prisma.note.findFirst({ where: { id: noteId, userId } });
    return note ? toView(note) : undefined;
  }

  /** Several notes by id (search results), in the order given; missing ones are left out. */
  async getMany(userId: string, noteIds: string[]): Promise<NoteView[]> {
    if (noteIds.length === 0) return [];
    const notes = await this.prisma.note.findMany({ where: { userId, id: { in: noteIds } } });
    const byId = new Map(notes.map((note) => [note.id, toView(note)]));
    return noteIds.map((id) => byId.get(id)).filter((note): note is NoteView => note !== undefined);
  }

  /**
   * Changes a note: a new title, body or tags, or text appended to the body (on a new
   * line). Refused when the result would pass the size limit; nothing changes then.
   */
  async update(
    userId: string,
    noteId: string,
    changes: { title?: string | undefined; body?: string | undefined; append?: string | undefined; tags?: readonly string[] | undefined; userLanguage?: string | null | undefined },
  ): Promise<NoteResult<{ effect: 'updated' | 'unchanged'; note: NoteView }>> {
    const existing = await this.prisma.note.findFirst({ where: { id: noteId, userId } });
    if (!existing) return { ok: false, error: `No note has id ${noteId}. Search or list the notes to find its id.` };
    let body = changes.body?.trim() ?? existing.body;
    if (changes.append?.trim()) body = `${body}\n${changes.append.trim()}`;
    if (body.length === 0) return { ok: false, error: 'A note cannot be emptied; delete it instead.' };
    if (body.length > NOTE_MAX_CHARACTERS) return { ok: false, error: tooLong(body.length) };
    const title = (changes.title?.trim() || existing.title).slice(0, NOTE_TITLE_MAX);
    const tags = changes.tags ? normalizeTags(changes.tags) : existing.tags;
    if (body === existing.body && title === existing.title && tags.join('\n') === existing.tags.join('\n')) {
      return { ok: true, value: { effect: 'unchanged', note: toView(existing) } };
    }
    const updated = await this.prisma.note.update({
      where: { id: existing.id },
      data: { title, body, tags, language: detectLanguage(`${title}\n${body}`, changes.userLanguage ?? null), updatedAt: this.clock.now() },
    });
    return { ok: true, value: { effect: 'updated', note: toView(updated) } };
  }

  /** Deletes a note (and, by cascade, its search entry and embedding); undefined when there is none. */
  async remove(userId: string, noteId: string): Promise<NoteView | undefined> {
    const existing = await this.prisma.note.findFirst({ where: { id: noteId, userId } });
    if (!existing) return undefined;
    await this.prisma.note.delete({ where: { id: existing.id } });
    return toView(existing);
  }
}
