import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { QueryProfile } from './target-protocol.js';

type Callback = (...args: unknown[]) => void;

/**
 * Instruments a pg.Pool in place (benchmark processes only): times every wait for a
 * pooled connection and every query round trip, grouped by statement kind. Prisma's pg
 * adapter and pg-boss both go through the pool, so this sees every statement Herald sends.
 * Costs two performance.now() calls per query; off unless --profile is given.
 */
export class PoolProfiler {
  private acquire = { count: 0, totalMs: 0, maxMs: 0 };
  private queries = new Map<string, { count: number; totalMs: number; maxMs: number }>();

  constructor(pool: pg.Pool) {
    const originalConnect = pool.connect.bind(pool) as (callback?: Callback) => unknown;
    (pool as unknown as { connect: (callback?: Callback) => unknown }).connect = (callback?: Callback) => {
      const started = performance.now();
      if (typeof callback === 'function') {
        return originalConnect((...args: unknown[]) => {
          this.recordAcquire(performance.now() - started);
          callback(...args);
        });
      }
      return (originalConnect() as Promise<pg.PoolClient>).then((client) => {
        this.recordAcquire(performance.now() - started);
        return client;
      });
    };
    pool.on('connect', (client) => this.instrumentClient(client));
  }

  reset(): void {
    this.acquire = { count: 0, totalMs: 0, maxMs: 0 };
    this.queries.clear();
  }

  snapshot(): QueryProfile {
    return { acquire: { ...this.acquire }, queries: Object.fromEntries([...this.queries].map(([kind, stats]) => [kind, { ...stats }])) };
  }

  private recordAcquire(ms: number): void {
    this.acquire.count += 1;
    this.acquire.totalMs += ms;
    this.acquire.maxMs = Math.max(this.acquire.maxMs, ms);
  }

  private recordQuery(text: string, ms: number): void {
    const kind = statementKind(text);
    const stats = this.queries.get(kind) ?? { count: 0, totalMs: 0, maxMs: 0 };
    stats.count += 1;
    stats.totalMs += ms;
    stats.maxMs = Math.max(stats.maxMs, ms);
    this.queries.set(kind, stats);
  }

  private instrumentClient(client: pg.PoolClient): void {
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0] as string | { text?: string; submit?: unknown } | undefined;
      // Submittables (cursors, streams) are passed through untimed.
      if (typeof first === 'object' && first !== null && typeof first.submit === 'function') return original(...args);
      const text = typeof first === 'string' ? first : (first?.text ?? '');
      const started = performance.now();
      const last = args[args.length - 1];
      if (typeof last === 'function') {
        args[args.length - 1] = (...callbackArgs: unknown[]) => {
          this.recordQuery(text, performance.now() - started);
          (last as Callback)(...callbackArgs);
        };
        return original(...args);
      }
      const result = original(...args) as Promise<unknown>;
      return result.then(
        (value) => {
          this.recordQuery(text, performance.now() - started);
          return value;
        },
        (error: unknown) => {
          this.recordQuery(text, performance.now() - started);
          throw error;
        },
      );
    };
  }
}

/** "INSERT Message", "UPDATE InboundDedupe", "BEGIN"…: the verb and the first table named. */
function statementKind(text: string): string {
  const sql = text.replace(/\s+/g, ' ').trim();
  const verb = (/^\w+/.exec(sql)?.[0] ?? '?').toUpperCase();
  const table = (name: string | undefined) => (name ?? '?').replace(/"/g, '').replace(/^public\./, '');
  const identifier = String.raw`((?:"[^"]+"|\w+)(?:\.(?:"[^"]+"|\w+))?)`;
  switch (verb) {
    case 'INSERT': {
      const target = table(new RegExp(`^INSERT INTO ${identifier}`, 'i').exec(sql)?.[1]);
      const upsert = /ON CONFLICT \([^)]*\) DO UPDATE/i.test(sql) ? ' (upsert)' : / ON CONFLICT DO NOTHING/i.test(sql) ? ' (on conflict do nothing)' : '';
      return `INSERT ${target}${upsert}`;
    }
    case 'UPDATE':
      return `UPDATE ${table(new RegExp(`^UPDATE ${identifier}`, 'i').exec(sql)?.[1])}`;
    case 'DELETE':
      return `DELETE ${table(new RegExp(`^DELETE FROM ${identifier}`, 'i').exec(sql)?.[1])}`;
    case 'SELECT':
    case 'WITH': {
      const from = new RegExp(`FROM ${identifier}`, 'i').exec(sql)?.[1];
      return `${verb} ${from ? table(from) : sql.slice(0, 40)}`;
    }
    default:
      return verb;
  }
}
