/**
 * Benchmark target (experiment, not in the default run): Herald's HTTP app (buildApp, every
 * hook and check) with bench/experiments/sql-inbound-service.ts in place of InboundService:
 * the same transaction in four round trips on pg instead of nine through Prisma. Same
 * database schema and queue as Herald, so the same correctness checks apply.
 *
 * Configuration: BENCH_TARGET_DATABASE_URL (migrated), BENCH_HERALD_ENV (JSON environment),
 * BENCH_SQL_PREPARED=0 to send unnamed statements (parsed and planned every time) instead.
 */
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { connectDatabase } from '../../src/db/database.js';
import { createLogger } from '../../src/logging/logger.js';
import { JobQueue } from '../../src/queue/job-queue.js';
import { systemClock } from '../../src/shared/clock.js';
import { turnQueueDefinition } from '../../src/turns/turn-scheduler.js';
import { SqlInboundService } from '../experiments/sql-inbound-service.js';
import { failTarget, poolBusy, serveTargetProtocol, ServerTimer, type TargetEvent } from '../support/target-protocol.js';

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_TARGET_DATABASE_URL;
  if (!databaseUrl) throw new Error('BENCH_TARGET_DATABASE_URL is not set');
  const config = loadConfig(JSON.parse(process.env.BENCH_HERALD_ENV ?? '{}') as Record<string, string>);
  const logger = createLogger({ level: config.logLevel });
  const database = connectDatabase(databaseUrl, config.database.poolSize);
  const queue = new JobQueue(database.pool, logger.child({ component: 'queue' }));
  await queue.start([turnQueueDefinition(config.limits.planTimeoutMs)]);
  const prepared = process.env.BENCH_SQL_PREPARED !== '0';
  const inbound = new SqlInboundService(database.pool, queue, systemClock, config.defaultTimezone, prepared);
  const app = await buildApp({
    logger,
    http: config.http,
    twilioAuthToken: config.twilio.authToken,
    inbound,
    statusCallbacks: { applyStatusCallback: async () => 'ignored' },
    readiness: async () => ({ database: true, queue: true }),
  });

  const timer = new ServerTimer();
  timer.attach(app.server);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('not listening on a TCP port');

  serveTargetProtocol({
    timer,
    databaseBusy: () => poolBusy(database.pool),
    async stop() {
      await queue.stop(5_000);
      await app.close();
      await database.close();
    },
  });
  process.send?.({ type: 'ready', port: address.port, pid: process.pid } satisfies TargetEvent);
}

main().catch(failTarget);
