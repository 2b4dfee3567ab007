import type pg from 'pg';
import type { Logger } from '../logging/logger.js';
import type { EmbeddingCostSink, EmbeddingIndexer } from './embedding-indexer.js';
import { allWordsQuery, anyWordQuery, exactWordsQuery, queryWords } from './query-words.js';
import { fuseRankings, type RankedList } from './rank-fusion.js';
import type { SearchCapabilities } from './search-capabilities.js';
import { VectorCache } from './vector-cache.js';

/** What search_memory looks through. */
export type MemoryKind = 'note' | 'fact';

/** How a hit was found: full-text search, trigram similarity, or embeddings. */
export type SearchLeg = 'text' | 'trigram' | 'meaning';

/** One result: a note or fact id, its fused score, and the legs that found it. */
interface SearchHit {
  kind: MemoryKind;
  id: string;
  score: number;
  foundBy: SearchLeg[];
}

/** A search's results and how it was done. */
export interface SearchOutcome {
  hits: SearchHit[];
  /** The legs that ran ("meaning" is missing when embeddings are off or failed). */
  legs: SearchLeg[];
  /** Set when embeddings are configured but could not be used this time. */
  degraded?: string;
}

/**
 * The text search configurations of the user's documents, as a CTE named `configs`: a skip
 * scan over (user_id, config), one index probe per configuration, instead of reading every
 * document of the user (11 ms for 10,000 notes; this is well under one).
 */
const USER_CONFIGS = `configs AS MATERIALIZED (
  WITH RECURSIVE found AS (
    (SELECT config FROM herald_search.document WHERE user_id = $1::uuid ORDER BY config LIMIT 1)
    UNION ALL
    SELECT (SELECT d.config FROM herald_search.document d WHERE d.user_id = $1::uuid AND d.config > found.config ORDER BY d.config LIMIT 1) FROM found WHERE found.config IS NOT NULL
  )
  SELECT config FROM found WHERE config IS NOT NULL
)`;

/** Candidates each leg hands to the fusion, per phrasing. */
const PER_LEG = 20;
/**
 * The meaning leg keeps only documents at least this close to the query, relative to the
 * closest one: every document has some cosine with every query, and a long tail of faint
 * ones would add to words-only matches in the fusion and push the real answer down.
 */
const MEANING_RELATIVE_FLOOR = 0.6;
/** Trigram similarity at which a word of the user's vocabulary counts as what a query word meant (pg_trgm's default is 0.6; typos need a little less). */
const WORD_SIMILARITY = 0.5;
/** Vocabulary words searched for each query word full-text search could not place (the closest first). */
const SIMILAR_WORDS = 3;
/**
 * Documents ranked per query, for each of "all the words" and "any of them": ranking reads
 * every candidate's words, so a query matching all of a user's 10,000 notes ("meeting on
 * Tuesday") would otherwise rank 10,000. The documents holding every word are taken first,
 * so what is cut off is among those holding only some.
 */
const RANKED_CANDIDATES = 1000;

/**
 * One retrieval for notes and facts (docs/ARCHITECTURE.md "Agents and tools": `search_memory`), always scoped to one user:
 * Postgres full-text search (each document stemmed with its own language's configuration;
 * the query parsed once per configuration the user's documents use), trigram similarity of
 * the query's words where pg_trgm is installed, and, when an embeddings service is
 * configured, cosine similarity of embeddings (pgvector's operator where the server has it,
 * otherwise the stored arrays compared in process, per user: {@link VectorCache}). Every phrasing runs every leg, and the
 * ranked lists are fused by reciprocal rank. When embeddings fail, the text legs still answer.
 */
export class MemorySearch {
  constructor(
    private readonly pool: pg.Pool,
    private readonly capabilities: SearchCapabilities,
    private readonly indexer: EmbeddingIndexer | undefined,
    private readonly logger: Logger,
    /** Where embeddings are compared without pgvector (in process, per user). */
    private readonly vectors = new VectorCache(pool),
  ) {}

  /** The legs this deployment runs when all is well. */
  get legs(): SearchLeg[] {
    return ['text', ...(this.capabilities.trigram ? (['trigram'] as const) : []), ...(this.indexer ? (['meaning'] as const) : [])];
  }

