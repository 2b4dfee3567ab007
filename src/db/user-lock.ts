import type { Prisma } from '../generated/prisma/client.js';

/**
 * The kinds of row a user may keep only so many of, each with its own lock (a note being
 * saved never waits for a contacts import). The names are the keys' prefixes: `note` and
 * `contacts` are the ones those services took before this helper existed, so instances of
 * both versions running side by side still exclude each other.
 */
type CappedKind = 'note' | 'contacts' | 'routine' | 'reminder' | 'list';

/**
 * Takes the user's transaction-scoped advisory lock for one kind of capped row. A service
 * that counts a user's rows against a limit and then creates one calls this first, inside
 * the same transaction: the next creator of that user waits here until this transaction
 * commits, then counts what it wrote, so creations made at once (the planner runs up to
 * three steps together; a user can text twice) can never pass the limit together. Under
 * READ COMMITTED each statement after the lock sees every commit made before it.
 *
 * Take one kind per transaction (two kinds in two orders could deadlock); the lock is
 * released by the commit or rollback, never by hand.
 */
export async function lockUserRows(transaction: Prisma.TransactionClient, kind: CappedKind, userId: string): Promise<void> {
  await transaction.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`${kind}:${userId}`}, 0))`;
}
