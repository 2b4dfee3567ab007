import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';

const names = new Map<string, string>();

/**
 * A stable name for a SQL text, so `pg` prepares it once per connection (Postgres then
 * parses and plans it once instead of on every request). Only for code paths with a
 * fixed set of statements: every distinct text stays prepared on every connection.
 */
export function preparedName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `herald_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/** A UUIDv7 (RFC 9562: 48-bit Unix milliseconds, then random bits), as Prisma's uuid(7) makes. */
export function uuidv7(at: Date = new Date()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(at.getTime(), 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * An instant as a `timestamp(3) without time zone` parameter holding UTC, as Prisma stores
 * DateTime columns. (A Date handed to node-pg is written in the process's local zone.)
 */
export function sqlTimestamp(instant: Date): string {
  return instant.toISOString().replace('Z', '');
}

/**
 * Runs `work` in a transaction on one client of the pool: COMMIT when it returns, ROLLBACK
 * when it throws. A client whose ROLLBACK fails is in an unknown state and is discarded
 * instead of going back to the pool.
 */
export async function inTransaction<Result>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<Result>): Promise<Result> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
