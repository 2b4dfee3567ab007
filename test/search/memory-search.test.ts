import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { FactService } from '../../src/memory/fact-service.js';
import { NoteService } from '../../src/notes/note-service.js';
import { EmbeddingIndexer } from '../../src/search/embedding-indexer.js';
import { EmbeddingsClient } from '../../src/search/embeddings-client.js';
import { MemorySearch } from '../../src/search/memory-search.js';
import { SimilarFacts } from '../../src/search/similar-facts.js';
import { prepareSearch, type SearchCapabilities } from '../../src/search/search-capabilities.js';
import { ManualClock } from '../../src/shared/clock.js';
import { FakeEmbeddingsServer } from '../fakes/fake-embeddings-server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The one retrieval behind search_memory, against real Postgres: per-language full-text
 * search, trigram similarity where pg_trgm is installed, embeddings from a fake
 * OpenAI-compatible server, fused by reciprocal rank, always one user's own documents; and
 * every fault of the embeddings service falls back to text without losing a note.
 */
describe('memory search', () => {
  let database: TestDatabase;
  let capabilities: SearchCapabilities;
  let embeddings: FakeEmbeddingsServer;
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  const logger = createLogger({ level: 'silent' });
  let phone = 0;

  async function newUser(language: string | null = 'en'): Promise<string> {
    phone += 1;
    return (await database.prisma.user.create({ data: { phone: `+1415556${String(phone).padStart(4, '0')}`, timezone: 'UTC', language } })).id;
  }
  const notesService = (indexer?: EmbeddingIndexer, maxPerUser = 10_000) => new NoteService(database.prisma, clock, { maxPerUser }, indexer);
  const indexerFor = (options: { timeoutMs?: number } = {}) =>
    new EmbeddingIndexer(
      database.pool,
      new EmbeddingsClient({ baseUrl: embeddings.url, apiKey: embeddings.apiKey, model: embeddings.model, dimensions: embeddings.dimensions, timeoutMs: options.timeoutMs ?? 2_000, pricePerMillionTokens: 0.1, batchSize: 16 }),
      logger,
    );
  async function save(notes: NoteService, userId: string, body: string, title?: string) {
    const saved = await notes.save(userId, { body, title });
    if (!saved.ok) throw new Error(saved.error);
    return saved.value.note.id;
  }

  beforeAll(async () => {
    database = await createTestDatabase(4);
    capabilities = await prepareSearch(database.pool, logger);
    embeddings = await FakeEmbeddingsServer.start();
  });
  afterAll(async () => {
    await embeddings.close();
    await database.drop();
  });
  beforeEach(() => embeddings.reset());

  it('stems each note in its own language and finds word forms the note does not use', async () => {
    const userId = await newUser();
    const notes = notesService();
    const english = await save(notes, userId, 'Dana recommended the Lebanese restaurants on Allenby street, the hummus is great');
    const spanish = await save(notes, userId, 'La receta de la abuela: las lentejas con chorizo y pimentón');
    const hebrew = await save(notes, userId, 'הסיסמה של הוויפי אצל אמא היא לימון');
    const { rows } = await database.pool.query<{ id: string; config: string }>('SELECT id, config::text FROM herald_search.document WHERE user_id = $1', [userId]);
    expect(Object.fromEntries(rows.map((row) => [row.id, row.config]))).toEqual({ [english]: 'english', [spanish]: 'spanish', [hebrew]: 'simple' });

    const search = new MemorySearch(database.pool, {}, undefined, logger);
    expect((await search.search(userId, ['which restaurant did Dana recommend?'])).hits.map((hit) => hit.id)).toEqual([english]);
    expect((await search.search(userId, ['receta lenteja'])).hits.map((hit) => hit.id)).toEqual([spanish]);
    expect((await search.search(userId, ['לימון'])).hits.map((hit) => hit.id)).toEqual([hebrew]);
    // Hebrew glues "the" and "and" to the word: only trigrams find "ויפי" inside "הוויפי".
    if (capabilities.trigram) expect((await new MemorySearch(database.pool, capabilities, undefined, logger).search(userId, ['ויפי'])).hits.map((hit) => hit.id)).toEqual([hebrew]);
    // A partial word finds the whole one.
    expect((await search.search(userId, ['pimen'])).hits.map((hit) => hit.id)).toEqual([spanish]);
  });

  it('finds facts too, each kind on request, and never another user\'s documents', async () => {
    const userId = await newUser();
    const other = await newUser();
    const facts = new FactService(database.prisma, database.pool, clock);
    const notes = notesService();
    const fact = await facts.remember(userId, { category: 'personal', subject: 'home', content: 'Lives in Tel Aviv' });
    const note = await save(notes, userId, 'Moving boxes are in the Tel Aviv storage unit 12');
    await save(notes, other, 'Tel Aviv apartment viewing on Sunday');
    const search = new MemorySearch(database.pool, capabilities, undefined, logger);
    const both = await search.search(userId, ['Tel Aviv']);
    expect(both.hits.map((hit) => `${hit.kind}:${hit.id}`).sort()).toEqual([`fact:${fact.fact.id}`, `note:${note}`].sort());
    expect((await search.search(userId, ['Tel Aviv'], { kinds: ['fact'] })).hits.map((hit) => hit.id)).toEqual([fact.fact.id]);
    // An edited fact is found by its new words only.
    await facts.update(userId, fact.fact.id, { content: 'Lives in Haifa' });
    expect((await search.search(userId, ['Haifa'])).hits.map((hit) => hit.id)).toEqual([fact.fact.id]);
    expect((await search.search(userId, ['Tel Aviv'], { kinds: ['fact'] })).hits).toEqual([]);
  });

  it('a search for nothing finds nothing, without an error', async () => {
    const userId = await newUser();
    await save(notesService(), userId, 'Anything at all');
    const search = new MemorySearch(database.pool, capabilities, undefined, logger);
    for (const nothing of [[''], ['   '], ['?!'], ['…', '-']]) expect(await search.search(userId, nothing)).toEqual({ hits: [], legs: [] });
    expect((await search.search(userId, ['zebra quantum'])).hits).toEqual([]);
  });

  it('finds typos by trigram similarity where pg_trgm is installed, and goes on without it where not', async () => {
    const userId = await newUser();
    const id = await save(notesService(), userId, 'Dana recommended the restaurant Abu Hassan in Jaffa');
    const withoutTrigrams = new MemorySearch(database.pool, {}, undefined, logger);
    expect(withoutTrigrams.legs).toEqual(['text']);
    expect((await withoutTrigrams.search(userId, ['resturant Jafa'])).hits).toEqual([]);
    if (!capabilities.trigram) return; // this server has no pg_trgm: the fallback above is all there is
    const search = new MemorySearch(database.pool, capabilities, undefined, logger);
    const found = await search.search(userId, ['resturant Jafa']);
    expect(found.hits.map((hit) => hit.id)).toEqual([id]);
    expect(found.hits[0]!.foundBy).toEqual(['trigram']);
  });

  it("looks typos up in the user's vocabulary, which follows their notes: an edited note's old words and an erased note's words leave it", async () => {
    const userId = await newUser();
    const notes = notesService();
    const words = async () =>
      (await database.pool.query<{ word: string; documents: number }>('SELECT word, documents FROM herald_search.word WHERE user_id = $1 ORDER BY word', [userId])).rows;
    const jaffa = await save(notes, userId, 'Dana recommended the restaurant Abu Hassan in Jaffa', 'Tip from Dana');
    const list = await save(notes, userId, 'Restaurant list for the weekend', 'Weekend');
    expect(await words()).toContainEqual({ word: 'restaurant', documents: 2 });
    expect(await words()).toContainEqual({ word: 'jaffa', documents: 1 });

    const updated = await notes.update(userId, jaffa, { body: 'Dana recommended the hummus place Abu Hassan' });
    expect(updated.ok).toBe(true);
    expect(await words()).toContainEqual({ word: 'restaurant', documents: 1 });
    expect((await words()).map((row) => row.word)).not.toContain('jaffa');
    await notes.remove(userId, list);
    expect((await words()).map((row) => row.word)).not.toContain('restaurant');
    expect((await words()).map((row) => row.word)).toContain('hummus');
    if (capabilities.trigram) {
      const search = new MemorySearch(database.pool, capabilities, undefined, logger);
      // No note holds "restaurant" or "Jaffa" any more: their typos find nothing; "humus" finds the edited note.
      expect((await search.search(userId, ['resturant Jafa'])).hits).toEqual([]);
      expect((await search.search(userId, ['humus'])).hits.map((hit) => hit.id)).toEqual([jaffa]);
    }

    // Erasing the user (DELETE MY DATA) empties their vocabulary with their notes.
    await database.prisma.user.delete({ where: { id: userId } });
    expect(await words()).toEqual([]);
  });

  it('ranks the notes holding every word first, however many notes hold one of them', async () => {
    const userId = await newUser();
    // 1,200 notes about meetings, written before the one that names Avi and Tuesday too: more
    // than are ranked for "any of the words", so only "all of the words" can find it.
    await database.pool.query(
      `INSERT INTO "Note" ("id", "userId", "title", "body", "tags", "language", "updatedAt")
       SELECT gen_random_uuid(), $1, 'Weekly meeting ' || n, 'Meeting notes: budget, hiring, roadmap item ' || n, '{}', 'en', now() FROM generate_series(1, 1200) n`,
      [userId],
    );
    const avi = await save(notesService(), userId, 'Meeting with Avi on Tuesday about the offsite', 'Avi');
    const search = new MemorySearch(database.pool, capabilities, undefined, logger);
    const found = await search.search(userId, ['meeting Avi Tuesday']);
    expect(found.hits[0]?.id).toBe(avi);
    expect(found.hits).toHaveLength(5);
  });

  it('finds a note by meaning when no word matches, embedding notes once and counting the cost', async () => {
    const userId = await newUser();
    const indexer = indexerFor();
    const notes = notesService(indexer);
    const costs: number[] = [];
    const onCost = (cost: { costUsd: number }) => costs.push(cost.costUsd);
    const target = await save(notes, userId, 'Abu Hassan in Jaffa: Dana raved about it, get the masabacha');
    await save(notes, userId, 'Garage: tyres rotated, next oil change in March');
    await notes.afterWrite(userId, { recordCost: (cost) => costs.push(cost.costUsd) });
    expect(embeddings.embeddedTexts()).toHaveLength(2);
    const search = new MemorySearch(database.pool, {}, indexer, logger);
    const found = await search.search(userId, ['which eatery did she suggest'], { onCost });
    expect(found.legs).toEqual(['text', 'meaning']);
    expect(found.hits[0]).toMatchObject({ id: target, foundBy: ['meaning'] });
    // Only the query was embedded the second time: the notes already were.
    expect(embeddings.requests.at(-1)!.input).toEqual(['which eatery did she suggest']);
    expect(costs).toHaveLength(2);
    expect(costs.every((cost) => cost > 0)).toBe(true);
  });

  it.each([
    ['down', 'down'],
    ['slow', 'slow'],
    ['answering vectors of the wrong length', 'wrong-length'],
    ['answering something that is not JSON', 'garbage'],
  ] as const)('an embeddings service %s: notes are saved, search falls back to text, embeddings are filled in later', async (_what, behaviour) => {
    const userId = await newUser();
    const indexer = indexerFor({ timeoutMs: 300 });
    embeddings.slowMs = 1_000;
    const notes = notesService(indexer);
    embeddings.behaviour = behaviour;
    const id = await save(notes, userId, 'Abu Hassan in Jaffa: Dana raved about it');
    await notes.afterWrite(userId, {});
    expect(await database.prisma.note.count({ where: { userId } })).toBe(1);
    const waiting = await database.pool.query('SELECT 1 FROM herald_search.document WHERE user_id = $1 AND embedding IS NULL', [userId]);
    expect(waiting.rowCount).toBe(1);

    const search = new MemorySearch(database.pool, {}, indexer, logger);
    const degraded = await search.search(userId, ['Jaffa']);
    expect(degraded).toMatchObject({ legs: ['text'], degraded: 'embeddings unavailable: searched by words only' });
    expect(degraded.hits.map((hit) => hit.id)).toEqual([id]);

    embeddings.behaviour = 'ok';
    const recovered = await search.search(userId, ['eatery she suggested']);
    expect(recovered.legs).toEqual(['text', 'meaning']);
    expect(recovered.hits.map((hit) => hit.id)).toEqual([id]);
    const stored = await database.pool.query<{ dims: number }>('SELECT cardinality(embedding) AS dims FROM herald_search.document WHERE user_id = $1', [userId]);
    expect(stored.rows).toEqual([{ dims: embeddings.dimensions }]);
  });

  it('compares embeddings in process without pgvector, never staler than the database: an edited or deleted note is not found by its old meaning', async () => {
    const userId = await newUser();
    const indexer = indexerFor();
    const notes = notesService(indexer);
    const id = await save(notes, userId, 'Abu Hassan in Jaffa: Dana raved about it');
    const other = await save(notes, userId, 'Cafe Xoho brunch, Shira told me about it');
    const search = new MemorySearch(database.pool, {}, indexer, logger);
    expect((await search.search(userId, ['eatery she suggested'])).hits.map((hit) => hit.id).sort()).toEqual([id, other].sort());
    await notes.update(userId, id, { body: 'Garden: water the tomatoes every second day' });
    expect((await search.search(userId, ['eatery she suggested'])).hits.map((hit) => hit.id)).toEqual([other]);
    expect((await search.search(userId, ['plants flowers'])).hits.map((hit) => hit.id)).toEqual([id]);
    await notes.remove(userId, id);
    expect((await search.search(userId, ['plants flowers'])).hits.map((hit) => hit.id)).not.toContain(id);
  });

  it('a change of EMBEDDINGS_MODEL drops the old model\'s vectors at start-up; they are embedded again at the next search', async () => {
    const userId = await newUser();
    const notes = notesService(indexerFor());
    const id = await save(notes, userId, 'Abu Hassan in Jaffa: Dana raved about it');
    await notes.afterWrite(userId, {});
    const next = await FakeEmbeddingsServer.start({ model: 'fake-embed-2' });
    try {
      const indexer = new EmbeddingIndexer(database.pool, new EmbeddingsClient({ baseUrl: next.url, apiKey: next.apiKey, model: next.model, timeoutMs: 2_000, pricePerMillionTokens: 0.1, batchSize: 16 }), logger);
      expect(await indexer.forgetOtherModels()).toBeGreaterThanOrEqual(1);
      const found = await new MemorySearch(database.pool, {}, indexer, logger).search(userId, ['eatery she suggested']);
      expect(found.hits.map((hit) => hit.id)).toEqual([id]);
      expect(next.embeddedTexts()).toContain('Abu Hassan in Jaffa: Dana raved about it\n\nAbu Hassan in Jaffa: Dana raved about it');
    } finally {
      await next.close();
    }
  });

  it('an edit that changes the words drops the old embedding; one that does not keeps it', async () => {
    const userId = await newUser();
    const indexer = indexerFor();
    const notes = notesService(indexer);
    const id = await save(notes, userId, 'Wifi at mom: Lemon-Tree-42');
    await notes.afterWrite(userId, {});
    const embedded = async () => (await database.pool.query<{ has: boolean }>('SELECT embedding IS NOT NULL AS has FROM herald_search.document WHERE id = $1', [id])).rows[0]!.has;
    expect(await embedded()).toBe(true);
    await database.prisma.note.update({ where: { id }, data: { updatedAt: new Date() } });
    expect(await embedded()).toBe(true);
    const changed = await notes.update(userId, id, { append: 'Guest network: Lemon-Guest' });
    expect(changed).toMatchObject({ ok: true, value: { effect: 'updated' } });
    expect(await embedded()).toBe(false);
  });

  it('refuses a note over 20,000 characters and the note past the limit, saving nothing', async () => {
    const userId = await newUser();
    const notes = notesService(undefined, 2);
    expect(await notes.save(userId, { body: 'x'.repeat(20_001) })).toEqual({
      ok: false,
      error: 'The note is 20,001 characters; a note holds at most 20,000. Nothing was saved: ask the user to shorten it or split it into parts.',
    });
    expect((await notes.save(userId, { body: 'y'.repeat(20_000) })).ok).toBe(true);
    await save(notes, userId, 'second');
    expect(await notes.save(userId, { body: 'third' })).toEqual({
      ok: false,
      error: 'The user already has 2 notes, the most Herald keeps. Nothing was saved: they can delete notes they no longer need first.',
    });
    expect(await database.prisma.note.count({ where: { userId } })).toBe(2);
  });

  describe('facts that say the same thing update one fact', () => {
    it('by meaning, where embeddings are configured', async () => {
      const userId = await newUser();
      const facts = new FactService(database.prisma, database.pool, clock, new SimilarFacts({}, indexerFor()));
      const first = await facts.remember(userId, { category: 'personal', subject: 'home', content: 'Lives in Tel Aviv' });
      const again = await facts.remember(userId, { category: 'personal', content: 'Home is in Tel Aviv' });
      expect(again).toMatchObject({ effect: 'updated', fact: { id: first.fact.id, content: 'Home is in Tel Aviv' } });
      const other = await facts.remember(userId, { category: 'work', content: 'Works in Tel Aviv' });
      expect(other.effect).toBe('created');
      expect(await database.prisma.fact.count({ where: { userId } })).toBe(2);
    });

    it('by trigram similarity otherwise, and only exact repeats without either', async () => {
      const userId = await newUser();
      const plain = new FactService(database.prisma, database.pool, clock, new SimilarFacts({}, undefined));
      const first = await plain.remember(userId, { category: 'preferences', content: 'Is vegetarian' });
      expect((await plain.remember(userId, { category: 'preferences', content: 'Is a vegetarian' })).effect).toBe('created');
      await database.prisma.fact.deleteMany({ where: { userId, id: { not: first.fact.id } } });
      if (!capabilities.trigram) return;
      const facts = new FactService(database.prisma, database.pool, clock, new SimilarFacts(capabilities, undefined));
      expect(await facts.remember(userId, { category: 'preferences', content: 'Is a vegetarian' })).toMatchObject({ effect: 'updated', fact: { id: first.fact.id } });
      expect((await facts.remember(userId, { category: 'preferences', content: 'Allergic to peanuts' })).effect).toBe('created');
    });
  });
});
