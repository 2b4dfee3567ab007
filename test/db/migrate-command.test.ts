import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/db/migrator.js';
import { createEmptyDatabase } from '../helpers/test-database.js';

// `npm run db:migrate` (package.json) runs src/cli/migrate-command.ts.

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Runs the migrate command in a child process with exactly `env` (plus PATH and HOME). */
async function runMigrateCommand(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/migrate-command.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = await once(child, 'exit');
  return { code: code as number | null, output };
}

describe('npm run db:migrate', { timeout: 60_000 }, () => {
  it('is the script package.json names', () => {
    const scripts = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['db:migrate']).toBe('tsx src/cli/migrate-command.ts');
  });

  it('migrates DATABASE_URL and exits 0, needing no Twilio settings even in production', async () => {
    const database = await createEmptyDatabase();
    try {
      const result = await runMigrateCommand({ DATABASE_URL: database.url, NODE_ENV: 'production', LOG_LEVEL: 'info' });
      expect(result.code, result.output).toBe(0);
      expect(result.output).toMatch(/"msg":"migration applied"/);

      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const rows = await client.query<{ migration_name: string }>(
          'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL ORDER BY migration_name',
        );
        expect(rows.rows.map((row) => row.migration_name)).toEqual((await readMigrations()).map((migration) => migration.name));
      } finally {
        await client.end();
      }

      // Idempotent: a second run succeeds and applies nothing.
      const again = await runMigrateCommand({ DATABASE_URL: database.url, LOG_LEVEL: 'info' });
      expect(again.code, again.output).toBe(0);
      expect(again.output).not.toMatch(/"msg":"migration applied"/);
    } finally {
      await database.drop();
    }
  });

  it('exits 78 with a configuration message for a bad DATABASE_URL, without printing its password', async () => {
    const result = await runMigrateCommand({ DATABASE_URL: 'mysql://herald:pw_7d1e9c3b5a@db.internal/herald' });
    expect(result.code).toBe(78);
    expect(result.output).toMatch(/DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(result.output).not.toContain('pw_7d1e9c3b5a');
  });
});
