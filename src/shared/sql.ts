import { createHash, randomBytes } from 'node:crypto';

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
