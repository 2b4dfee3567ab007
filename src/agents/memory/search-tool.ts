import { z } from 'zod';
import type { FactService } from '../../memory/fact-service.js';
import type { NoteService } from '../../notes/note-service.js';
import type { MemorySearch } from '../../search/memory-search.js';
import { embeddingCostSink } from '../../search/embedding-indexer.js';
import { defineTool, ok } from '../../tools/tool.js';

/** How much of a note a search result shows: enough to answer most questions, not the whole article. */
const SNIPPET_CHARACTERS = 400;

/** The part of a long note around the first word of the query it contains, else its start. */
function snippetOf(body: string, phrasings: string[]): string {
  if (body.length <= SNIPPET_CHARACTERS) return body;
  const lower = body.toLowerCase();
  const words = phrasings.flatMap((phrasing) => phrasing.toLowerCase().match(/[\p{L}\p{N}]{4,}/gu) ?? []);
  const at = words.map((word) => lower.indexOf(word)).filter((index) => index >= 0).sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, at - 100);
  return `${start > 0 ? '…' : ''}${body.slice(start, start + SNIPPET_CHARACTERS).trim()}…`;
}

/**
 * `search_memory`: one retrieval over the user's notes and facts (src/search), by words,
 * typos and meaning at once. Several phrasings of the question may go in one call.
 */
export function searchMemoryTool(search: MemorySearch, notes: NoteService, facts: FactService) {
  return defineTool({
    name: 'search_memory',
    description:
      "Search the user's notes and saved facts by meaning and words (typos are fine). Give 1-4 phrasings of what you are looking for (e.g. the question, and the key words: [\"restaurant Dana recommended\", \"Dana restaurant tip\"]). Returns the best matches, notes with a snippet (get_note shows one in full).",
    mutates: false,
    inputSchema: z.object({
      queries: z.array(z.string().trim().min(1).max(300)).min(1).max(4).describe('Phrasings of the same search'),
      kinds: z.array(z.enum(['note', 'fact'])).min(1).optional().describe('Only notes or only facts; default both'),
      limit: z.number().int().min(1).max(10).optional().describe('How many results (default 5)'),
    }),
    run: async (input, context) => {
      const onCost = embeddingCostSink(context);
      const outcome = await search.search(context.userId, input.queries, { kinds: input.kinds, limit: input.limit ?? 5, signal: context.signal, ...(onCost ? { onCost } : {}) });
      const noteIds = outcome.hits.filter((hit) => hit.kind === 'note').map((hit) => hit.id);
      const [foundNotes, allFacts] = await Promise.all([
        notes.getMany(context.userId, noteIds),
        outcome.hits.some((hit) => hit.kind === 'fact') ? facts.list(context.userId) : Promise.resolve([]),
      ]);
      const noteById = new Map(foundNotes.map((note) => [note.id, note]));
      const factById = new Map(allFacts.map((fact) => [fact.id, fact]));
      const results = outcome.hits.flatMap((hit): Array<Record<string, unknown>> => {
        if (hit.kind === 'note') {
          const note = noteById.get(hit.id);
          return note ? [{ kind: 'note', id: note.id, title: note.title, tags: note.tags, snippet: snippetOf(note.body, input.queries), characters: note.body.length, updatedAt: note.updatedAt }] : [];
        }
        const fact = factById.get(hit.id);
        return fact ? [{ kind: 'fact', id: fact.id, category: fact.category, content: fact.content }] : [];
      });
      return ok({
        results,
        count: results.length,
        ...(results.length === 0 ? { note: 'Nothing in the notes or facts matches. Say so; do not guess.' } : {}),
        ...(outcome.degraded ? { searchedBy: outcome.degraded } : {}),
      });
    },
  });
}
