import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Logger } from '../logging/logger.js';

/**
 * The advisory lock `prisma migrate deploy` takes. Using the same key means Herald's
 * migrator and Prisma's never run at the same time against one database.
 */
export const PRISMA_MIGRATE_LOCK_KEY = 72707369;

/** prisma/migrations, found from this file whether it runs from src/ or dist/. */
export const defaultMigrationsDirectory = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

/** One migration folder on disk. */
export interface MigrationFile {
  name: string;
  sql: string;
  /** SHA-256 of the file, hex: what Prisma stores in `_prisma_migrations.checksum`. */
  checksum: string;
}

/** What a migration run did. */
export interface MigrationReport {
  applied: string[];
  alreadyApplied: string[];
}

// Prisma's own table, column for column, so `prisma migrate status/deploy` accept it.
const createMigrationsTable = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/** Reads the migration folders in name (timestamp) order. */
export async function readMigrations(directory = defaultMigrationsDirectory): Promise<MigrationFile[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const names = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  const migrations: MigrationFile[] = [];
  for (const name of names) {
    const file = path.join(directory, name, 'migration.sql');
    if (!existsSync(file)) continue;
    const sql = await readFile(file, 'utf8');
    migrations.push({ name, sql, checksum: createHash('sha256').update(sql).digest('hex') });
  }
  return migrations;
}

/**
 * Applies every migration not yet recorded, each in its own transaction, under Prisma's
 * migration advisory lock so that instances starting together take turns. Recorded rows
 * look exactly like those `prisma migrate deploy` writes.
 */
export async function applyMigrations(
  connectionString: string,
  logger: Logger,
  directory = defaultMigrationsDirectory,
): Promise<MigrationReport> {
  const migrations = await readMigrations(directory);
  // A dedicated connection: the advisory lock belongs to the session that takes it.
  const client = new pg.Client({ connectionString });
  // A connection dropped mid-run (the server restarting) fails the query in progress; without
  // a listener the client's 'error' event would crash the process instead.
  client.on('error', (error) => logger.warn({ error: error.message }, 'migration connection lost'));
  await client.connect();
  const report: MigrationReport = { applied: [], alreadyApplied: [] };
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK_KEY]);
    await client.query(createMigrationsTable);
    const recorded = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"',
    );
    const failed = recorded.rows.filter((row) => row.finished_at === null && row.rolled_back_at === null);
    if (failed.length > 0) {
      throw new Error(
        `migration ${failed.map((row) => row.migration_name).join(', ')} failed earlier and is not resolved; ` +
          'fix the database, then mark it with `prisma migrate resolve`',
      );
    }
    const applied = new Map(
      recorded.rows.filter((row) => row.finished_at !== null && row.rolled_back_at === null).map((row) => [row.migration_name, row]),
    );
    for (const migration of migrations) {
      const existing = applied.get(migration.name);
      if (existing) {
        if (existing.checksum !== migration.checksum) {
          logger.warn({ migration: migration.name }, 'an applied migration was edited after it ran; its recorded checksum differs');
        }
        report.alreadyApplied.push(migration.name);
        continue;
      }
      await applyOne(client, migration);
      report.applied.push(migration.name);
      logger.info({ migration: migration.name }, 'migration applied');
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATE_LOCK_KEY]).catch(() => {});
    await client.end();
  }
  return report;
}

async function applyOne(client: pg.Client, migration: MigrationFile): Promise<void> {
  const id = randomUUID();
  await client.query('BEGIN');
  try {
    await client.query(
      'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
      [id, migration.checksum, migration.name],
    );
    await client.query(migration.sql);
    await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw new Error(`migration ${migration.name} failed and was rolled back: ${(error as Error).message}`, { cause: error });
  }
}
