import type pg from 'pg';
import type { NoteService } from '../../src/notes/note-service.js';
import type { EmbeddingIndexer } from '../../src/search/embedding-indexer.js';
import type { MemorySearch } from '../../src/search/memory-search.js';
import { LABELLED_NOTES, LABELLED_QUESTIONS } from '../fixtures/brain-labelled-set.js';

/** Saves the labelled set's 200 notes for `userId`; returns note id by key. */
export async function saveLabelledNotes(notes: NoteService, userId: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const note of LABELLED_NOTES) {
    const saved = await notes.save(userId, { title: note.title, body: note.body });
    if (!saved.ok) throw new Error(saved.error);
    ids.set(note.key, saved.value.note.id);
  }
  return ids;
}

/** Embeds every document of the user still waiting (several passes of the indexer). */
export async function embedEverything(pool: pg.Pool, indexer: EmbeddingIndexer, userId: string): Promise<void> {
  for (let pass = 0; pass < 100; pass += 1) {
    const { rows } = await pool.query<{ waiting: number }>('SELECT count(*)::int AS waiting FROM herald_search.document WHERE user_id = $1 AND embedding IS NULL', [userId]);
    if (rows[0]!.waiting === 0) return;
    if (!(await indexer.embedWithPending(userId, [], undefined))) throw new Error('the embeddings service failed');
  }
  throw new Error('documents still waiting after 100 passes');
}

/** Recall@5 over the 50 questions: the share whose right note is among the first five results, and the questions missed. */
export async function recallAt5(search: MemorySearch, userId: string, ids: Map<string, string>): Promise<{ recall: number; missed: string[] }> {
  const missed: string[] = [];
  for (const { question, answer } of LABELLED_QUESTIONS) {
    const { hits } = await search.search(userId, [question], { kinds: ['note'], limit: 5 });
    if (!hits.some((hit) => hit.id === ids.get(answer))) missed.push(question);
  }
  return { recall: (LABELLED_QUESTIONS.length - missed.length) / LABELLED_QUESTIONS.length, missed };
}
