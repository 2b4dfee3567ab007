import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionStore } from '../../src/connections/connection-store.js';
import { SecretBox } from '../../src/connections/secret-box.js';
import { AddressBookImport } from '../../src/contacts/address-book-import.js';
import { ContactService } from '../../src/contacts/contact-service.js';
import { createLogger } from '../../src/logging/logger.js';
import { AllowedHosts, parseAllowedHosts } from '../../src/net/allowed-hosts.js';
import { OUTBOUND_REFUSED_MESSAGE, OutboundPolicy } from '../../src/net/outbound-policy.js';
import { ManualClock } from '../../src/shared/clock.js';
import { RadicaleServer } from '../helpers/radicale-server.js';
import { RecordingServer } from '../helpers/recording-server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const USER = 'ana';
const PASSWORD = 'radicale-password';
const auth = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

/** Makes an address book collection on Radicale (extended MKCOL, RFC 5689) and puts cards in it. */
async function addressBookWith(radicale: RadicaleServer, cards: Record<string, string>): Promise<void> {
  const url = `${radicale.url}/${USER}/contacts/`;
  const made = await fetch(url, {
    method: 'MKCOL',
    headers: { authorization: auth, 'content-type': 'application/xml' },
    body: '<?xml version="1.0" encoding="utf-8"?><D:mkcol xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav"><D:set><D:prop><D:resourcetype><D:collection/><C:addressbook/></D:resourcetype><D:displayname>Contacts</D:displayname></D:prop></D:set></D:mkcol>',
  });
  if (made.status !== 201) throw new Error(`MKCOL answered ${made.status}: ${await made.text()}`);
  for (const [name, card] of Object.entries(cards)) {
    const put = await fetch(`${url}${name}.vcf`, { method: 'PUT', headers: { authorization: auth, 'content-type': 'text/vcard' }, body: card });
    if (put.status !== 201) throw new Error(`PUT answered ${put.status}`);
  }
}

const card = (uid: string, name: string, email: string) => `BEGIN:VCARD\r\nVERSION:3.0\r\nUID:${uid}\r\nFN:${name}\r\nEMAIL:${email}\r\nEND:VCARD\r\n`;

/**
 * Contacts from the address book on the user's CalDAV server, against a real Radicale
 * (which serves CardDAV too): imported with the connection they came from, updated on a
 * second import, removed when the calendar is disconnected; and a server on the
 * deployment's own network is refused by the outbound policy without being contacted.
 */
describe('importing the address book of the CalDAV server', () => {
  let database: TestDatabase;
  let radicale: RadicaleServer;
  let connections: ConnectionStore;
  let contacts: ContactService;
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  const logger = createLogger({ level: 'silent' });
  let phone = 0;
  const newUser = async () => {
    phone += 1;
    return (await database.prisma.user.create({ data: { phone: `+1415559${String(phone).padStart(4, '0')}`, timezone: 'UTC' } })).id;
  };
  const connect = (userId: string, serverUrl: string) =>
    connections.save(userId, {
      provider: 'caldav',
      account: USER,
      label: `Radicale (${USER})`,
      settings: { serverUrl, username: USER, calendarUrl: `${serverUrl}/${USER}/calendar/`, calendarName: 'Calendar' },
      secrets: { password: PASSWORD },
    });

  beforeAll(async () => {
    [database, radicale] = await Promise.all([createTestDatabase(2), RadicaleServer.start({ [USER]: PASSWORD })]);
    connections = new ConnectionStore(database.prisma, new SecretBox(randomBytes(32)), clock);
    contacts = new ContactService(database.prisma, clock, { maxPerUser: 100 });
    await addressBookWith(radicale, { dana: card('dana-1', 'Dana Katz', 'dana@katz.example'), bob: card('bob-1', 'Bob Stone', 'bob@stone.example') });
  });
  afterAll(async () => {
    await radicale.stop();
    await database.drop();
  });

  it('imports every card, keeps where they came from, updates on a second import, and a disconnect removes them', async () => {
    const userId = await newUser();
    const connection = await connect(userId, radicale.url);
    const port = Number(new URL(radicale.url).port);
    const allowed = parseAllowedHosts(`127.0.0.1:${port}`);
    if (!allowed.ok) throw new Error('bad allowed host');
    const importer = new AddressBookImport({ contacts, connections, outbound: new OutboundPolicy({ allowedHosts: new AllowedHosts(allowed.entries) }), timeoutMs: 5_000, logger });
    expect(await importer.fromCalendarServer(userId)).toEqual({ ok: true, value: { created: 2, updated: 0, merged: 0, skipped: 0, refused: 0, unread: 0, problems: [], refusals: [], addressBooks: 1, account: `Radicale (${USER})` } });
    expect(await database.prisma.contact.findMany({ where: { userId }, orderBy: { name: 'asc' }, select: { name: true, emails: true, source: true, sourceConnectionId: true } })).toEqual([
      { name: 'Bob Stone', emails: ['bob@stone.example'], source: 'carddav', sourceConnectionId: connection.id },
      { name: 'Dana Katz', emails: ['dana@katz.example'], source: 'carddav', sourceConnectionId: connection.id },
    ]);
    expect(await importer.fromCalendarServer(userId)).toMatchObject({ ok: true, value: { created: 0, updated: 2 } });
    const mine = await contacts.create(userId, { name: 'Mom' });
    expect(mine.ok).toBe(true);
    await database.prisma.connection.delete({ where: { id: connection.id } });
    expect((await database.prisma.contact.findMany({ where: { userId }, select: { name: true } })).map((row) => row.name)).toEqual(['Mom']);
  });

  it('refuses an address book server on the deployment\'s own network without contacting it', async () => {
    const userId = await newUser();
    const inside = await RecordingServer.start();
    try {
      await connect(userId, inside.url);
      const importer = new AddressBookImport({ contacts, connections, outbound: new OutboundPolicy(), timeoutMs: 5_000, logger });
      expect(await importer.fromCalendarServer(userId)).toEqual({ ok: false, error: OUTBOUND_REFUSED_MESSAGE });
      expect(inside.connections).toBe(0);
      expect(await database.prisma.contact.count({ where: { userId } })).toBe(0);
    } finally {
      await inside.close();
    }
  });

  it('says what to do when no CalDAV calendar is connected', async () => {
    const importer = new AddressBookImport({ contacts, connections, outbound: new OutboundPolicy(), timeoutMs: 5_000, logger });
    expect(await importer.fromCalendarServer(await newUser())).toMatchObject({ ok: false, error: expect.stringMatching(/^The user has no CalDAV calendar connected/) });
  });
});
