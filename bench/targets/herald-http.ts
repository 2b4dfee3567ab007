/**
 * Benchmark target (diagnostic, not in the default run): Herald's HTTP layer alone.
 * The same buildApp() createHerald uses (helmet, formbody, rate limiting, the route's
 * content-type check, signature verification, zod validation, logging), with a stub in
 * place of InboundService that answers "accepted" without touching a database. What it
 * costs is what Herald spends before and after its transaction; the rest of Herald's
 * cost is the transaction.
 *
 * Configuration: BENCH_HERALD_ENV (JSON of the environment Herald's config is loaded from).
 */
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/logging/logger.js';
import { failTarget, serveTargetProtocol, ServerTimer, type TargetEvent } from '../support/target-protocol.js';

async function main(): Promise<void> {
  const config = loadConfig(JSON.parse(process.env.BENCH_HERALD_ENV ?? '{}') as Record<string, string>);
  const logger = createLogger({ level: config.logLevel });
  let accepted = 0;
  const app = await buildApp({
    logger,
    http: config.http,
    twilioAuthToken: config.twilio.authToken,
    inbound: {
      async receive() {
        accepted += 1;
        return { kind: 'accepted', userId: '00000000-0000-0000-0000-000000000000', messageId: `stub-${accepted}` };
      },
    },
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
    databaseBusy: () => 0,
    async stop() {
      await app.close();
    },
  });
  process.send?.({ type: 'ready', port: address.port, pid: process.pid } satisfies TargetEvent);
}

main().catch(failTarget);