  /**
   * Searches `userId`'s memory with one or more phrasings of the same question. An empty
   * result is an answer (nothing matched), not an error.
   */
  async search(
    userId: string,
    phrasings: string[],
    options: { kinds?: MemoryKind[]; limit?: number; textOnly?: boolean; onCost?: EmbeddingCostSink; signal?: AbortSignal } = {},
  ): Promise<SearchOutcome> {
    const kinds = options.kinds ?? ['note', 'fact'];
    const limit = options.limit ?? 5;
    const cleaned = phrasings.map((phrasing) => phrasing.trim()).filter((phrasing) => queryWords(phrasing).length > 0);
    if (cleaned.length === 0) return { hits: [], legs: [] };

    const legs = new Set<SearchLeg>(['text']);
    const lists: RankedList[] = [];
    const found = new Map<string, Set<SearchLeg>>();
    const add = (leg: SearchLeg, rows: Array<{ id: string; kind: MemoryKind }>) => {
      lists.push(rows.map((row) => `${row.kind}:${row.id}`));
      for (const row of rows) {
        const key = `${row.kind}:${row.id}`;
        found.set(key, (found.get(key) ?? new Set()).add(leg));
      }
    };

    let queryVectors: number[][] | undefined;
    let degraded: string | undefined;
    if (this.indexer && !options.textOnly) {
      queryVectors = await this.indexer.embedWithPending(userId, cleaned, options.onCost, options.signal);
      if (!queryVectors) degraded = 'embeddings unavailable: searched by words only';
    }

    // A phrasing's legs run at once (each one or two queries on its own connection; phrasings
    // one after another, so a search holds at most three); their lists are fused in a fixed
    // order, so the result does not depend on which came back first.
    for (const [index, phrasing] of cleaned.entries()) {
      const words = queryWords(phrasing);
      const vector = queryVectors?.[index];
      const runs: Array<[SearchLeg, Promise<Array<{ id: string; kind: MemoryKind }>>]> = [['text', this.textLeg(userId, words, kinds)]];
      if (this.capabilities.trigram && !options.textOnly) runs.push(['trigram', this.trigramLeg(userId, words, kinds)]);
      if (vector) runs.push(['meaning', this.vectorLeg(userId, vector, kinds)]);
      const results = await Promise.all(runs.map(([, run]) => run));
      for (const [at, [leg]] of runs.entries()) {
        legs.add(leg);
        add(leg, results[at]!);
      }
    }

    const hits = fuseRankings(lists)
      .slice(0, limit)
      .map(({ key, score }) => {
        const [kind, id] = key.split(':') as [MemoryKind, string];
        return { kind, id, score: Math.round(score * 10_000) / 10_000, foundBy: [...(found.get(key) ?? [])] };
      });
    this.logger.debug({ userId, phrasings: cleaned.length, hits: hits.length, legs: [...legs] }, 'memory searched');
    return { hits, legs: [...legs], ...(degraded ? { degraded } : {}) };
  }

  /** Full-text search: any of the words (longer ones as prefixes), ranked by cover density. */
  private async textLeg(userId: string, words: string[], kinds: MemoryKind[]): Promise<Array<{ id: string; kind: MemoryKind }>> {
    return this.rankedDocuments(userId, anyWordQuery(words), words.length > 1 ? allWordsQuery(words) : undefined, kinds);
  }

  /**
   * Documents matching `any` (a to_tsquery expression, parsed once per configuration the
   * user's documents use), ranked by cover density among at most {@link RANKED_CANDIDATES}
   * holding every word (`all`) and as many holding any.
   */
  private async rankedDocuments(userId: string, any: string, all: string | undefined, kinds: MemoryKind[]): Promise<Array<{ id: string; kind: MemoryKind }>> {
    if (!any) return [];
    const candidates = (query: string) =>
      `(SELECT d.id, d.kind, d.tsv FROM herald_search.document d, query
         WHERE d.user_id = $1::uuid AND d.kind = ANY($3::text[]) AND d.tsv @@ query.${query} LIMIT $5)`;
    const { rows } = await this.pool.query<{ id: string; kind: MemoryKind }>(
      `WITH ${USER_CONFIGS},
       query AS (SELECT herald_search.tsquery_or_agg(to_tsquery(c.config, $2)) AS q${all ? ', herald_search.tsquery_or_agg(to_tsquery(c.config, $6)) AS q_all' : ''} FROM configs c)
       SELECT c.id, c.kind FROM (${all ? `${candidates('q_all')} UNION ALL ` : ''}${candidates('q')}) c, query
        GROUP BY c.id, c.kind
        ORDER BY max(ts_rank_cd(c.tsv, query.q, 1)) DESC, c.id LIMIT $4`,
      [userId, any, kinds, PER_LEG, RANKED_CANDIDATES, ...(all ? [all] : [])],
    );
    return rows;
  }

