import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config/config.js';
import { commandWaitMs, openDatabase } from '../db/database.js';
import { createLogger } from '../logging/logger.js';
import { ConfigurationError } from '../shared/errors.js';
import { CommandError, type AccountsSubcommand } from './accounts-subcommand.js';
import { accessSubcommands } from './access-commands.js';
import { connectionSubcommands } from './connection-commands.js';

/** The subcommands, by group. Adding a group: write its file and spread it in here. */
const subcommands: AccountsSubcommand[] = [...connectionSubcommands, ...accessSubcommands];

function usage(): string {
  return ['usage: npm run accounts -- <command> [options]', '', ...subcommands.map((command) => `  ${command.name} ${command.usage}\n      ${command.summary}`)].join('\n');
}

/**
 * `npm run accounts -- <command> …`: operator commands on users' accounts, against
 * DATABASE_URL (or the embedded Postgres under DATA_DIR). Prints what it did; exits 1 with
 * a clear message when it could not, 2 on a usage mistake, 78 on bad configuration.
 */
async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = subcommands.find((candidate) => candidate.name === name);
  if (!command) {
    process.stderr.write(`${name && name !== '--help' ? `unknown command "${name}"\n\n` : ''}${usage()}\n`);
    return name && name !== '--help' ? 2 : 0;
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\nusage: npm run accounts -- ${command.name} ${command.usage}\n`);
    return 2;
  }
  const given = (option: string) => values[option] !== undefined && values[option] !== '' && values[option] !== false;
  const missing = command.required.filter((option) => !given(option));
  const alternatives = command.oneOf ?? [];
  const chosen = alternatives.filter(given);
  const problem =
    missing.length > 0
      ? `missing ${missing.map((option) => `--${option}`).join(', ')}`
      : alternatives.length > 0 && chosen.length !== 1
        ? `${chosen.length === 0 ? 'missing' : 'give only one of'} ${alternatives.map((option) => `--${option}`).join(' or ')}`
        : undefined;
  if (problem) {
    process.stderr.write(`${problem}\nusage: npm run accounts -- ${command.name} ${command.usage}\n`);
    return 2;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigurationError) {
      process.stderr.write(`${error.message}\n`);
      return 78;
    }
    throw error;
  }
  const logger = createLogger({ level: 'warn' });
  const database = await openDatabase({ url: config.database.url, dataDir: config.database.dataDir, poolSize: 2, connectTimeoutMs: commandWaitMs(config.database.connectTimeoutMs) }, logger);
  try {
    process.stdout.write(`${await command.run(values, { config, database, logger })}\n`);
    return 0;
  } catch (error) {
    if (error instanceof CommandError || error instanceof ConfigurationError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`accounts failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
