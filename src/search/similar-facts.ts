import type pg from 'pg';
import type { EmbeddingCostSink, EmbeddingIndexer } from './embedding-indexer.js';
import type { SearchCapabilities } from './search-capabilities.js';

/** Cosine similarity at which two facts say the same thing ("Lives in Tel Aviv", "Home is in Tel Aviv"). */
const SAME_MEANING = 0.85;
/** Trigram similarity at which two facts are the same words, near enough ("Is a vegetarian", "Is vegetarian"). */
const SAME_WORDS = 0.7;

/**
 * Finds the saved fact a new one repeats in other words, so remembering it updates that
 * fact instead of adding a second: by embeddings where a service is configured (the new
 * fact embedded together with any of the user's documents still waiting), by trigram
 * similarity where pg_trgm is installed, else not at all (exact repeats and subjects are
 * caught before this). Runs on the writer's connection, inside its lock.
 */
export class SimilarFacts {
  constructor(
    private readonly capabilities: SearchCapabilities,
    private readonly indexer: EmbeddingIndexer | undefined,
  ) {}

  /** The id of the user's fact that says the same as `content`, if one does. */
  async find(client: pg.PoolClient, userId: string, content: string, onCost?: EmbeddingCostSink): Promise<string | undefined> {
    if (this.indexer) {
      const vectors = await this.indexer.embedWithPending(userId, [content], onCost);
      const vector = vectors?.[0];
      if (vector) {
        const { rows } = await client.query<{ id: string; similarity: number }>(
          `SELECT id, herald_search.cosine(embedding, $2::real[]) AS similarity FROM herald_search.document
            WHERE user_id = $1::uuid AND kind = 'fact' AND embedding_model = $3 AND cardinality(embedding) = $4
            ORDER BY similarity DESC NULLS LAST LIMIT 1`,
          [userId, vector, this.indexer.client.model, vector.length],
        );
        const best = rows[0];
        return best && best.similarity >= SAME_MEANING ? best.id : undefined;
      }
    }
    if (this.capabilities.trigram) {
      const schema = `"${this.capabilities.trigram.schema.replaceAll('"', '""')}"`;
      const { rows } = await client.query<{ id: string }>(
        `SELECT id FROM herald_search.document
          WHERE user_id = $1::uuid AND kind = 'fact' AND ${schema}.similarity(lower(text), lower($2)) >= $3
          ORDER BY ${schema}.similarity(lower(text), lower($2)) DESC LIMIT 1`,
        [userId, content, SAME_WORDS],
      );
      return rows[0]?.id;
    }
    return undefined;
  }
}
