import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../../src/db/database.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * Issue 31 item 6: a transaction that finds every pooled connection busy waits for one for
 * DATABASE_CONNECTION_WAIT_MS (default 60 s) instead of Prisma's 2 s, after which a turn
 * failed and ran again (a second model call). Here the pool's only connection is busy for 3 s.
 */
describe('a transaction waiting for a pooled connection', () => {
  let test: TestDatabase;
  const opened: Database[] = [];

  beforeAll(async () => {
    test = await createTestDatabase(1);
  });
  afterAll(async () => {
    for (const database of opened) await database.close();
    await test.drop();
  });

  async function transactionWhilePoolBusy(connectionWaitMs?: number): Promise<'committed' | string> {
    const database = connectDatabase(test.url, 1, async () => {}, connectionWaitMs);
    opened.push(database);
    const busy = database.pool.query('SELECT pg_sleep(3)');
    // The sleep holds the one connection before the transaction asks for it.
    while (database.pool.idleCount > 0 || database.pool.totalCount === 0) await new Promise((resolve) => setImmediate(resolve));
    try {
      await database.prisma.$transaction(async (transaction) => transaction.$queryRaw`SELECT 1`);
      return 'committed';
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    } finally {
      await busy;
    }
  }

  it('waits its turn by default', async () => {
    expect(await transactionWhilePoolBusy()).toBe('committed');
  });

  it('fails after Prisma\'s old 2 s wait, which is what turns ran into', async () => {
    expect(await transactionWhilePoolBusy(2_000)).toMatch(/Unable to start a transaction in the given time/);
  });
});
