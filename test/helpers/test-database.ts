import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { connectDatabase, type Database } from '../../src/db/database.js';

/** A fresh, migrated database for one test file (or test), dropped on close. */
export interface TestDatabase extends Database {
  readonly name: string;
  /** Drops the database (closing the pool first). */
  drop(): Promise<void>;
}

/** Clones the migrated template into a new database. Takes a few milliseconds. */
export async function createTestDatabase(poolSize = 10): Promise<TestDatabase> {
  const serverUrl = inject('databaseServerUrl');
  const template = inject('templateDatabase');
  const name = `herald_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await withAdmin(serverUrl, (client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = connectDatabase(url.toString(), poolSize);
  return {
    ...database,
    url: url.toString(),
    name,
    close: database.close,
    async drop() {
      await database.close();
      await withAdmin(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** URL of a brand-new empty database (for migrator tests); returns it and a drop function. */
export async function createEmptyDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const serverUrl = inject('databaseServerUrl');
  const name = `herald_empty_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await withAdmin(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withAdmin(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => {}),
  };
}

async function withAdmin<Result>(serverUrl: string, action: (client: pg.Client) => Promise<Result>): Promise<Result> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}
