import type pg from 'pg';
import type { ScrapeGauges } from './metrics.js';

/**
 * Jobs not yet finished, per queue and state. pg-boss 10 keeps them in `pgboss.job` until
 * archived; completed and cancelled ones are left out (they are history, not depth).
 */
const QUEUE_JOBS = `SELECT name AS queue, state::text AS state, count(*)::int AS count
FROM pgboss.job WHERE state IN ('created', 'retry', 'active', 'failed') GROUP BY name, state`;

/** Parts waiting to go out (the status index serves it). */
const OUTBOX_WAITING = `SELECT channel::text AS channel, count(*)::int AS count
FROM "OutboundMessage" WHERE status IN ('pending', 'dispatching') GROUP BY channel`;

/** The gauges Herald reads at scrape time (metrics.ts caches them for a few seconds). */
export function databaseGauges(pool: pg.Pool, turnsInFlight: () => number): ScrapeGauges {
  return {
    async queueJobs() {
      // Before pg-boss has created its schema there is no queue to report.
      const { rows } = await pool.query<{ queue: string; state: string; count: number }>(QUEUE_JOBS).catch(() => ({ rows: [] }));
      return rows;
    },
    async outboxWaiting() {
      const { rows } = await pool.query<{ channel: string; count: number }>(OUTBOX_WAITING);
      return rows;
    },
    turnsInFlight,
  };
}
