import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ensureDatabase } from '../../src/db/database.js';
import { startEmbeddedPostgres, type EmbeddedDatabaseServer } from '../../src/db/embedded-postgres.js';
import { applyMigrations } from '../../src/db/migrator.js';
import type { Logger } from '../../src/logging/logger.js';

/** A fresh database created for one benchmark target; dropped by {@link BenchPostgres.close}. */
export interface BenchDatabase {
  readonly name: string;
  readonly url: string;
}

/**
 * The Postgres server benchmarks run against: BENCH_DATABASE_URL or DATABASE_URL when set
 * (any server the user may create databases on; only databases this run creates are
 * touched and they are dropped afterwards), otherwise a throwaway embedded server started
 * by the same code `npm start` uses, deleted at the end.
 */
export class BenchPostgres {
  private readonly created: string[] = [];
  private closed = false;

  private constructor(
    /** URL of a database on the server that we may run CREATE/DROP DATABASE from. */
    readonly serverUrl: string,
    /** Human-readable: where the server is. */
    readonly description: string,
    private readonly embedded: EmbeddedDatabaseServer | undefined,
    private readonly temporaryDirectory: string | undefined,
    /** PID of the embedded server's postmaster (its backends are its children): for CPU accounting. */
    readonly postmasterPid: number | undefined = undefined,
  ) {}

  static async start(logger: Logger): Promise<BenchPostgres> {
    const external = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL;
    if (external) {
      const url = new URL(external);
      const variable = process.env.BENCH_DATABASE_URL ? 'BENCH_DATABASE_URL' : 'DATABASE_URL';
      return new BenchPostgres(external, `${variable} (${url.hostname}:${url.port || 5432})`, undefined, undefined);
    }
    const directory = await mkdtemp(path.join(tmpdir(), 'herald-bench-pg-'));
    try {
      const dataDirectory = path.join(directory, 'data');
      const embedded = await startEmbeddedPostgres(dataDirectory, logger, { persistent: false });
      const pidFile = await readFile(path.join(dataDirectory, 'postmaster.pid'), 'utf8').catch(() => '');
      const postmasterPid = Number(pidFile.split('\n')[0]) || undefined;
      return new BenchPostgres(embedded.serverUrl, `embedded throwaway server (127.0.0.1:${embedded.port})`, embedded, directory, postmasterPid);
    } catch (error) {
      await rm(directory, { recursive: true, force: true });
      throw error;
    }
  }

  /** Creates a brand-new empty database named `herald_bench_<label>_<random>`. */
  async createDatabase(label: string): Promise<BenchDatabase> {
    const name = `herald_bench_${label}_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
    this.created.push(name);
    const url = await ensureDatabase(this.serverUrl, name);
    return { name, url };
  }

  /** A fresh database with Herald's migrations applied (by Herald's own migrator). */
  async createMigratedDatabase(label: string, logger: Logger): Promise<BenchDatabase> {
    const database = await this.createDatabase(label);
    await applyMigrations(database.url, logger);
    return database;
  }

  /**
   * Flushes dirty pages so one target does not pay for the previous target's writes.
   * Needs superuser or pg_checkpoint; silently skipped when not allowed.
   */
  async checkpoint(): Promise<void> {
    await this.withAdmin((client) => client.query('CHECKPOINT')).catch(() => {});
  }

  /** Drops every database this run created and stops the embedded server, if any. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const name of this.created.splice(0)) {
      await this.withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(() => {});
    }
    await this.embedded?.stop();
    if (this.temporaryDirectory) await rm(this.temporaryDirectory, { recursive: true, force: true });
  }

  private async withAdmin<Result>(action: (client: pg.Client) => Promise<Result>): Promise<Result> {
    const client = new pg.Client({ connectionString: this.serverUrl });
    await client.connect();
    try {
      return await action(client);
    } finally {
      await client.end().catch(() => {});
    }
  }
}

/** Runs `action` with a short-lived client on `url`. */
export async function withClient<Result>(url: string, action: (client: pg.Client) => Promise<Result>): Promise<Result> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end().catch(() => {});
  }
}
