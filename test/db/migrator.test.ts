import { createHash, randomUUID } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../src/logging/logger.js';
import { applyMigrations, defaultMigrationsDirectory, PRISMA_MIGRATE_LOCK_KEY } from '../../src/db/migrator.js';
import { capturingLogger } from '../helpers/herald-harness.js';
import { createEmptyDatabase } from '../helpers/test-database.js';
import { waitUntil } from './wait-until.js';

const logger = createSilentLogger();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BROKEN = '99990101000000_broken';

interface MigrationRow {
  id: string;
  checksum: string;
  finished_at: Date | null;
  migration_name: string;
  logs: string | null;
  rolled_back_at: Date | null;
  started_at: Date;
  applied_steps_count: number;
}

/** The migration folders on disk, in the order they apply, with the sha256 of each file's bytes. */
async function migrationsOnDisk(directory = defaultMigrationsDirectory): Promise<Array<{ name: string; checksum: string }>> {
  const entries = await readdir(directory, { withFileTypes: true });
  const names = entries.filter((entry) => entry.isDirectory() && existsSync(path.join(directory, entry.name, 'migration.sql')));
  const result = [];
  for (const name of names.map((entry) => entry.name).sort()) {
    const bytes = await readFile(path.join(directory, name, 'migration.sql'));
    result.push({ name, checksum: createHash('sha256').update(bytes).digest('hex') });
  }
  return result;
}

