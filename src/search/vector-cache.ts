import type pg from 'pg';

/** One user's embeddings under one model, as unit vectors, by document. */
interface UserVectors {
  model: string;
  dimensions: number;
  entries: Map<string, { hash: string; kind: string; vector: Float32Array }>;
  bytes: number;
  /** The same vectors packed row after row, rebuilt after a change: one pass over contiguous memory per query. */
  packed?: { ids: string[]; kinds: string[]; matrix: Float32Array } | undefined;
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
    const { ids, kinds: kindOf, matrix } = (vectors.packed ??= pack(vectors));
    const dimensions = vectors.dimensions;
    // The best `limit` so far, best first: a short insertion-sorted list beats sorting every score.
    const best: Array<{ index: number; similarity: number }> = [];
    for (let row = 0; row < ids.length; row += 1) {
      if (!kinds.includes(kindOf[row]!)) continue;
      let dot = 0;
      const offset = row * dimensions;
      for (let index = 0; index < dimensions; index += 1) dot += matrix[offset + index]! * unit[index]!;
      if (best.length === limit && !better(dot, ids[row]!, best[limit - 1]!.similarity, ids[best[limit - 1]!.index]!)) continue;
      let at = best.length === limit ? limit - 1 : best.length;
      while (at > 0 && better(dot, ids[row]!, best[at - 1]!.similarity, ids[best[at - 1]!.index]!)) at -= 1;
      best.splice(at, 0, { index: row, similarity: dot });
      if (best.length > limit) best.pop();
    }
    return best.map(({ index, similarity }) => ({ id: ids[index]!, kind: kindOf[index]!, similarity }));
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
    let changed = false;
    for (const row of rows) {
      present.add(row.id);
      if (cached.entries.get(row.id)?.hash !== row.content_hash) wanted.push(row.id);
    }
    for (const id of cached.entries.keys()) {
      if (!present.has(id)) {
        changed = true;
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
        changed = true;
      }
    }
    if (changed) cached.packed = undefined;
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

/** Higher similarity first; equal ones by id, so results do not depend on the order rows were read in. */
function better(similarity: number, id: string, otherSimilarity: number, otherId: string): boolean {
  return similarity > otherSimilarity || (similarity === otherSimilarity && id < otherId);
}

/** Packs the vectors into one matrix; each entry then views its row, so the memory is not held twice. */
function pack(vectors: UserVectors): NonNullable<UserVectors['packed']> {
  const ids: string[] = [];
  const kinds: string[] = [];
  const { dimensions } = vectors;
  const matrix = new Float32Array(vectors.entries.size * dimensions);
  for (const [id, entry] of vectors.entries) {
    const offset = ids.length * dimensions;
    matrix.set(entry.vector, offset);
    entry.vector = matrix.subarray(offset, offset + dimensions);
    ids.push(id);
    kinds.push(entry.kind);
  }
  return { ids, kinds, matrix };
}

function normalised(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum) || 1;
  for (let index = 0; index < vector.length; index += 1) vector[index]! /= norm;
  return vector;
}
