import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import type { Logger } from '../logging/logger.js';
import { EmbeddingIndexer } from '../search/embedding-indexer.js';
import { EmbeddingsClient } from '../search/embeddings-client.js';
import { MemorySearch } from '../search/memory-search.js';
import { prepareSearch, type SearchCapabilities } from '../search/search-capabilities.js';
import { SimilarFacts } from '../search/similar-facts.js';
import type { Clock } from '../shared/clock.js';
import { NoteService } from '../notes/note-service.js';

/**
 * The second brain, wired: the search index's optional extensions made ready (pg_trgm,
 * pgvector: each used where the server has it), the embeddings client when one is
 * configured, one search over notes and facts, and the note service.
 */
export async function createBrainModule(deps: {
  config: Config;
  database: Pick<Database, 'prisma' | 'pool'>;
  clock: Clock;
  logger: Logger;
  /** Replaces detection (tests of the fallbacks; benchmarks comparing legs). */
  capabilities?: SearchCapabilities;
  fetch?: typeof fetch;
}) {
  const logger = deps.logger.child({ component: 'search' });
  const capabilities = deps.capabilities ?? (await prepareSearch(deps.database.pool, logger));
  const settings = deps.config.brain.embeddings;
  const indexer = settings ? new EmbeddingIndexer(deps.database.pool, new EmbeddingsClient(settings, deps.fetch), logger) : undefined;
  await indexer?.forgetOtherModels();
  const search = new MemorySearch(deps.database.pool, capabilities, indexer, logger);
  const notes = new NoteService(deps.database.prisma, deps.clock, { maxPerUser: deps.config.brain.maxNotesPerUser }, indexer);
  return { capabilities, indexer, search, notes, similarFacts: new SimilarFacts(capabilities, indexer) };
}

/** The wired second brain. */
export type BrainModule = Awaited<ReturnType<typeof createBrainModule>>;
