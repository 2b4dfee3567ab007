import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { readMigrations } from '../../src/db/migrator.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { waitUntil } from './wait-until.js';

// `npm start` with no DATABASE_URL: a real Postgres under DATA_DIR, started by Herald
// itself, migrated, and persisted between runs. initdb takes a few seconds, hence the
// generous timeouts. As root (CI, containers), the server runs as the `postgres` user.

const logger = createSilentLogger();
const root = fileURLToPath(new URL('../../', import.meta.url));

describe('openDatabase without a URL (embedded Postgres)', { timeout: 180_000 }, () => {
  let dataDir: string;
  const opened: Database[] = [];

  const open = async () => {
    const database = await openDatabase({ dataDir, poolSize: 2 }, logger);
    opened.push(database);
    return database;
  };
  const clusterDir = () => path.join(dataDir, 'postgres');
  const serverRunning = () => existsSync(path.join(clusterDir(), 'postmaster.pid'));
  const portOf = (database: Database) => Number(new URL(database.url).port);

  // Each test its own cluster: none may lean on what another left (CI runs them in random order).
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'herald-embedded-test-'));
  });

  afterEach(async () => {
    // Whatever a failing test left open; close() is idempotent and the last one stops the server.
    for (const database of opened.splice(0)) await database.close();
    expect(serverRunning()).toBe(false);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts a server, migrates it, and keeps the data across close and a second start', async () => {
    const first = await open();
    expect(first.url).toMatch(/^postgresql:\/\/herald:herald@127\.0\.0\.1:\d+\/herald$/);
    expect(existsSync(path.join(clusterDir(), 'PG_VERSION'))).toBe(true);
    expect(serverRunning()).toBe(true);

    // Migrated: every migration recorded, and the models usable through Prisma.
    const migrations = await readMigrations();
    const recorded = await first.pool.query<{ migration_name: string }>('SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name');
    expect(recorded.rows.map((row) => row.migration_name)).toEqual(migrations.map((migration) => migration.name));
    const user = await first.prisma.user.create({ data: { phone: '+447700900123', timezone: 'Europe/London', name: 'Ada' } });

    await first.close();
    // close() stopped the server it started (pg_ctl stop -w removes postmaster.pid once down).
    expect(serverRunning()).toBe(false);
    await expect(connectsTo(portOf(first))).resolves.toBe(false);

    // A later run (perhaps on another free port) finds the same cluster and the same data.
    const second = await open();
    expect(await second.prisma.user.findUnique({ where: { id: user.id } })).toMatchObject({ phone: '+447700900123', name: 'Ada' });
    // Nothing was applied twice.
    const again = await second.pool.query('SELECT migration_name FROM "_prisma_migrations"');
    expect(again.rowCount).toBe(migrations.length);
    await second.close();
    expect(serverRunning()).toBe(false);
  });

  it('reuses the running server for a second openDatabase, and stops it only when the last user closes', async () => {
    const first = await open();
    const second = await open();
    expect(portOf(second)).toBe(portOf(first));

    const user = await second.prisma.user.create({ data: { phone: '+447700900456', timezone: 'Europe/London' } });

    // The reusing process lets go: the first one keeps working on the same server.
    await second.close();
    expect(serverRunning()).toBe(true);
    expect(await first.prisma.user.findUnique({ where: { id: user.id } })).not.toBeNull();

    await first.close();
    expect(serverRunning()).toBe(false);
  });

  it('keeps the server up for the reusing process when the one that started it closes first', async () => {
    const first = await open();
    const second = await open();
    await first.prisma.user.create({ data: { phone: '+447700900789', timezone: 'Europe/London' } });

    await first.close();
    expect(serverRunning()).toBe(true);
    expect(await second.prisma.user.count()).toBe(1);

    await second.close();
    expect(serverRunning()).toBe(false);
  });

  it('after a crash, the next start reuses the orphaned server and, as its only user, stops it on close', async () => {
    const crashed = await startInChildAndKill(dataDir);
    // The killed process's server is still up, detached.
    expect(serverRunning()).toBe(true);
    expect(await connectsTo(crashed.port)).toBe(true);

    const next = await open();
    expect(portOf(next)).toBe(crashed.port);
    // The dead process's lease connection is gone once Postgres notices the closed socket.
    await waitUntil(async () => (await leaseConnections(next)) === 1, 'the dead process to lose its hold on the server');

    await next.close();
    expect(serverRunning()).toBe(false);
  });
});

/** Whether a Postgres server answers on 127.0.0.1:port. */
async function connectsTo(port: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: `postgresql://herald:herald@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Processes currently holding the embedded server (one lease connection each). */
async function leaseConnections(database: Database): Promise<number> {
  const { rows } = await database.pool.query<{ count: string }>(
    `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'herald-embedded-lease'`,
  );
  return Number(rows[0]!.count);
}

/** Opens the embedded database in another process, then SIGKILLs it: a crash with the server running. */
async function startInChildAndKill(dataDir: string): Promise<{ port: number }> {
  const script = path.join(dataDir, 'open-and-wait.mts');
  await writeFile(
    script,
    `import { openDatabase } from ${JSON.stringify(path.join(root, 'src/db/database.ts'))};
import { createSilentLogger } from ${JSON.stringify(path.join(root, 'src/logging/logger.ts'))};
const database = await openDatabase({ dataDir: ${JSON.stringify(dataDir)}, poolSize: 1 }, createSilentLogger());
console.log('OPEN ' + new URL(database.url).port);
setInterval(() => {}, 1000);
`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    lines.on('line', (line) => {
      const match = /^OPEN (\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
    });
    void exited.then(() => reject(new Error(`child exited before opening the database:\n${stderr}`)));
  });
  child.kill('SIGKILL');
  await exited;
  await rm(script, { force: true });
  // The server it started outlives it.
  const pid = Number((await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
  expect(pid).toBeGreaterThan(0);
  return { port };
}
