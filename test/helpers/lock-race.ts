import type pg from 'pg';
import type { Prisma } from '../../src/generated/prisma/client.js';
import type { PrismaClient } from '../../src/db/prisma-types.js';
import { eventually } from './eventually.js';

/** Long enough for any test: the held transaction must not be timed out by Prisma meanwhile. */
const HELD_TRANSACTION_MS = 10 * 60_000;

/**
 * Two writers of the same rows, made to overlap as badly as they can: `first` does its work
 * in a transaction that is then held open (not committed), `second` starts while it is, and
 * `first` commits only once `second` is either done or waiting on a lock (first's). So
 * `second` reads before `first` commits, whatever it does: a claim that is not atomic lets
 * both through. Resolves with both results.
 */
export async function raceAgainstOpenTransaction<First, Second>(
  database: { prisma: PrismaClient; pool: pg.Pool },
  first: (transaction: Prisma.TransactionClient) => Promise<First>,
  second: () => Promise<Second>,
): Promise<[First, Second]> {
  let commit!: () => void;
  const mayCommit = new Promise<void>((resolve) => (commit = resolve));
  let worked!: () => void;
  const firstWorked = new Promise<void>((resolve) => (worked = resolve));
  const held = database.prisma.$transaction(
    async (transaction) => {
      const result = await first(transaction);
      worked();
      await mayCommit;
      return result;
    },
    { timeout: HELD_TRANSACTION_MS, maxWait: HELD_TRANSACTION_MS },
  );
  // A first that fails must fail the test, not leave it waiting.
  await Promise.race([firstWorked, held]);
  let secondDone = false;
  const racing = second().finally(() => {
    secondDone = true;
  });
  racing.catch(() => undefined); // its failure is the caller's, from Promise.all below
  await eventually(async () => (secondDone || (await waitingOnLocks(database.pool)) > 0 ? true : undefined), 'the second writer to finish or to wait on the first one\'s lock');
  commit();
  return Promise.all([held, racing]);
}

/** How many connections to this test's database are waiting on a lock right now. */
export async function waitingOnLocks(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ count: number }>(`SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
  return rows[0]!.count;
}
