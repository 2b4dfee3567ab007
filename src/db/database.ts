import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import type { Logger } from '../logging/logger.js';
import { startEmbeddedPostgres, type EmbeddedDatabaseServer } from './embedded-postgres.js';
import { applyMigrations } from './migrator.js';
import { waitForDatabase } from './wait-for-database.js';

/** Herald's database handles: one pg pool shared by Prisma and the job queue. */
export interface Database {
  readonly url: string;
  readonly pool: pg.Pool;
  readonly prisma: PrismaClient;
  /** Closes the pool and stops an embedded server this process started. */
  close(): Promise<void>;
}

/** Where the database is and how to treat it. */
export interface DatabaseOptions {
  /** A Postgres URL; when absent an embedded server is started under `dataDir`. */
  url?: string | undefined;
  dataDir: string;
  poolSize: number;
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
  /** How long to wait for DATABASE_URL's server to accept connections (DATABASE_CONNECT_TIMEOUT_MS); 0 or absent: for as long as it takes. */
  connectTimeoutMs?: number;
  /** How long a transaction waits for a pooled connection (DATABASE_CONNECTION_WAIT_MS). */
  connectionWaitMs?: number;
}

const EMBEDDED_DATABASE_NAME = 'herald';

/**
 * Resolves the database (DATABASE_URL, or an embedded Postgres under DATA_DIR that persists
 * between runs), applies migrations under the migration lock, and opens the pool. DATABASE_URL's
 * server is waited for as long as it takes (unless DATABASE_CONNECT_TIMEOUT_MS says otherwise):
 * one that starts alongside the app, or is down, comes up (src/server.ts keeps webhooks in the
 * spool meanwhile).
 */
export async function openDatabase(options: DatabaseOptions, logger: Logger): Promise<Database> {
  let embedded: EmbeddedDatabaseServer | undefined;
  let url = options.url;
  if (!url) {
    embedded = await startEmbeddedPostgres(path.join(options.dataDir, 'postgres'), logger);
    url = await ensureDatabase(embedded.serverUrl, EMBEDDED_DATABASE_NAME);
  } else {
    await waitForDatabase(url, logger, { timeoutMs: options.connectTimeoutMs ?? 0 });
  }
  try {
    if (options.migrate !== false) await applyMigrations(url, logger);
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  return connectDatabase(url, options.poolSize, async () => await embedded?.stop(), options.connectionWaitMs);
}

/**
 * How long a command (`npm run db:migrate`, `npm run accounts`) waits for the database: the
 * configured time, or a minute where the server waits for ever: a person is waiting at the
 * terminal.
 */
export function commandWaitMs(configured: number): number {
  return configured > 0 ? configured : 60_000;
}

/** Opens the pool and Prisma client on an existing, migrated database. */
export function connectDatabase(url: string, poolSize: number, onClose: () => Promise<void> = async () => {}, connectionWaitMs = 60_000): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection (a database restart) must not crash the process;
  // the pool replaces it and the next query reports the failure where it can be handled.
  pool.on('error', () => {});
  // With every connection busy (a thousand turns committing at once), a transaction waits its
  // turn for one rather than failing after Prisma's default 2 s and running the turn again.
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool), transactionOptions: { maxWait: connectionWaitMs } });
  let closed = false;
  return {
    url,
    pool,
    prisma,
    async close() {
      if (closed) return;
      closed = true;
      await prisma.$disconnect().catch(() => {});
      await pool.end().catch(() => {});
      await onClose();
    },
  };
}

/**
 * A small pool of its own on `url`, for work that must not queue behind the shared pool's
 * (the turn-lease heartbeat: src/turns/lease-heartbeat.ts).
 */
export function sidePool(url: string, max = 1): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000 });
  pool.on('error', () => {});
  return pool;
}

/** Creates `name` on the server if missing; returns its URL. */
export async function ensureDatabase(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`).catch((error: { code?: string }) => {
        // Another process created it between our check and our create.
        if (error.code !== '42P04' && error.code !== '23505') throw error;
      });
    }
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
