import type pg from 'pg';

/** One user's embeddings under one model, as unit vectors, by document. */
interface UserVectors {
  model: string;
  dimensions: number;
  entries: Map<string, { hash: string; kind: string; vector: Float32Array }>;
  bytes: number;
}

/**
 * Embeddings compared in process, for servers without pgvector: comparing 10,000
 * 1,024-dimension arrays in SQL takes seconds, in JavaScript a few milliseconds. Each
 * user's vectors are kept normalised in memory (least recently used users dropped past
 * `maxBytes`), and every search first reads the user's document ids and content hashes (a
 * small index-only read), fetching only vectors that are new or changed and forgetting
 * deleted ones: the cache is never staler than the database, on any number of instances.
 */
export class VectorCache {
  private readonly users = new Map<string, UserVectors>();
  private totalBytes = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly maxBytes = 256 * 1024 * 1024,
  ) {}

  /** The user's documents closest to `query` (cosine), best first, at most `limit`. */
  async nearest(userId: string, query: number[], model: string, kinds: string[], limit: number): Promise<Array<{ id: string; kind: string; similarity: number }>> {
    const vectors = await this.refresh(userId, model, query.length);
    const unit = normalised(Float32Array.from(query));
    const scored: Array<{ id: string; kind: string; similarity: number }> = [];
    for (const [id, entry] of vectors.entries) {
      if (!kinds.includes(entry.kind)) continue;
      const vector = entry.vector;
      let dot = 0;
      for (let index = 0; index < vector.length; index += 1) dot += vector[index]! * unit[index]!;
      scored.push({ id, kind: entry.kind, similarity: dot });
    }
    scored.sort((a, b) => b.similarity - a.similarity || a.id.localeCompare(b.id));
    return scored.slice(0, limit);
  }

  private async refresh(userId: string, model: string, dimensions: number): Promise<UserVectors> {
    let cached = this.users.get(userId);
    if (!cached || cached.model !== model || cached.dimensions !== dimensions) {
      if (cached) this.totalBytes -= cached.bytes;
      cached = { model, dimensions, entries: new Map(), bytes: 0 };
    }
    // Most recently used last: Map keeps insertion order.
    this.users.delete(userId);
    this.users.set(userId, cached);
    // Ids and hashes only: reading every embedding (4 KiB each, out of line) on each search is what the cache saves.
    const { rows } = await this.pool.query<{ id: string; content_hash: string; kind: string }>(
      `SELECT id, content_hash, kind FROM herald_search.document WHERE user_id = $1::uuid AND embedding_model = $2 AND embedding IS NOT NULL`,
      [userId, model],
    );
    const present = new Set<string>();
    const wanted: string[] = [];
    for (const row of rows) {
      present.add(row.id);
      if (cached.entries.get(row.id)?.hash !== row.content_hash) wanted.push(row.id);
    }
    for (const id of cached.entries.keys()) {
      if (!present.has(id)) {
        cached.entries.delete(id);
        cached.bytes -= dimensions * 4;
        this.totalBytes -= dimensions * 4;
      }
    }
    for (let start = 0; start < wanted.length; start += 2000) {
      const { rows: fetched } = await this.pool.query<{ id: string; content_hash: string; kind: string; embedding: number[] }>(
        `SELECT id, content_hash, kind, embedding FROM herald_search.document WHERE id = ANY($1::uuid[]) AND embedding_model = $2`,
        [wanted.slice(start, start + 2000), model],
      );
      for (const row of fetched) {
        // A vector of another length under the same model name (its dimensions were changed) is not comparable.
        if (row.embedding.length !== dimensions) continue;
        if (!cached.entries.has(row.id)) {
          cached.bytes += dimensions * 4;
          this.totalBytes += dimensions * 4;
        }
        cached.entries.set(row.id, { hash: row.content_hash, kind: row.kind, vector: normalised(Float32Array.from(row.embedding)) });
      }
    }
    this.evict(userId);
    return cached;
  }

  /** Drops least recently used users until the cache fits (never the one just used). */
  private evict(keep: string): void {
    for (const [userId, vectors] of this.users) {
      if (this.totalBytes <= this.maxBytes) return;
      if (userId === keep) continue;
      this.users.delete(userId);
      this.totalBytes -= vectors.bytes;
    }
  }
}

function normalised(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum) || 1;
  for (let index = 0; index < vector.length; index += 1) vector[index]! /= norm;
  return vector;
}