describe('applyMigrations', () => {
  let database: { url: string; drop: () => Promise<void> };
  let client: pg.Client;
  let temporary: string | undefined;

  beforeEach(async () => {
    database = await createEmptyDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });

  afterEach(async () => {
    await client.end().catch(() => {});
    await database.drop();
    if (temporary) await rm(temporary, { recursive: true, force: true });
    temporary = undefined;
  });

  const rows = async () =>
    (await client.query<MigrationRow>('SELECT * FROM "_prisma_migrations" ORDER BY started_at, migration_name')).rows;

  const tableExists = async (name: string) =>
    (await client.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [`public."${name}"`])).rows[0]!.exists;

  /** A copy of the real migrations in a temp directory, plus `extra` folders. */
  async function migrationsWith(extra: Record<string, string>): Promise<string> {
    temporary = await mkdtemp(path.join(tmpdir(), 'herald-migrations-'));
    await cp(defaultMigrationsDirectory, temporary, { recursive: true });
    for (const [name, sql] of Object.entries(extra)) {
      await mkdir(path.join(temporary, name), { recursive: true });
      await writeFile(path.join(temporary, name, 'migration.sql'), sql);
    }
    return temporary;
  }

  it('applies every migration to an empty database and records each as prisma migrate deploy does', async () => {
    const onDisk = await migrationsOnDisk();
    expect(onDisk.length).toBeGreaterThan(0);

    const report = await applyMigrations(database.url, logger);

    expect(report).toEqual({ applied: onDisk.map((migration) => migration.name), alreadyApplied: [] });
    expect(await tableExists('User')).toBe(true);
    expect(await tableExists('Message')).toBe(true);

    const recorded = await rows();
    expect(recorded.map((row) => row.migration_name).sort()).toEqual(onDisk.map((migration) => migration.name));
    for (const row of recorded) {
      const file = onDisk.find((migration) => migration.name === row.migration_name)!;
      expect(row.id).toMatch(UUID);
      expect(row.checksum).toBe(file.checksum);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.finished_at!.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
      expect(row.applied_steps_count).toBe(1);
      expect(row.rolled_back_at).toBeNull();
      expect(row.logs).toBeNull();
    }
    expect(new Set(recorded.map((row) => row.id)).size).toBe(recorded.length);
  });

  it("creates _prisma_migrations exactly as Prisma defines it", async () => {
    await applyMigrations(database.url, logger);

    const columns = await client.query<{ column_name: string; type: string; not_null: boolean; default: string | null }>(
      `SELECT a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
              pg_get_expr(d.adbin, d.adrelid) AS default
         FROM pg_attribute a
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = 'public."_prisma_migrations"'::regclass AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum`,
    );
    // prisma-engines, schema-engine/connectors/sql-schema-connector (Postgres flavour).
    expect(columns.rows).toEqual([
      { column_name: 'id', type: 'character varying(36)', not_null: true, default: null },
      { column_name: 'checksum', type: 'character varying(64)', not_null: true, default: null },
      { column_name: 'finished_at', type: 'timestamp with time zone', not_null: false, default: null },
      { column_name: 'migration_name', type: 'character varying(255)', not_null: true, default: null },
      { column_name: 'logs', type: 'text', not_null: false, default: null },
      { column_name: 'rolled_back_at', type: 'timestamp with time zone', not_null: false, default: null },
      { column_name: 'started_at', type: 'timestamp with time zone', not_null: true, default: 'now()' },
      { column_name: 'applied_steps_count', type: 'integer', not_null: true, default: '0' },
    ]);
    const primaryKey = await client.query<{ column: string }>(
      `SELECT a.attname AS column
         FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
        WHERE i.indrelid = 'public."_prisma_migrations"'::regclass AND i.indisprimary`,
    );
    expect(primaryKey.rows).toEqual([{ column: 'id' }]);
  });

  it('applies nothing on a second run and leaves the records untouched', async () => {
    const first = await applyMigrations(database.url, logger);
    const before = await rows();

    const second = await applyMigrations(database.url, logger);

    expect(second).toEqual({ applied: [], alreadyApplied: first.applied });
    expect(await rows()).toEqual(before);
  });

  it('lets concurrent runs on one fresh database take turns: all succeed, each migration recorded once', async () => {
    const names = (await migrationsOnDisk()).map((migration) => migration.name);

    const reports = await Promise.all([1, 2, 3, 4].map(() => applyMigrations(database.url, logger)));

    // Exactly one run applied each migration; the others found it already applied.
    for (const name of names) {
      expect(reports.filter((report) => report.applied.includes(name))).toHaveLength(1);
      expect(reports.filter((report) => report.alreadyApplied.includes(name))).toHaveLength(3);
    }
    const counts = await client.query<{ migration_name: string; count: string }>(
      'SELECT migration_name, count(*) FROM "_prisma_migrations" GROUP BY migration_name ORDER BY migration_name',
    );
    expect(counts.rows).toEqual(names.map((name) => ({ migration_name: name, count: '1' })));
  });

  it("waits for Prisma's migration advisory lock, so it never runs alongside prisma migrate deploy", async () => {
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK_KEY]);
      const run = applyMigrations(database.url, logger);
      let settled = false;
      void run.then(
        () => (settled = true),
        () => (settled = true),
      );

      // The run is now blocked on exactly that lock (a bigint key: objid holds its low 32 bits).
      await waitUntil(async () => {
        const waiting = await client.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = 0 AND objid = $1 AND objsubid = 1`,
          [PRISMA_MIGRATE_LOCK_KEY],
        );
        return waiting.rowCount === 1;
      }, 'a migration run waiting for the advisory lock');
      expect(settled).toBe(false);
      expect(await tableExists('_prisma_migrations')).toBe(false);

      await holder.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATE_LOCK_KEY]);
      const report = await run;
      expect(report.applied.length).toBeGreaterThan(0);
    } finally {
      await holder.end();
    }
  });

  it('rolls a failing migration back completely, names it, records no row, and leaves earlier ones applied', async () => {
    const directory = await migrationsWith({
      [BROKEN]: 'CREATE TABLE "HalfDone" ("id" INTEGER NOT NULL);\nINSERT INTO "HalfDone" VALUES (1);\nSELECT * FROM "this_table_does_not_exist";\n',
    });
    const real = (await migrationsOnDisk()).map((migration) => migration.name);

    const failure = await applyMigrations(database.url, logger, directory).then(
      () => undefined,
      (error: unknown) => error as Error,
    );

    expect(failure).toBeInstanceOf(Error);
    expect(failure!.message).toContain(BROKEN);
    expect(failure!.message).toMatch(/rolled back/);
    expect(failure!.message).toMatch(/this_table_does_not_exist/);
    expect(await tableExists('HalfDone')).toBe(false);
    const recorded = await rows();
    expect(recorded.map((row) => row.migration_name).sort()).toEqual(real);
    expect(recorded.every((row) => row.finished_at !== null)).toBe(true);

    // Nothing is left half-recorded, so the next run simply tries again (and fails the same way)…
    await expect(applyMigrations(database.url, logger, directory)).rejects.toThrow(BROKEN);
    // …and once the file is fixed, it applies.
    await writeFile(path.join(directory, BROKEN, 'migration.sql'), 'CREATE TABLE "HalfDone" ("id" INTEGER NOT NULL);\n');
    const report = await applyMigrations(database.url, logger, directory);
    expect(report).toEqual({ applied: [BROKEN], alreadyApplied: real });
    expect(await tableExists('HalfDone')).toBe(true);
  });

  it('refuses to run while a failed migration is unresolved, pointing at prisma migrate resolve', async () => {
    await applyMigrations(database.url, logger);
    const failedName = '20990101000000_failed_elsewhere';
    // What `prisma migrate deploy` leaves behind when a migration fails: started, never finished.
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, logs, started_at, applied_steps_count)
       VALUES ($1, $2, $3, 'ERROR: boom', now(), 0)`,
      [randomUUID(), '0'.repeat(64), failedName],
    );

    const failure = await applyMigrations(database.url, logger).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toContain(failedName);
    expect(failure?.message).toContain('prisma migrate resolve');

    // `prisma migrate resolve --rolled-back` sets rolled_back_at; then runs proceed again.
    await client.query('UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = $1', [failedName]);
    await expect(applyMigrations(database.url, logger)).resolves.toMatchObject({ applied: [] });
  });

  it('re-applies a migration that was marked rolled back, keeping the old row as history', async () => {
    const directory = await migrationsWith({ [BROKEN]: 'CREATE TABLE "Retried" ("id" INTEGER);\n' });
    await applyMigrations(database.url, logger);
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, rolled_back_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), now(), 0)`,
      [randomUUID(), '0'.repeat(64), BROKEN],
    );

    const report = await applyMigrations(database.url, logger, directory);

    expect(report.applied).toEqual([BROKEN]);
    const history = (await rows()).filter((row) => row.migration_name === BROKEN);
    expect(history).toHaveLength(2);
    expect(history.filter((row) => row.finished_at !== null && row.rolled_back_at === null)).toHaveLength(1);
  });

  it('warns, without re-applying, when an applied migration was edited afterwards', async () => {
    const directory = await migrationsWith({});
    await applyMigrations(database.url, logger, directory);
    const [first] = await migrationsOnDisk(directory);
    await writeFile(path.join(directory, first!.name, 'migration.sql'), '-- edited after it ran\n', { flag: 'a' });
    const { logger: capturing, logs } = capturingLogger('info');

    const report = await applyMigrations(database.url, capturing, directory);

    expect(report.applied).toEqual([]);
    const warning = logs.lines.find((line) => line.level === 40);
    expect(warning).toMatchObject({ migration: first!.name });
    expect(warning?.msg).toMatch(/checksum differs/);
  });

  it('fails clearly when the database cannot be reached, without hanging', async () => {
    const url = new URL(database.url);
    url.pathname = '/herald_database_that_does_not_exist';
    await expect(applyMigrations(url.toString(), logger)).rejects.toThrow(/does not exist/);
  });
});
