import type pg from 'pg';
import type { Logger } from '../logging/logger.js';
import { describeError } from '../shared/errors.js';

/** An extension Herald's search uses, and the schema its functions and operators live in. */
interface InstalledExtension {
  schema: string;
}

/** What the server lets search do beyond full-text search (which every Postgres has). */
export interface SearchCapabilities {
  /** pg_trgm: trigram similarity for typos and partial words. */
  trigram?: InstalledExtension | undefined;
  /** pgvector: vector distance in the index; without it embeddings are compared by herald_search.cosine. */
  vector?: InstalledExtension | undefined;
}

// Start-up work of every instance, serialised so two instances never race the same DDL.
const SEARCH_SETUP_LOCK = 'herald search setup';

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Makes what the server offers usable, and says what that is. pg_trgm (usually in contrib)
 * and pgvector (usually not installed) are each optional: where an extension is available
 * and Herald may create it, it is created and its index or column added to the search
 * index in the herald_search schema (outside Prisma's: schema.prisma describes only what
 * every server has); where not, search goes on without it. Nothing here fails start-up:
 * a refusal (no privilege to create extensions) is logged and that capability left off.
 */
export async function prepareSearch(pool: pg.Pool, logger: Logger, wanted: { trigram: boolean; vector: boolean } = { trigram: true, vector: true }): Promise<SearchCapabilities> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [SEARCH_SETUP_LOCK]);
    try {
      // btree_gin (contrib) lets a GIN index hold the user's id beside the words: full-text
      // search then reads one user's postings instead of every user's for each query word.
      const btreeGin = await ensureExtension(client, 'btree_gin', logger);
      if (btreeGin) {
        await client.query('CREATE INDEX IF NOT EXISTS document_user_tsv_idx ON herald_search.document USING GIN (user_id, tsv)');
        await client.query('DROP INDEX IF EXISTS herald_search.document_tsv_idx');
      }
      const trigram = wanted.trigram ? await ensureExtension(client, 'pg_trgm', logger) : undefined;
      if (trigram) {
        const ops = `${quoteIdent(trigram.schema)}.gin_trgm_ops`;
        // Typos are looked up in the vocabulary below, no longer in the documents' text: the
        // index earlier versions made there only slowed every write.
        await client.query('DROP INDEX IF EXISTS herald_search.document_text_trgm_idx');
        // The vocabulary's index: with btree_gin the user's id is a key of the same index, so a
        // lookup reads one user's words however many users the deployment has; without it,
        // trigram candidates of every user are intersected with the user's key range.
        await client.query(
          btreeGin
            ? `CREATE INDEX IF NOT EXISTS word_user_trgm_idx ON herald_search.word USING GIN (user_id, word ${ops})`
            : `CREATE INDEX IF NOT EXISTS word_trgm_idx ON herald_search.word USING GIN (word ${ops})`,
        );
      }
      let vector = wanted.vector ? await ensureExtension(client, 'vector', logger) : undefined;
      if (vector) {
        // Generated from the stored array, so every writer (and the trigger that drops a stale
        // embedding) keeps it right without knowing pgvector is there.
        const type = `${quoteIdent(vector.schema)}.vector`;
        try {
          await client.query(`ALTER TABLE herald_search.document ADD COLUMN IF NOT EXISTS embedding_vector ${type} GENERATED ALWAYS AS (embedding::${type}) STORED`);
        } catch (error) {
          logger.warn({ error: describeError(error) }, 'pgvector is installed but the vector column could not be added; embeddings are compared without it');
          vector = undefined;
        }
      }
      logger.info({ trigram: Boolean(trigram), pgvector: Boolean(vector), btreeGin: Boolean(btreeGin) }, 'search capabilities');
      return { trigram, vector };
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [SEARCH_SETUP_LOCK]).catch(() => {});
    }
  } finally {
    client.release();
  }
}

async function ensureExtension(client: pg.PoolClient, name: string, logger: Logger): Promise<InstalledExtension | undefined> {
  const installed = await installedSchema(client, name);
  if (installed) return { schema: installed };
  const available = await client.query('SELECT 1 FROM pg_available_extensions WHERE name = $1', [name]);
  if (available.rowCount === 0) {
    logger.info({ extension: name }, 'extension not available on this server; search goes on without it');
    return undefined;
  }
  try {
    await client.query(`CREATE EXTENSION IF NOT EXISTS ${quoteIdent(name)}`);
  } catch (error) {
    logger.warn({ extension: name, error: describeError(error) }, 'could not create the extension (ask the database owner to run CREATE EXTENSION); search goes on without it');
    return undefined;
  }
  const schema = await installedSchema(client, name);
  return schema ? { schema } : undefined;
}

async function installedSchema(client: pg.PoolClient, name: string): Promise<string | undefined> {
  const { rows } = await client.query<{ schema: string }>('SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = $1', [name]);
  return rows[0]?.schema;
}