  /**
   * Trigram similarity, for the words full-text search cannot place: a query word (four
   * letters or more, not a stopword) that no word of the user's documents starts with, nor
   * with its stem, is a typo or a piece of a longer word ("resturant", "ויפי" inside
   * "הוויפי"). It is looked up in the user's vocabulary (`herald_search.word`, a few thousand
   * short words under a trigram index, not every document's text), and the closest words
   * found are searched by full-text search. Words the documents do contain are left to
   * full-text search: matching them again by trigrams would only repeat it.
   */
  private async trigramLeg(userId: string, words: string[], kinds: MemoryKind[]): Promise<Array<{ id: string; kind: MemoryKind }>> {
    const long = words.filter((word) => word.length >= 4);
    if (long.length === 0) return [];
    const schema = `"${this.capabilities.trigram!.schema.replaceAll('"', '""')}"`;
    const client = await this.pool.connect();
    let similar: Array<{ w: string; word: string; similarity: number; documents: number }>;
    try {
      await client.query('BEGIN');
      await client.query(`SELECT set_config('pg_trgm.word_similarity_threshold', $1, true)`, [String(WORD_SIMILARITY)]);
      ({ rows: similar } = await client.query<{ w: string; word: string; similarity: number; documents: number }>(
        `WITH ${USER_CONFIGS},
         words AS (SELECT w FROM unnest($2::text[]) AS w
                    WHERE NOT EXISTS (SELECT 1 FROM configs c WHERE c.config <> 'simple'::regconfig AND to_tsvector(c.config, w) = ''::tsvector)),
         unplaced AS (SELECT w FROM words WHERE NOT EXISTS (
           SELECT 1 FROM (SELECT words.w AS form UNION SELECT s FROM configs c, unnest(tsvector_to_array(to_tsvector(c.config, words.w))) AS s) AS forms
            WHERE EXISTS (SELECT 1 FROM herald_search.word v
                           WHERE v.user_id = $1::uuid AND v.word >= forms.form COLLATE "C" AND v.word < (forms.form || chr(1114111)) COLLATE "C")))
         SELECT u.w, v.word, ${schema}.word_similarity(u.w, v.word) AS similarity, v.documents
           FROM unplaced u JOIN herald_search.word v ON u.w OPERATOR(${schema}.<%) v.word
          WHERE v.user_id = $1::uuid`,
        [userId, long],
      ));
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
    const meant = new Set<string>();
    for (const word of long) {
      similar
        .filter((row) => row.w === word)
        .sort((a, b) => b.similarity - a.similarity || b.documents - a.documents || a.word.localeCompare(b.word))
        .slice(0, SIMILAR_WORDS)
        .forEach((row) => meant.add(row.word));
    }
    return meant.size === 0 ? [] : this.rankedDocuments(userId, exactWordsQuery([...meant]), undefined, kinds);
  }

  /** Embedding similarity, under the current model only (another model's vectors are not comparable). */
  private async vectorLeg(userId: string, vector: number[], kinds: MemoryKind[]): Promise<Array<{ id: string; kind: MemoryKind }>> {
    const model = this.indexer!.client.model;
    let rows: Array<{ id: string; kind: MemoryKind; similarity: number }>;
    if (this.capabilities.vector) {
      const schema = `"${this.capabilities.vector.schema.replaceAll('"', '""')}"`;
      ({ rows } = await this.pool.query<{ id: string; kind: MemoryKind; similarity: number }>(
        `SELECT id, kind, 1 - (embedding_vector OPERATOR(${schema}.<=>) $2::real[]::${schema}.vector) AS similarity FROM herald_search.document
          WHERE user_id = $1::uuid AND kind = ANY($3::text[]) AND embedding_model = $4 AND cardinality(embedding) = $5
          ORDER BY embedding_vector OPERATOR(${schema}.<=>) $2::real[]::${schema}.vector, id LIMIT $6`,
        [userId, vector, kinds, model, vector.length, PER_LEG],
      ));
    } else {
      rows = (await this.vectors.nearest(userId, vector, model, kinds, PER_LEG)) as typeof rows;
    }
    const best = rows[0]?.similarity ?? 0;
    return best > 0 ? rows.filter((row) => row.similarity >= best * MEANING_RELATIVE_FLOOR).map(({ id, kind }) => ({ id, kind })) : [];
  }
}
