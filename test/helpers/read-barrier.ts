import type { PrismaClient } from '../../src/db/prisma-types.js';
import { registerWait } from '../fakes/fake-failures.js';

/**
 * A Prisma client whose reads of one model (`findFirst`, `findMany`…) wait until `parties`
 * of them have completed, then all go on together: the worst interleaving of racing callers
 * made certain. Two answers that both read a row as "pending" before either claims it is
 * the race an atomic claim must win; without the barrier, which interleaving a test gets
 * is luck (and the per-user lease of a real turn hides it altogether).
 *
 * Only the first `parties` reads meet at the barrier; later ones pass straight through.
 */
export function withReadBarrier(
  prisma: PrismaClient,
  model: string,
  operation: 'findFirst' | 'findMany' | 'findUnique',
  parties: number,
): PrismaClient {
  let arrived = 0;
  let release!: () => void;
  const together = new Promise<void>((resolve) => (release = resolve));
  // The model is chosen at run time, which Prisma's extension types cannot follow.
  const extension = {
    query: {
      [model]: {
        async [operation]({ args, query }: { args: unknown; query: (args: unknown) => Promise<unknown> }) {
          const result = await query(args);
          if (arrived >= parties) return result;
          arrived += 1;
          if (arrived === 1) {
            // Named if the test times out here: the other callers never read (something serialised them).
            const unregister = registerWait(together, () => `${parties} concurrent ${model}.${operation} reads: ${arrived} arrived`);
            void together.then(unregister);
          }
          if (arrived === parties) release();
          await together;
          return result;
        },
      },
    },
  } as unknown as Parameters<PrismaClient['$extends']>[0];
  return prisma.$extends(extension) as unknown as PrismaClient;
}
