/**
 * Benchmark target: the real Herald HTTP app (createHerald) on a fresh, migrated
 * database, with real Twilio signature verification, listening on 127.0.0.1:<random>.
 *
 * Only the job queue is started, not the turn workers: `herald.start()` would also start
 * TURN_CONCURRENCY workers that drain every stored message through the orchestrator (and
 * the recovery sweep), competing with the webhook path for the same two CPUs and the same
 * pool, and the benchmark measures the webhook path. The webhook's enqueue needs pg-boss's
 * schema and the `turn` queue row (pg-boss's INSERT joins the queue table: without the
 * row a job is silently not stored), so we do exactly what start() does for the queue:
 * `herald.queue.start([turnQueueDefinition(...)])`. `scheduler.wake()` after each accepted
 * message then finds no local workers and does nothing.
 *
 * Run by bench/webhook.ts in its own process; configuration arrives in the environment:
 *   BENCH_HERALD_ENV   JSON of the environment Herald's config is loaded from
 *   BENCH_TARGET_DATABASE_URL   the migrated database
 *   BENCH_PROFILE=1    time every pool wait and query (see pool-profiler.ts)
 */
import { connectDatabase } from '../../src/db/database.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/logging/logger.js';
import { UnconfiguredModel } from '../../src/model/unconfigured-model.js';
import type { MessageTransport } from '../../src/outbox/message-transport.js';
import { createHerald } from '../../src/runtime.js';
import { turnQueueDefinition } from '../../src/queue/turn-queue.js';
import { PoolProfiler } from '../support/pool-profiler.js';
import { failTarget, poolBusy, serveTargetProtocol, ServerTimer, type TargetEvent } from '../support/target-protocol.js';

/** No turn runs in this benchmark, so nothing is ever sent; if something tried, it must not reach a network. */
const refusingTransport: MessageTransport = {
  name: 'twilio',
  async send() {
    return { ok: false, retryable: false, message: 'the webhook benchmark sends nothing' };
  },
};

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_TARGET_DATABASE_URL;
  if (!databaseUrl) throw new Error('BENCH_TARGET_DATABASE_URL is not set');
  const config = loadConfig(JSON.parse(process.env.BENCH_HERALD_ENV ?? '{}') as Record<string, string>);
  const logger = createLogger({ level: config.logLevel });
  const database = connectDatabase(databaseUrl, config.database.poolSize);
  const profiler = process.env.BENCH_PROFILE === '1' ? new PoolProfiler(database.pool) : undefined;

  const herald = await createHerald({
    config,
    logger,
    database,
    model: new UnconfiguredModel(),
    transport: refusingTransport,
    recoveryIntervalMs: 0,
  });
  await herald.queue.start([turnQueueDefinition(config.limits.planTimeoutMs)]);

  const timer = new ServerTimer();
  timer.attach(herald.app.server);
  await herald.app.listen({ host: '127.0.0.1', port: 0 });
  const address = herald.app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('Herald is not listening on a TCP port');

  serveTargetProtocol({
    timer,
    databaseBusy: () => poolBusy(database.pool),
    ...(profiler ? { profile: profiler } : {}),
    async stop() {
      await herald.stop(0);
      await database.close();
    },
  });
  process.send?.({
    type: 'ready',
    port: address.port,
    pid: process.pid,
    details: { poolSize: config.database.poolSize },
  } satisfies TargetEvent);
}


main().catch(failTarget);
