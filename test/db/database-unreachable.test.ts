import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaClient } from '../../src/generated/prisma/client.js';
import { isDatabaseUnreachable } from '../../src/db/database-unreachable.js';
import { freePort } from '../helpers/herald-process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/** The errors a real pg and Prisma raise, sorted into "away" (spool it) and "answered no" (500 as before). */
describe('isDatabaseUnreachable', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(2);
  });
  afterAll(async () => {
    await database.drop();
  });

  /** What `action` rejects with. */
  const failure = async (action: () => Promise<unknown>): Promise<unknown> => action().then(() => expect.fail('it did not fail'), (error: unknown) => error);

  it('a refused connection, through pg and through Prisma, is unreachable', async () => {
    const url = `postgresql://herald:herald@127.0.0.1:${await freePort()}/herald`;
    const pool = new pg.Pool({ connectionString: url });
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    try {
      expect(isDatabaseUnreachable(await failure(() => pool.query('SELECT 1')))).toBe(true);
      expect(isDatabaseUnreachable(await failure(() => prisma.user.count()))).toBe(true);
      expect(isDatabaseUnreachable(await failure(() => prisma.$transaction(async (transaction) => transaction.user.count())))).toBe(true);
    } finally {
      await prisma.$disconnect().catch(() => {});
      await pool.end().catch(() => {});
    }
  });

  it('a session the server terminates (a shutdown) is unreachable, and so is the dead client after it', async () => {
    const victim = new pg.Client({ connectionString: database.url });
    victim.on('error', () => {});
    await victim.connect();
    const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const sleeping = failure(() => victim.query('SELECT pg_sleep(30)'));
    await database.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    const terminated = await sleeping;
    expect((terminated as { code?: string }).code).toBe('57P01');
    expect(isDatabaseUnreachable(terminated)).toBe(true);
    expect(isDatabaseUnreachable(await failure(() => victim.query('SELECT 1')))).toBe(true);
    await victim.end().catch(() => {});
  });

  it('the database answering with an error is not', async () => {
    const client = await database.pool.connect();
    try {
      await client.query('CREATE TEMP TABLE spool_probe (id int PRIMARY KEY)');
      await client.query('INSERT INTO spool_probe VALUES (1)');
      const duplicate = await failure(() => client.query('INSERT INTO spool_probe VALUES (1)'));
      expect((duplicate as { code?: string }).code).toBe('23505');
      expect(isDatabaseUnreachable(duplicate)).toBe(false);
      expect(isDatabaseUnreachable(await failure(() => client.query('SELEC 1')))).toBe(false);
      expect(isDatabaseUnreachable(await failure(() => client.query("SELECT 'x'::int")))).toBe(false);
      const user = { phone: '+14155550999', timezone: 'America/Los_Angeles' };
      await database.prisma.user.create({ data: user });
      const taken = await failure(() => database.prisma.user.create({ data: user }));
      expect((taken as { code?: string }).code).toBe('P2002');
      expect(isDatabaseUnreachable(taken)).toBe(false);
    } finally {
      client.release();
    }
    expect(isDatabaseUnreachable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnreachable(undefined)).toBe(false);
  });
});
