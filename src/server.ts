import type { FastifyInstance } from 'fastify';
import { describeEnvironment, loadConfig, withoutCredentials, type Config } from './config/config.js';
import { InboundSpool } from './conversation/inbound-spool.js';
import { buildStandbyApp } from './http/standby-app.js';
import type { Logger } from './logging/logger.js';
import { systemClock } from './shared/clock.js';
import { createLogger } from './logging/logger.js';
import { createHerald } from './runtime.js';
import { DatabaseUnavailableError } from './db/wait-for-database.js';
import { ConfigurationError, describeError } from './shared/errors.js';
import { guardProcess, type GuardedProcess } from './observability/process-guards.js';
import { withoutTrailingSlashes } from './shared/text-ends.js';

/**
 * Herald's entry point: read configuration, build the logger, start, listen, and shut
 * down gracefully on SIGTERM/SIGINT (turns in flight finish or are handed back).
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigurationError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel, pretty: config.nodeEnv === 'development' && process.stdout.isTTY });
  logger.info({ environment: describeEnvironment(process.env) }, 'starting Herald');
  // From here on no library's failure ends the process (src/observability/process-guards.ts).
  const guarded: GuardedProcess = {};
  guardProcess(logger, guarded);

  // While DATABASE_URL's server is away at start-up, webhooks are kept on disk (src/http/standby-app.ts).
  const standby = config.database.url ? standbyWhileStarting(config, logger) : undefined;
  let herald;
  try {
    herald = await createHerald({ config, logger });
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) {
      logger.fatal({ error: error.message }, 'database unreachable: giving up');
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  guarded.metrics = herald.metrics;
  await herald.start();
  if (standby && (await standby.close())) await herald.spool.replayNow();
  const address = await herald.app.listen({ host: config.http.host, port: config.http.port });
  const listening = herald.app.server.address();
  const port = typeof listening === 'object' && listening !== null ? listening.port : config.http.port;
  // PUBLIC_BASE_URL may carry basic-auth credentials (https://user:pass@host): never print them.
  const shownBaseUrl = withoutCredentials(config.http.publicBaseUrl);
  logger.info(
    { address, publicBaseUrl: shownBaseUrl, transport: config.twilio.transport },
    listeningMessage(config.twilio.transport, Boolean(config.twilio.authToken), shownBaseUrl, port),
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    // One Ctrl+C under `npm start` can arrive several times (the terminal signals the whole
    // process group, and npm and tsx relay it too): later copies are ignored.
    if (stopping) return;
    stopping = true;
    logger.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down: finishing turns in flight');
    try {
      await herald.stop(config.shutdownGraceMs);
      logger.info('stopped cleanly');
      process.exit(0);
    } catch (error) {
      logger.error({ error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/**
 * Listens on Herald's port with the standby app (spool-only webhooks, not ready) when Herald is
 * not up within a moment: it is waiting for its database. `close()` stops it before Herald
 * listens, and says whether it ever listened (then what it spooled is replayed at once).
 */
function standbyWhileStarting(config: Config, logger: Logger): { close(): Promise<boolean> } {
  let app: FastifyInstance | undefined;
  const spool = new InboundSpool({ ...config.inboundSpool, clock: systemClock, logger: logger.child({ component: 'inbound-spool' }) });
  let cancel = () => {};
  const starting = new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      buildStandbyApp(config, spool, logger)
        .then(async (standby) => {
          await standby.listen({ host: config.http.host, port: config.http.port });
          app = standby;
          logger.warn({ port: config.http.port }, 'waiting for the database: listening meanwhile, keeping webhooks in the inbound spool (not ready)');
        })
        .catch((error: unknown) => logger.error({ error: describeError(error) }, 'could not listen while waiting for the database'))
        .finally(resolve);
    }, STANDBY_AFTER_MS);
    cancel = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  return {
    async close() {
      cancel();
      await starting;
      if (!app) return false;
      await app.close();
      return true;
    },
  };
}

/** How long start-up may take before the standby listens (an embedded Postgres, a slow disk, a database that is away). */
const STANDBY_AFTER_MS = 2_000;

/** What to do next: connect Twilio, or (in local mode) try Herald from this machine: the dev phone, the chat, or curl. */
function listeningMessage(transport: 'twilio' | 'console', signed: boolean, publicBaseUrl: string, port: number): string {
  const webhookUrl = `${withoutTrailingSlashes(publicBaseUrl)}/twilio/messages`;
  if (transport === 'twilio') return `Herald is listening; point your Twilio number's messaging webhook at ${webhookUrl}`;
  if (signed) return `Herald is listening in local mode (replies are printed here, not sent); webhooks to ${webhookUrl} must be signed with TWILIO_AUTH_TOKEN (the dev phone at http://localhost:${port}/dev/phone signs its own)`;
  return `Herald is listening in local mode: replies are printed here, not sent. Text it in your browser at http://localhost:${port}/dev/phone or with \`npm run chat\`; or post a webhook from this machine: ${localTryCommand(port)}`;
}

/**
 * A curl command posting an inbound text as Twilio would. Without TWILIO_AUTH_TOKEN,
 * unsigned webhooks are accepted from this machine. The MessageSid must be new each time
 * (a repeated one is a duplicate delivery and gets no reply), hence the time and shell pid.
 */
function localTryCommand(port: number): string {
  const fields = ['From=%2B14155550100', 'To=%2B15005550006', `AccountSid=AC${'0'.repeat(32)}`, 'MessageSid=SM$(date +%s)$$', 'Body=hello'];
  return `curl ${fields.map((field) => `-d "${field}"`).join(' ')} http://127.0.0.1:${port}/twilio/messages`;
}

main().catch((error: unknown) => {
  process.stderr.write(`Herald failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
