import type { PrismaClient } from '../db/prisma-types.js';
import type { Prisma } from '../generated/prisma/client.js';

/** The outcome of trying to take a user's turn lease. */
export type LeaseAttempt = { acquired: true } | { acquired: false; heldUntil: Date; userGone?: boolean };

/**
 * Per-user leases, so that one user's turns run one at a time across every instance.
 * A lease is a row-level compare-and-set on the user (owner + expiry in database time),
 * so it needs no held connection, and a crashed holder's lease simply lapses.
 */
export class TurnLeases {
  constructor(private readonly prisma: PrismaClient) {}

  /** Takes the lease for `durationMs` unless another owner holds an unexpired one. */
  async acquire(userId: string, owner: string, durationMs: number): Promise<LeaseAttempt> {
    // Database time, not the injected clock: leases must agree across instances.
    const taken = await this.prisma.$executeRaw`
      UPDATE "User"
         SET "turnLeaseOwner" = ${owner},
             "turnLeaseUntil" = (now() AT TIME ZONE 'UTC') + make_interval(secs => ${durationMs / 1000})
       WHERE id = ${userId}::uuid
         AND ("turnLeaseUntil" IS NULL OR "turnLeaseUntil" < (now() AT TIME ZONE 'UTC') OR "turnLeaseOwner" = ${owner})`;
    if (taken === 1) return { acquired: true };
    const user = await this.prisma.user.findUnique({ where: { id: userId }, select: { turnLeaseUntil: true } });
    // No such user (erased by DELETE MY DATA): nobody will ever hold this lease again.
    if (!user) return { acquired: false, heldUntil: new Date(), userGone: true };
    return { acquired: false, heldUntil: user.turnLeaseUntil ?? new Date() };
  }

  /**
   * Extends the lease inside the transaction that commits a turn's outcome, and locks the
   * user's row until it commits: the fence that keeps a holder which stalled past its
   * lease (and was taken over) from committing a second answer. False when `owner` no
   * longer holds it.
   */
  async confirm(transaction: Prisma.TransactionClient, userId: string, owner: string, durationMs: number): Promise<boolean> {
    const kept = await transaction.$executeRaw`
      UPDATE "User"
         SET "turnLeaseUntil" = (now() AT TIME ZONE 'UTC') + make_interval(secs => ${durationMs / 1000})
       WHERE id = ${userId}::uuid AND "turnLeaseOwner" = ${owner}`;
    return kept === 1;
  }

  /** Gives the lease up, if `owner` still holds it. */
  async release(userId: string, owner: string): Promise<void> {
    await this.prisma.user.updateMany({
      where: { id: userId, turnLeaseOwner: owner },
      data: { turnLeaseOwner: null, turnLeaseUntil: null },
    });
  }
}
