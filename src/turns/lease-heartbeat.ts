import type pg from 'pg';
import type { Logger } from '../logging/logger.js';
import { describeError } from '../shared/errors.js';

/** One lease the heartbeat keeps alive, and what to do if it turns out to be someone else's. */
interface HeldLease {
  userId: string;
  onLost: () => void;
}

/**
 * Renews every turn lease this instance holds, in one statement per beat, on a connection of
 * its own. Renewing each lease on its own timer through the shared pool does not survive load:
 * with a thousand turns in flight the renewals queue behind the turns' own queries, arrive after
 * the short lease lapsed, another instance takes the user over and the turn is run twice. One
 * statement per beat, on a connection nothing else waits for, arrives on time however busy the
 * pool is.
 */
export class LeaseHeartbeat {
  private readonly held = new Map<string, HeldLease>();
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;

  /**
   * @param pool a pool of its own (one connection is plenty), closed by `close()`
   * @param leaseMs how long a lease lasts without renewal; the heartbeat beats every third of it
   */
  constructor(
    private readonly pool: Pick<pg.Pool, 'query' | 'end'>,
    private readonly leaseMs: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Keeps `owner`'s lease on `userId` renewed until the returned function is called. `onLost`
   * runs (once) should a beat find that `owner` no longer holds it.
   */
  hold(userId: string, owner: string, onLost: () => void): () => void {
    let lost = false;
    this.held.set(owner, {
      userId,
      onLost: () => {
        if (lost) return;
        lost = true;
        onLost();
      },
    });
    this.timer ??= setInterval(() => this.tick(), Math.max(50, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
    return () => {
      this.held.delete(owner);
      if (this.held.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  /** Waits for the beat on its way, if any. */
  async settled(): Promise<void> {
    await this.beating;
  }

  /** Stops beating and closes the heartbeat's connection. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.held.clear();
    await this.beating;
    await this.pool.end().catch(() => {});
  }

  private tick(): void {
    // The last beat is still on its way (the database is slow or away): this one would only queue behind it.
    if (this.beating) return;
    this.beating = this.beat()
      .catch((error: unknown) => this.logger.warn({ error: describeError(error), leases: this.held.size }, 'could not renew the turn leases'))
      .finally(() => (this.beating = undefined));
  }

  private async beat(): Promise<void> {
    const leases = [...this.held.entries()];
    if (leases.length === 0) return;
    // Matched by primary key and owner: a lease released (owner cleared) or taken over since is
    // not renewed, and is reported lost only if it is still held here once the answer is in.
    const renewed = await this.pool.query<{ owner: string }>(
      `UPDATE "User" AS u
          SET "turnLeaseUntil" = (now() AT TIME ZONE 'UTC') + make_interval(secs => $3)
         FROM unnest($1::uuid[], $2::text[]) AS held(id, owner)
        WHERE u.id = held.id AND u."turnLeaseOwner" = held.owner
       RETURNING held.owner`,
      [leases.map(([, lease]) => lease.userId), leases.map(([owner]) => owner), this.leaseMs / 1000],
    );
    const kept = new Set(renewed.rows.map((row) => row.owner));
    for (const [owner] of leases) {
      if (!kept.has(owner)) this.held.get(owner)?.onLost();
    }
  }
}
