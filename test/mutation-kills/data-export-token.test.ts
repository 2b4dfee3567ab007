import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DataExport } from '../../src/data-rights/data-export.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * MY DATA's signed download links against their near misses (issue 32 item 8), on real
 * Postgres: one character of the signature or payload changed, a segment added, the second the
 * link expires and the one after, another key, an erased user.
 */
describe('data export links', () => {
  let database: TestDatabase;
  const clock = new ManualClock('2030-06-01T08:00:00Z');
  const key = Buffer.alloc(32, 5);
  let exports: DataExport;
  let userId: string;

  beforeAll(async () => {
    database = await createTestDatabase(3);
    exports = new DataExport(database.prisma, key, clock, { ttlHours: 2, publicBaseUrl: 'https://herald.test/' });
    const user = await database.prisma.user.create({ data: { phone: '+14155550971', timezone: 'UTC', updatedAt: clock.now() } });
    userId = user.id;
    await database.prisma.note.create({ data: { userId, title: 'Groceries', body: 'milk', tags: ['home'], language: 'en', createdAt: clock.now(), updatedAt: clock.now() } });
    await database.prisma.contact.create({ data: { userId, name: 'Zoe Adams', phones: ['+14155550199'], emails: ['zoe@example.com'], source: 'herald', createdAt: clock.now(), updatedAt: clock.now() } });
    await database.prisma.contact.create({ data: { userId, name: 'Ann Bell', phones: [], emails: [], source: 'herald', createdAt: clock.now(), updatedAt: clock.now() } });
  });
  beforeEach(() => {
    clock.set('2030-06-01T08:00:00Z');
  });
  afterAll(async () => {
    await database.drop();
  });

  const tokenOf = (url: string) => url.split('/p/')[1]!.split('/')[0]!;
  const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;

  it('offers three files under the public base, each downloadable with its own type and name', async () => {
    const links = exports.links(userId);
    expect(links.map((link) => link.url.replace(/\/p\/[^/]+\//, '/p/T/'))).toEqual(['https://herald.test/p/T/notes.json', 'https://herald.test/p/T/contacts.vcf', 'https://herald.test/p/T/contacts.json']);
    expect(links.map((link) => link.label)).toEqual(['Your notes (JSON)', 'Your contacts (vCard, for any address book)', 'Your contacts (JSON)']);
    const token = tokenOf(links[0]!.url);
    const notes = await exports.download(token, 'notes.json');
    expect(notes).toMatchObject({ status: 200, contentType: 'application/json; charset=utf-8', filename: 'herald-notes.json' });
    if (notes.status === 200) expect(JSON.parse(notes.body)).toMatchObject({ notes: [{ title: 'Groceries', body: 'milk', tags: ['home'] }] });
    const contacts = await exports.download(token, 'contacts.json');
    expect(contacts).toMatchObject({ status: 200, contentType: 'application/json; charset=utf-8', filename: 'herald-contacts.json' });
    if (contacts.status === 200) expect((JSON.parse(contacts.body) as { contacts: Array<{ name: string }> }).contacts.map((contact) => contact.name)).toEqual(['Ann Bell', 'Zoe Adams']);
    const vcard = await exports.download(token, 'contacts.vcf');
    expect(vcard).toMatchObject({ status: 200, contentType: 'text/vcard; charset=utf-8', filename: 'herald-contacts.vcf' });
    if (vcard.status === 200) {
      expect(vcard.body.match(/BEGIN:VCARD/g)).toHaveLength(2);
      expect(vcard.body.indexOf('Ann Bell')).toBeLessThan(vcard.body.indexOf('Zoe Adams'));
    }
    expect(await exports.download(token, 'secrets.json')).toEqual({ status: 404 });
  });

  it('a token with one character changed, a segment added or dropped, or signed with another key is refused', async () => {
    const token = tokenOf(exports.links(userId)[0]!.url);
    const [payload, signature] = token.split('.') as [string, string];
    const otherKey = tokenOf(new DataExport(database.prisma, Buffer.alloc(32, 6), clock, { ttlHours: 2, publicBaseUrl: 'https://herald.test' }).links(userId)[0]!.url);
    const misses = [`${payload}.${flip(signature, 0)}`, `${payload}.${flip(signature, signature.length - 1)}`, `${payload}.${signature}A`, `${payload}.${signature.slice(1)}`, `${flip(payload, 3)}.${signature}`, `${payload}.${signature}.x`, payload, `.${signature}`, `${payload}.`, otherKey];
    for (const miss of misses) expect(await exports.download(miss, 'notes.json'), miss).toEqual({ status: 404 });
    // A well-signed payload of the wrong length is refused too.
    const short = Buffer.from(payload, 'base64url').subarray(0, 19).toString('base64url');
    const signedShort = `${short}.${createHmac('sha256', key).update(short).digest().subarray(0, 16).toString('base64url')}`;
    expect(await exports.download(signedShort, 'notes.json')).toEqual({ status: 404 });
    // (The same signing, on the right payload, is the link's own signature: the check above is of the length alone.)
    expect(createHmac('sha256', key).update(payload).digest().subarray(0, 16).toString('base64url')).toBe(signature);
  });

  it('works through the second it expires (TTL hours), not a millisecond after', async () => {
    const token = tokenOf(exports.links(userId)[0]!.url);
    clock.advance(2 * 3_600_000);
    expect((await exports.download(token, 'notes.json')).status).toBe(200);
    clock.advance(1);
    expect(await exports.download(token, 'notes.json')).toEqual({ status: 404 });
  });

  it('names its user: another user’s link opens only theirs, and an erased user’s opens nothing', async () => {
    const other = await database.prisma.user.create({ data: { phone: '+14155550972', timezone: 'UTC', updatedAt: clock.now() } });
    const token = tokenOf(exports.links(other.id)[0]!.url);
    const notes = await exports.download(token, 'notes.json');
    expect(notes.status === 200 && JSON.parse(notes.body)).toEqual({ notes: [] });
    await database.prisma.user.delete({ where: { id: other.id } });
    expect(await exports.download(token, 'notes.json')).toEqual({ status: 404 });
  });
});
