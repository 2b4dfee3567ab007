import { z } from 'zod';
import type { NoteService, NoteView } from '../../notes/note-service.js';
import { NOTE_MAX_CHARACTERS, NOTE_MAX_TAGS } from '../../notes/note-service.js';
import type { PageService } from '../../pages/page-service.js';
import { say } from '../../texts/texts.js';
import { toolLanguage } from '../../tools/bulk-change.js';
import { defineTool, ok, toolError, type ToolDefinition } from '../../tools/tool.js';

/** A note body longer than this is shown as a page (a link), not pasted into a text. */
const NOTE_TEXT_LIMIT = 1200;

const noteId = z.string().uuid().describe('The note id, from search_memory, list_notes or the task');
const tags = z.array(z.string().trim().min(1).max(40)).max(NOTE_MAX_TAGS).describe('Short topic words, e.g. ["recipe", "shop"]');
// The schema lets a too-long body through so the service can refuse it with the limit in words (nothing saved).
const body = z.string().min(1).max(NOTE_MAX_CHARACTERS * 2);

/** memory-agent's note tools: save, list, show, edit or append, delete (with the user's YES). */
export function noteTools(notes: NoteService, pages: PageService | undefined): ToolDefinition[] {
  /** A note as the model sees it: in full when it fits a text, else its start and a page link. */
  async function shown(note: NoteView, userId: string, timezone: string) {
    if (note.body.length <= NOTE_TEXT_LIMIT || !pages) return { ...note };
    const page = await pages.create(userId, timezone, {
      title: note.title,
      language: /^[a-z]{2}$/.test(note.language) ? note.language : 'en',
      sections: [{ kind: 'text', markdown: note.body }, ...(note.tags.length > 0 ? [{ kind: 'text' as const, heading: 'Tags', markdown: note.tags.join(', ') }] : [])],
    });
    // The slice is 300 characters, so the quadratic worst case is bounded (45,000 steps).
    // eslint-disable-next-line regexp/no-super-linear-move
    const preview = `${note.body.slice(0, 300).replace(/\s+\S*$/, '')}…`;
    return page.ok
      ? { id: note.id, title: note.title, tags: note.tags, characters: note.body.length, preview, page: page.value.link, instruction: 'Too long for a text: give the user the page link with one line about the note.' }
      : { ...note };
  }

  return [
    defineTool({
      name: 'save_note',
      description: `Save a note in the user's second brain: anything they want kept to look up later (a wifi password, a recipe, an idea, a pasted article). Up to ${NOTE_MAX_CHARACTERS.toLocaleString('en-US')} characters; keep the user's own words.`,
      mutates: true,
      inputSchema: z.object({
        title: z.string().trim().min(1).max(120).optional().describe('A short title; omit to use the first line'),
        body: body.describe("The note's text, as the user gave it"),
        tags: tags.optional(),
      }),
      run: async (input, context) => {
        const saved = await notes.save(context.userId, { ...input, fromLatestMessage: true });
        if (!saved.ok) return toolError(saved.error);
        await notes.afterWrite(context.userId, context);
        const { note } = saved.value;
        return ok({ effect: 'created', note: { id: note.id, title: note.title, tags: note.tags, characters: note.body.length } });
      },
    }),
    defineTool({
      name: 'list_notes',
      description: "List the user's notes, newest first (titles and tags, not their text), optionally only those with a tag.",
      mutates: false,
      inputSchema: z.object({ tag: z.string().trim().min(1).max(40).optional(), offset: z.number().int().min(0).optional() }),
      run: async (input, context) => ok(await notes.list(context.userId, { tag: input.tag, offset: input.offset, limit: 20 })),
    }),
    defineTool({
      name: 'get_note',
      description: `Show one note in full by id. A note longer than ${NOTE_TEXT_LIMIT} characters comes back as a page link instead of its text.`,
      mutates: false,
      inputSchema: z.object({ noteId }),
      run: async (input, context) => {
        const note = await notes.get(context.userId, input.noteId);
        return note ? ok(await shown(note, context.userId, context.timezone)) : toolError(`No note has id ${input.noteId}. Use search_memory or list_notes to find it.`);
      },
    }),
    defineTool({
      name: 'update_note',
      description: 'Change a note by id: a new title, new tags, the whole text replaced (body), or text added at its end (append).',
      mutates: true,
      inputSchema: z
        .object({ noteId, title: z.string().trim().min(1).max(120).optional(), body: body.optional(), append: body.optional(), tags: tags.optional() })
        .refine((input) => input.title !== undefined || input.body !== undefined || input.append !== undefined || input.tags !== undefined, 'give title, body, append or tags'),
      run: async (input, context) => {
        const updated = await notes.update(context.userId, input.noteId, input);
        if (!updated.ok) return toolError(updated.error);
        if (updated.value.effect === 'updated') await notes.afterWrite(context.userId, context);
        const { note } = updated.value;
        return ok({ effect: updated.value.effect, note: { id: note.id, title: note.title, tags: note.tags, characters: note.body.length } });
      },
    }),
    defineTool({
      name: 'delete_note',
      description: 'Delete a note by id. Herald asks the user to confirm with YES first.',
      mutates: true,
      inputSchema: z.object({ noteId }),
      async confirmation(input, context) {
        const note = await notes.get(context.userId, input.noteId);
        // No such note: the call runs and says so, nothing to ask about.
        if (!note) return undefined;
        const language = toolLanguage(context);
        return { question: say(language, 'noteDeleteAsk', { title: note.title }), done: say(language, 'noteDeleted', { title: note.title }) };
      },
      run: async (input, context) => {
        const removed = await notes.remove(context.userId, input.noteId);
        return removed ? ok({ effect: 'deleted', note: { id: removed.id, title: removed.title } }) : toolError(`No note has id ${input.noteId}; nothing was deleted.`);
      },
    }),
  ];
}
