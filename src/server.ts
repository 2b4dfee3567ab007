import { describeEnvironment, loadConfig } from './config/config.js';
import { createLogger } from './logging/logger.js';
import { createHerald } from './runtime.js';
import { ConfigurationError } from './shared/errors.js';

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

  const herald = await createHerald({ config, logger });
  await herald.start();
  const address = await herald.app.listen({ host: config.http.host, port: config.http.port });
  logger.info(
    { address, publicBaseUrl: config.http.publicBaseUrl, transport: config.twilio.transport },
    `Herald is listening; point your Twilio number's messaging webhook at ${config.http.publicBaseUrl.replace(/\/+$/, '')}/twilio/messages`,
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing turns in flight');
    try {
      await herald.stop();
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

main().catch((error: unknown) => {
  process.stderr.write(`Herald failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
