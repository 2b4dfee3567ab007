import { loadDatabaseConfig } from '../config/config.js';
import { createLogger } from '../logging/logger.js';
import { ConfigurationError } from '../shared/errors.js';
import { commandWaitMs, openDatabase } from '../db/database.js';

/**
 * `npm run db:migrate`: applies pending migrations to DATABASE_URL (or to the embedded
 * Postgres under DATA_DIR) and exits. Herald also migrates at start-up; this is for
 * deployments that migrate as a separate step. It takes the same advisory lock as
 * `prisma migrate deploy` and as starting instances, so running it alongside them is safe,
 * and it needs only the database settings (no Twilio or Anthropic configuration).
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadDatabaseConfig();
  } catch (error) {
    if (error instanceof ConfigurationError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel, pretty: process.stdout.isTTY });
  // openDatabase migrates under the lock; an embedded server another Herald uses stays up.
  const database = await openDatabase({ url: config.database.url, dataDir: config.database.dataDir, poolSize: 1, connectTimeoutMs: commandWaitMs(config.database.connectTimeoutMs) }, logger);
  await database.close();
  logger.info('migrations are up to date');
}

main().catch((error: unknown) => {
  process.stderr.write(`Migration failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
