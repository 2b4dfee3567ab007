import type pg from 'pg';
import type { PrismaClient } from '../../src/db/prisma-types.js';
import { eventually } from './eventually.js';
import { waitingOnLocks } from './lock-race.js';

/** A Prisma client to build the service under test with, and the switch that makes its next reads race. */
export interface CreationBarrier {
  readonly prisma: PrismaClient;
  /** The next `parties` reads meet (see {@link creationBarrier}); until then, and after, reads pass straight through. */
  arm(parties: number): void;
}

/**
 * A Prisma client whose reads of one model (the `count` or find a creation checks its limit
 * with) wait, once armed and once they have read, until every one of the racing creators has
 * read too, or until those that have not are waiting on a lock. The worst interleaving for a
 * limit made certain: creators that count outside a lock all read the same count before any
 * of them writes, so 9 of 10 plus three at once ends at 12, every time; creators that count
 * under the user's lock go one by one (the first reads while the others wait on its lock),
 * and the barrier lets each through instead of deadlocking on them.
 */
export function creationBarrier(database: { prisma: PrismaClient; pool: pg.Pool }, model: string, operation: 'count' | 'findUnique' | 'findFirst' | 'findMany'): CreationBarrier {
  let parties = 0;
  let arrived = 0;
  // The model is chosen at run time, which Prisma's extension types cannot follow.
  const extension = {
    query: {
      [model]: {
        async [operation]({ args, query }: { args: unknown; query: (args: unknown) => Promise<unknown> }) {
          const result = await query(args);
          if (arrived >= parties) return result;
          arrived += 1;
          await eventually(
            async () => (arrived >= parties || (await waitingOnLocks(database.pool)) >= parties - arrived ? true : undefined),
            `${parties} racing ${model}.${operation} reads, or the rest waiting on a lock (${arrived} read)`,
            10,
          );
          return result;
        },
      },
    },
  } as unknown as Parameters<PrismaClient['$extends']>[0];
  return {
    prisma: database.prisma.$extends(extension) as unknown as PrismaClient,
    arm(count: number) {
      parties = count;
      arrived = 0;
    },
  };
}
