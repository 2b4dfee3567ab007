import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

/** The Prisma client, or a transaction opened from it: services accept either. */
export type PrismaExecutor = PrismaClient | Prisma.TransactionClient;

export type { PrismaClient };
