import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureDatabase } from '../../src/db/database.js';
import { startEmbeddedPostgres, type EmbeddedDatabaseServer } from '../../src/db/embedded-postgres.js';
import { applyMigrations } from '../../src/db/migrator.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import pg from 'pg';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the test Postgres server's maintenance database. */
    databaseServerUrl: string;
    /** Name of the migrated template each test database is cloned from. */
    templateDatabase: string;
  }
}

let embedded: EmbeddedDatabaseServer | undefined;
let temporaryDirectory: string | undefined;

/**
 * Provides the tests' Postgres: TEST_DATABASE_URL or DATABASE_URL when set (any server
 * the user may create databases on), otherwise a throwaway embedded server started by
 * the same code `npm start` uses. A template database is migrated once per run with
 * Herald's own migrator; every test file clones it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const logger = createSilentLogger();
  let serverUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!serverUrl) {
    // A throwaway cluster per run: concurrent runs never share (or stop) each other's server.
    temporaryDirectory = await mkdtemp(path.join(tmpdir(), 'herald-test-pg-'));
    embedded = await startEmbeddedPostgres(path.join(temporaryDirectory, 'data'), logger, { persistent: false });
    serverUrl = embedded.serverUrl;
  }
  const template = `herald_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${template}"`);
  await admin.end();
  const templateUrl = await ensureDatabase(serverUrl, template);
  await applyMigrations(templateUrl, logger);
  project.provide('databaseServerUrl', serverUrl);
  project.provide('templateDatabase', template);
  return async () => {
    const cleanup = new pg.Client({ connectionString: serverUrl });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`).catch(() => {});
    await cleanup.end();
    await embedded?.stop();
    if (temporaryDirectory) await rm(temporaryDirectory, { recursive: true, force: true });
  };
}
