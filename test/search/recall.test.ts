import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { NoteService } from '../../src/notes/note-service.js';
import { EmbeddingIndexer } from '../../src/search/embedding-indexer.js';
import { EmbeddingsClient } from '../../src/search/embeddings-client.js';
import { MemorySearch } from '../../src/search/memory-search.js';
import { prepareSearch, type SearchCapabilities } from '../../src/search/search-capabilities.js';
import { ManualClock } from '../../src/shared/clock.js';
import { FakeEmbeddingsServer } from '../fakes/fake-embeddings-server.js';
import { LABELLED_NOTES, LABELLED_QUESTIONS } from '../fixtures/brain-labelled-set.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { embedEverything, recallAt5, saveLabelledNotes } from './labelled-recall.js';

/**
 * Recall@5 on the labelled set (200 notes, 50 questions): words alone, words and trigrams,
 * and hybrid (with embeddings from the fake model, which knows synonyms as a real one
 * would, so the figure measures the fusion, not a real model). The floors are a little under
 * what was measured when this was written: a change that makes search find less fails here.
 * `npm run bench -- brain` prints the same figures.
 */
describe('recall@5 on the labelled set', () => {
  let database: TestDatabase;
  let capabilities: SearchCapabilities;
  let embeddings: FakeEmbeddingsServer;
  let userId: string;
  let ids: Map<string, string>;
  let indexer: EmbeddingIndexer;
  const logger = createLogger({ level: 'silent' });
  const results: Record<string, number> = {};

  beforeAll(async () => {
    database = await createTestDatabase(4);
    capabilities = await prepareSearch(database.pool, logger);
    embeddings = await FakeEmbeddingsServer.start({ dimensions: 256 });
    userId = (await database.prisma.user.create({ data: { phone: '+14155550900', timezone: 'UTC', language: 'en' } })).id;
    ids = await saveLabelledNotes(new NoteService(database.prisma, new ManualClock(), { maxPerUser: 10_000 }), userId);
    indexer = new EmbeddingIndexer(database.pool, new EmbeddingsClient({ baseUrl: embeddings.url, apiKey: embeddings.apiKey, model: embeddings.model, timeoutMs: 5_000, pricePerMillionTokens: 0, batchSize: 64 }), logger);
    await embedEverything(database.pool, indexer, userId);
  });
  afterAll(async () => {
    // eslint-disable-next-line no-console
    console.log(`recall@5 on the labelled set: ${JSON.stringify(results)}`);
    await embeddings.close();
    await database.drop();
  });

  it('is a set of 200 notes and 50 questions, each answered by a note in it', () => {
    expect(LABELLED_NOTES).toHaveLength(200);
    expect(new Set(LABELLED_NOTES.map((note) => note.key)).size).toBe(200);
    expect(LABELLED_QUESTIONS).toHaveLength(50);
    expect(LABELLED_QUESTIONS.every((question) => ids.has(question.answer))).toBe(true);
  });

  it('words alone find most notes asked for in their own words', async () => {
    const text = await recallAt5(new MemorySearch(database.pool, {}, undefined, logger), userId, ids);
    results.text = text.recall;
    expect(text.recall).toBeGreaterThanOrEqual(0.55);
  });

  it('hybrid search (words, trigrams where installed, meaning) finds more, and at least 90%', async () => {
    const text = await recallAt5(new MemorySearch(database.pool, {}, undefined, logger), userId, ids);
    if (capabilities.trigram) results.textAndTrigram = (await recallAt5(new MemorySearch(database.pool, capabilities, undefined, logger), userId, ids)).recall;
    const hybrid = await recallAt5(new MemorySearch(database.pool, capabilities, indexer, logger), userId, ids);
    results.hybrid = hybrid.recall;
    expect(hybrid.recall, `missed: ${hybrid.missed.join(' | ')}`).toBeGreaterThan(text.recall);
    expect(hybrid.recall, `missed: ${hybrid.missed.join(' | ')}`).toBeGreaterThanOrEqual(0.9);
  });
});
