import type pg from 'pg';
import type { Logger } from '../logging/logger.js';
import { describeError } from '../shared/errors.js';
import type { ToolContext } from '../tools/tool.js';
import { EmbeddingsUnavailable, type EmbeddingsClient } from './embeddings-client.js';

/** What embedding calls cost, reported to the turn that made them (its cost and the user's budget). */
export type EmbeddingCostSink = (cost: { model: string; tokens: number; costUsd: number }) => void;

/** A tool's way to report the turn's costs, as a sink for embedding costs (undefined outside a turn). */
export function embeddingCostSink(context: Pick<ToolContext, 'recordCost'>): EmbeddingCostSink | undefined {
  const { recordCost } = context;
  return recordCost ? (cost) => recordCost({ service: `embeddings:${cost.model}`, tokens: cost.tokens, costUsd: cost.costUsd }) : undefined;
}

/** The most of a user's waiting documents embedded in one go (one or a few batched requests). */
const PENDING_PER_PASS = 64;

const PENDING = `SELECT id, CASE WHEN kind = 'note' THEN (SELECT "title" || E'\\n' || coalesce(array_to_string("tags", ' '), '') || E'\\n' || "body" FROM "Note" WHERE "id" = d.id)
                                 ELSE (SELECT "content" FROM "Fact" WHERE "id" = d.id) END AS text, content_hash
  FROM herald_search.document d WHERE user_id = $1::uuid AND embedding IS NULL ORDER BY updated_at LIMIT $2`;
// Only if the words are still the ones embedded: an edit meanwhile dropped the hash, and its own pass embeds it.
const STORE = `UPDATE herald_search.document SET embedding = $2::real[], embedding_model = $3, embedding_tokens = $4 WHERE id = $1::uuid AND content_hash = $5`;

/**
 * Fills in the embeddings of a user's notes and facts. Called inside the user's turns (when
 * a note is saved, before a search), never in the background: every embedding is made for
 * the user's own words, in a turn of theirs, and its cost lands in that turn and their budget.
 * A service that is down leaves the documents waiting; the next pass embeds them.
 */
export class EmbeddingIndexer {
  constructor(
    private readonly pool: pg.Pool,
    readonly client: EmbeddingsClient,
    private readonly logger: Logger,
  ) {}

  /**
   * After a change of EMBEDDINGS_MODEL: every vector of another model is dropped, so the
   * documents wait (the partial index on waiting rows finds them) and are embedded again by
   * the new model at their users' next searches. Run at start-up.
   */
  async forgetOtherModels(): Promise<number> {
    const { rowCount } = await this.pool.query(
      'UPDATE herald_search.document SET embedding = NULL, embedding_model = NULL, embedding_tokens = NULL WHERE embedding IS NOT NULL AND embedding_model IS DISTINCT FROM $1',
      [this.client.model],
    );
    if (rowCount) this.logger.info({ documents: rowCount, model: this.client.model }, 'embeddings of another model dropped; they are made again as users search');
    return rowCount ?? 0;
  }

  /** Documents of `userId` waiting for an embedding (oldest first, one pass's worth). */
  async pending(userId: string): Promise<Array<{ id: string; text: string; hash: string }>> {
    const { rows } = await this.pool.query<{ id: string; text: string | null; content_hash: string }>(PENDING, [userId, PENDING_PER_PASS]);
    return rows.filter((row): row is typeof row & { text: string } => row.text !== null).map((row) => ({ id: row.id, text: row.text, hash: row.content_hash }));
  }

  /**
   * Embeds `extra` texts (search phrasings) together with up to one pass of the user's
   * waiting documents, in the same batched requests, and stores the documents' vectors.
   * Returns the extra texts' vectors, or undefined when the service failed (logged; the
   * caller searches by text alone and the documents wait for the next pass).
   */
  async embedWithPending(userId: string, extra: string[], onCost: EmbeddingCostSink | undefined, signal?: AbortSignal): Promise<number[][] | undefined> {
    const waiting = await this.pending(userId);
    if (waiting.length === 0 && extra.length === 0) return [];
    let result;
    try {
      result = await this.client.embed([...extra, ...waiting.map((document) => document.text)], signal);
    } catch (error) {
      if (!(error instanceof EmbeddingsUnavailable)) throw error;
      this.logger.warn({ error: describeError(error), waiting: waiting.length }, 'embeddings unavailable: searching by text, documents keep waiting');
      return undefined;
    }
    onCost?.({ model: this.client.model, tokens: result.tokens, costUsd: result.costUsd });
    const perText = result.tokens / Math.max(1, extra.length + waiting.length);
    for (const [index, document] of waiting.entries()) {
      await this.pool.query(STORE, [document.id, result.vectors[extra.length + index], this.client.model, Math.round(perText), document.hash]);
    }
    return result.vectors.slice(0, extra.length);
  }
}
