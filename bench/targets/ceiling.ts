/**
 * Benchmark target: the ceiling. The least a webhook handler on this stack can do: a
 * bare Fastify app with @fastify/formbody and one route that inserts one row (one
 * autocommit INSERT through a pg.Pool of Herald's pool size) and answers 200 with empty
 * TwiML. No signature check, no validation, no transaction, no ORM: whatever Herald
 * spends beyond this is the cost of its own work.
 *
 * Run by bench/webhook.ts in its own process; configuration arrives in the environment:
 *   BENCH_TARGET_DATABASE_URL   a database (the table is created here)
 *   BENCH_POOL_SIZE             the pool size (Herald's DATABASE_POOL_SIZE)
 */
import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import Fastify from 'fastify';
import pg from 'pg';
import { failTarget, poolBusy, serveTargetProtocol, ServerTimer, type TargetEvent } from '../support/target-protocol.js';

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_TARGET_DATABASE_URL;
  if (!databaseUrl) throw new Error('BENCH_TARGET_DATABASE_URL is not set');
  const poolSize = Number(process.env.BENCH_POOL_SIZE ?? 10);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize, idleTimeoutMillis: 30_000 });
  pool.on('error', () => {});
  await pool.query(
    'CREATE TABLE IF NOT EXISTS bench_ceiling (id uuid PRIMARY KEY, body text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
  );

  const app = Fastify({ logger: false });
  await app.register(formbody);
  app.post('/twilio/messages', async (request, reply) => {
    await pool.query('INSERT INTO bench_ceiling (id, body) VALUES ($1, $2)', [randomUUID(), JSON.stringify(request.body)]);
    return reply.code(200).type('text/xml').send(EMPTY_TWIML);
  });

  const timer = new ServerTimer();
  timer.attach(app.server);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('not listening on a TCP port');

  serveTargetProtocol({
    timer,
    databaseBusy: () => poolBusy(pool),
    async stop() {
      await app.close();
      await pool.end();
    },
  });
  process.send?.({ type: 'ready', port: address.port, pid: process.pid, details: { poolSize } } satisfies TargetEvent);
}

main().catch(failTarget);
