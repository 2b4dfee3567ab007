import type { Prisma } from '../generated/prisma/client.js';
import type { SqlExecutor } from './job-queue.js';

/**
 * Lets the job queue write its job through an open Prisma transaction, so the job and
 * the rows that need it commit (or roll back) together.
 */
export function prismaSqlExecutor(transaction: Prisma.TransactionClient): SqlExecutor {
  return {
    async executeSql(text, values) {
      const rows = await transaction.$queryRawUnsafe<unknown[]>(text, ...values);
      return { rows };
    },
  };
}
