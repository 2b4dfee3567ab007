import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectLinks } from '../../src/connections/connect-links.js';
import { SecretBox } from '../../src/connections/secret-box.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * A connect link works once (src/connections/connect-links.ts): two submissions of its form
 * (a double click, two tabs) race to consume it, with no per-user lease in between. The
 * atomic claim alone decides which one saves the account.
 */
describe('a connect link consumed twice at once', () => {
  let database: TestDatabase;
  let links: ConnectLinks;
  const clock = new ManualClock('2026-03-02T15:00:00Z');

  beforeAll(async () => {
    database = await createTestDatabase();
    links = new ConnectLinks(database.prisma, new SecretBox(Buffer.alloc(32, 7)), clock, { ttlMinutes: 15, publicBaseUrl: 'https://herald.test' });
  });
  afterAll(async () => {
    await database.drop();
  });

  it('is used by exactly one of five concurrent submissions, and is "used" afterwards', async () => {
    const user = await database.prisma.user.create({ data: { phone: '+14155550950', timezone: 'UTC', updatedAt: new Date() } });
    const { url } = await links.issue(user.id, 'caldav-calendar');
    const token = url.split('/connect/')[1]!;
    const found = await links.resolve(token);
    if (found.kind !== 'link') throw new Error(`expected a usable link, got ${found.kind}`);

    const uses = await Promise.all(Array.from({ length: 5 }, () => links.consume(found.link.id)));

    expect(uses.filter(Boolean)).toHaveLength(1);
    expect(await links.resolve(token)).toEqual({ kind: 'used' });
  });
});
