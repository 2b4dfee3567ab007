import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionStore } from '../../src/connections/connection-store.js';
import { GoogleAccounts } from '../../src/connections/google-accounts.js';
import { SecretBox } from '../../src/connections/secret-box.js';
import { ContactService } from '../../src/contacts/contact-service.js';
import { GOOGLE_CONTACTS_SCOPE, GoogleContacts } from '../../src/contacts/google-contacts.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { systemClock } from '../../src/shared/clock.js';
import { FakeGoogleServer } from '../fakes/fake-google-server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const CALENDAR_SCOPE = 'https://www.googleapis.com/auth/calendar.events';

/**
 * Google Contacts through the People API (the official auth client against the fake Google,
 * which checks tokens, scopes, personFields and page tokens): every page imported, people with
 * no name skipped, a second import updates; disconnecting removes them and gives the scope
 * up, keeping the connection while the calendar uses it; without the scope Google refuses.
 */
describe('Google Contacts', () => {
  let database: TestDatabase;
  let google: FakeGoogleServer;
  let store: ConnectionStore;
  let service: GoogleContacts;
  let contacts: ContactService;
  let phone = 0;
  const newUser = async () => {
    phone += 1;
    return (await database.prisma.user.create({ data: { phone: `+1415557${String(900 + phone)}`, timezone: 'UTC' } })).id;
  };
  const connect = (userId: string, email: string, scopes: string[]) =>
    store.save(userId, { provider: 'google', account: email, label: `Google (${email})`, scopes: ['openid', 'email', ...scopes], settings: {}, secrets: google.grant(email, ['openid', 'email', ...scopes].join(' ')) });

  beforeAll(async () => {
    [database, google] = await Promise.all([createTestDatabase(2), FakeGoogleServer.start()]);
    store = new ConnectionStore(database.prisma, new SecretBox(Buffer.alloc(32, 9)), systemClock);
    const env = google.env();
    const accounts = new GoogleAccounts(
      { clientId: env.GOOGLE_CLIENT_ID!, clientSecret: env.GOOGLE_CLIENT_SECRET!, authUrl: env.GOOGLE_OAUTH_AUTH_URL!, tokenUrl: env.GOOGLE_OAUTH_TOKEN_URL!, revokeUrl: env.GOOGLE_OAUTH_REVOKE_URL!, apiBaseUrl: env.GOOGLE_API_BASE_URL! },
      'https://herald.test/oauth/google/callback',
      store,
      createSilentLogger(),
    );
    contacts = new ContactService(database.prisma, systemClock, { maxPerUser: 5_000 });
    service = new GoogleContacts({ contacts, google: accounts, apiBaseUrl: env.GOOGLE_API_BASE_URL!, logger: createSilentLogger() });
    const people = Array.from({ length: 1_500 }, (_unused, index) => ({
      resourceName: `people/c${index}`,
      names: [{ displayName: `Person ${index}` }],
      emailAddresses: [{ value: `Person${index}@Example.com` }],
      phoneNumbers: [{ value: '(415) 555-0100', canonicalForm: '+14155550100' }],
      ...(index === 7 ? { birthdays: [{ date: { month: 5, day: 14 } }], nicknames: [{ value: 'Seven' }] } : {}),
    }));
    people.push({ resourceName: 'people/empty' } as (typeof people)[number]);
    google.people.set('ana@gmail.com', people);
    google.people.set('bo@gmail.com', [{ resourceName: 'people/x', names: [{ displayName: 'Xena' }] } as (typeof people)[number]]);
  });
  afterAll(async () => {
    await google.close();
    await database.drop();
  });

  it('imports every page, skips a person with no name or email, and updates on a second import', async () => {
    const userId = await newUser();
    const connection = await connect(userId, 'ana@gmail.com', [GOOGLE_CONTACTS_SCOPE]);
    const pages = () => google.apiRequests.filter((request) => request === 'GET /v1/people/me/connections').length;
    const pagesBefore = pages();
    expect(await service.importFrom(connection)).toEqual({ created: 1_500, updated: 0, merged: 0, skipped: 0, refused: 0, unread: 0, problems: [], refusals: [] });
    expect(await database.prisma.contact.findFirst({ where: { userId, sourceUid: 'people/c7' }, select: { name: true, nicknames: true, emails: true, phones: true, birthday: true, source: true, sourceConnectionId: true } })).toEqual({
      name: 'Person 7', nicknames: ['Seven'], emails: ['person7@example.com'], phones: ['+14155550100'], birthday: '--05-14', source: 'google', sourceConnectionId: connection.id,
    });
    expect(pages() - pagesBefore).toBe(2);
    expect(await service.importFrom(connection)).toMatchObject({ created: 0, updated: 1_500 });
  });

  it('disconnecting removes what came from Google and keeps the connection while the calendar uses it', async () => {
    const userId = await newUser();
    const connection = await connect(userId, 'bo@gmail.com', [GOOGLE_CONTACTS_SCOPE, CALENDAR_SCOPE]);
    await service.importFrom(connection);
    await contacts.create(userId, { name: 'Mom' });
    expect(await service.disconnect(connection)).toBe(1);
    expect((await database.prisma.contact.findMany({ where: { userId }, select: { name: true } })).map((row) => row.name)).toEqual(['Mom']);
    const kept = await database.prisma.connection.findUniqueOrThrow({ where: { id: connection.id } });
    expect(kept.scopes).not.toContain(GOOGLE_CONTACTS_SCOPE);
    expect(kept.scopes).toContain(CALENDAR_SCOPE);
  });

  it('Google refuses a connection without contacts.readonly, and nothing is imported', async () => {
    const userId = await newUser();
    const connection = await connect(userId, 'ana@gmail.com', [CALENDAR_SCOPE]);
    await expect(service.importFrom(connection)).rejects.toThrow(/insufficient authentication scopes/i);
    expect(await database.prisma.contact.count({ where: { userId } })).toBe(0);
  });
});
