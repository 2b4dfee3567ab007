import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { ContactService } from '../../src/contacts/contact-service.js';
import { importContactCard } from '../../src/media/contact-card.js';
import { ParseBudgetError, ParseWorkers } from '../../src/shared/parse-workers.js';
import { formatVcard, parseVcards } from '../../src/contacts/vcard.js';
import { ManualClock } from '../../src/shared/clock.js';
import { vcardFile } from '../fixtures/vcard-file.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * Contacts against real Postgres: finding people by name, nickname, relationship and email
 * (two with one name both found), vCard import with its limit and bad lines reported, and
 * a re-import that updates instead of duplicating.
 */
describe('ContactService', () => {
  let database: TestDatabase;
  let contacts: ContactService;
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  let phone = 0;
  const newUser = async () => {
    phone += 1;
    return (await database.prisma.user.create({ data: { phone: `+1415558${String(phone).padStart(4, '0')}`, timezone: 'UTC' } })).id;
  };

  beforeAll(async () => {
    database = await createTestDatabase(2);
    contacts = new ContactService(database.prisma, clock, { maxPerUser: 5_000 });
  });
  afterAll(async () => {
    await database.drop();
  });

  it('finds people by first name, full name, nickname, relationship and email; two with one name both come back', async () => {
    const userId = await newUser();
    const katz = await contacts.create(userId, { name: 'Dana Katz', emails: ['dana@katz.example'] });
    const levi = await contacts.create(userId, { name: 'Dána Levi', nicknames: ['DL'], relationship: 'colleague' });
    const mom = await contacts.create(userId, { name: 'Miriam Cohen', nicknames: ['Mom'], relationship: 'mother', phones: ['054-123-4567'] }, 'IL');
    if (!katz.ok || !levi.ok || !mom.ok) throw new Error('not saved');
    expect(mom.value.contact.phones).toEqual(['+972541234567']);
    const names = async (query: string) => (await contacts.find(userId, query)).map((contact) => contact.name);
    expect(await names('Dana')).toEqual(['Dana Katz', 'Dána Levi']);
    expect(await names('dana katz')).toEqual(['Dana Katz']);
    expect(await names('mom')).toEqual(['Miriam Cohen']);
    expect(await names('mother')).toEqual(['Miriam Cohen']);
    expect(await names('dana@katz.example')).toEqual(['Dana Katz']);
    expect(await names('Bob')).toEqual([]);
    expect(await names('  ')).toEqual([]);
  });

  it('refuses an email that is not one and a birthday that is not a date, saving nothing', async () => {
    const userId = await newUser();
    expect(await contacts.create(userId, { name: 'X', emails: ['not-an-email'] })).toEqual({ ok: false, error: '"not-an-email" is not an email address. Nothing was saved.' });
    expect(await contacts.create(userId, { name: 'X', birthday: '31/02' })).toMatchObject({ ok: false, error: expect.stringMatching(/^"31\/02" is not a birthday/) });
    expect(await database.prisma.contact.count({ where: { userId } })).toBe(0);
  });

  it('imports a 5,000-contact vCard up to the limit and reports the rest; importing it again updates, never duplicates', async () => {
    const userId = await newUser();
    const limited = new ContactService(database.prisma, clock, { maxPerUser: 4_000 });
    const file = vcardFile(5_000);
    expect(await limited.importVcards(userId, file, { source: 'vcard' })).toEqual({ created: 4_000, updated: 0, merged: 0, skipped: 1_000, refused: 0, unread: 0, problems: [], refusals: [] });
    expect(await database.prisma.contact.count({ where: { userId } })).toBe(4_000);
    const person = await database.prisma.contact.findFirstOrThrow({ where: { userId, sourceUid: 'person-10' } });
    expect(person).toMatchObject({ name: 'Test Person10', emails: ['person10@example.com'], phones: ['+14155550010'], birthday: '--05-14', source: 'vcard' });
    expect(await limited.importVcards(userId, vcardFile(10), { source: 'vcard' })).toEqual({ created: 0, updated: 10, merged: 0, skipped: 0, refused: 0, unread: 0, problems: [], refusals: [] });
    expect(await database.prisma.contact.count({ where: { userId } })).toBe(4_000);
  });

  it('imports what it can read from a vCard with malformed lines and reports each by line', async () => {
    const userId = await newUser();
    const file = [
      'BEGIN:VCARD', 'VERSION:4.0', 'FN:Good One', 'EMAIL:good@example.com', 'this line is garbage', 'BDAY:yesterday', 'END:VCARD',
      'BEGIN:VCARD', 'VERSION:4.0', 'TEL:+14155550100', 'END:VCARD',
      'BEGIN:VCARD', 'FN:Folded', ' Name', 'NOTE:line one\\nline two\\, with comma', 'EMAIL:bad@', 'END:VCARD',
      'BEGIN:VCARD', 'FN:Never ended',
    ].join('\n');
    const report = await contacts.importVcards(userId, file, { source: 'vcard' });
    expect(report).toEqual({
      created: 2,
      updated: 0,
      merged: 0,
      skipped: 0,
      refused: 0,
      unread: 5,
      refusals: [],
      problems: ['line 5: not a vCard property', 'line 6: birthday "yesterday" is not a date', 'line 8: a card with no name, email or nickname', 'line 16: "bad@" is not an email address', 'line 18: a card without END:VCARD'],
    });
    const saved = await database.prisma.contact.findMany({ where: { userId }, orderBy: { name: 'asc' }, select: { name: true, notes: true, emails: true } });
    expect(saved).toEqual([
      { name: 'FoldedName', notes: 'line one\nline two, with comma', emails: [] },
      { name: 'Good One', notes: null, emails: ['good@example.com'] },
    ]);
  });

  it('writes vCards that read back the same', () => {
    const contact = { id: '0190a000-0000-7000-8000-000000000001', name: 'Zoë; "Z" Ñandú', nicknames: ['Z', 'Zo,ë'], phones: ['+972541234567'], emails: ['zoe@example.com'], birthday: '1990-02-28', notes: `A long note ${'é'.repeat(100)}\nsecond line`, relationship: 'friend' };
    const text = formatVcard(contact);
    expect(text.split('\r\n').every((line) => Buffer.byteLength(line) <= 75)).toBe(true);
    expect(parseVcards(text)).toEqual({ contacts: [{ ...contact, id: undefined, uid: `urn:uuid:${contact.id}` }].map(({ id: _id, ...rest }) => rest), problems: [], refusals: [], unread: 0, refused: 0, cards: 1 });
  });
  it('re-imports 5,000 contacts in a few batched statements: every one updated, none duplicated (the time is printed)', async () => {
    const userId = await newUser();
    const file = vcardFile(5_000);
    expect(await contacts.importVcards(userId, file, { source: 'vcard' })).toMatchObject({ created: 5_000, updated: 0, skipped: 0 });
    clock.advance(60_000);
    const started = performance.now();
    const again = await contacts.importVcards(userId, file.replaceAll('@example.com', '@example.org'), { source: 'vcard' });
    console.log(`re-import of 5,000 contacts: ${(performance.now() - started).toFixed(0)} ms`);
    expect(again).toEqual({ created: 0, updated: 5_000, merged: 0, skipped: 0, refused: 0, unread: 0, problems: [], refusals: [] });
    expect(await database.prisma.contact.count({ where: { userId } })).toBe(5_000);
    expect(await database.prisma.contact.count({ where: { userId, updatedAt: clock.now() } })).toBe(5_000);
    expect(await database.prisma.contact.findFirstOrThrow({ where: { userId, sourceUid: 'person-4321' }, select: { emails: true, phones: true } })).toEqual({ emails: ['person4321@example.org'], phones: ['+14155554321'] });
  });

  it('refuses what the model passes past the limits, saving nothing: a long name, nickname or phone, too many values, or an update that would make too many', async () => {
    const userId = await newUser();
    expect(await contacts.create(userId, { name: 'N'.repeat(201) })).toMatchObject({ ok: false, error: expect.stringMatching(/^The name "N+…" is 201 characters long; Herald keeps at most 200\. Nothing was saved\.$/) });
    expect(await contacts.create(userId, { name: 'Dana', nicknames: ['n'.repeat(3_000_000)] })).toMatchObject({ ok: false, error: expect.stringMatching(/^The nickname "n+…" is 3,000,000 characters long; Herald keeps at most 100\./) });
    expect(await contacts.create(userId, { name: 'Dana', phones: ['5'.repeat(65)] })).toMatchObject({ ok: false, error: expect.stringMatching(/^The phone number "5+…" is 65 characters long; Herald keeps at most 64\./) });
    expect(await contacts.create(userId, { name: 'Dana', emails: [`a@${'a.'.repeat(48_000)}@`] })).toMatchObject({ ok: false, error: expect.stringMatching(/^The email address "a@a\.a.+" is 96,003 characters long; Herald keeps at most 254\./) });
    expect(await contacts.create(userId, { name: 'Dana', phones: Array.from({ length: 11 }, (_unused, index) => `+1415555${String(index).padStart(4, '0')}`) })).toEqual({ ok: false, error: '11 phone numbers were given; a contact keeps at most 10. Nothing was saved.' });
    expect(await database.prisma.contact.count({ where: { userId } })).toBe(0);
    const dana = await contacts.create(userId, { name: 'Dana', phones: Array.from({ length: 8 }, (_unused, index) => `+1415555${String(index).padStart(4, '0')}`) });
    if (!dana.ok) throw new Error(dana.error);
    expect(await contacts.update(userId, dana.value.contact.id, { phones: ['+14155550100', '+14155550101', '+14155550102'] })).toEqual({ ok: false, error: 'Dana would have 11 phone numbers; a contact keeps at most 10. Nothing was saved.' });
    expect((await contacts.get(userId, dana.value.contact.id))?.phones).toHaveLength(8);
  });

  it('a card that takes longer than its parse budget saves nothing, and its sender is told so', async () => {
    const userId = await newUser();
    const hurried = new ParseWorkers({ size: 1, budgetMs: 1 });
    try {
      const service = new ContactService(database.prisma, clock, { maxPerUser: 5_000, parsing: hurried });
      const file = vcardFile(10_000);
      await expect(service.importVcards(userId, file, { source: 'vcard' })).rejects.toBeInstanceOf(ParseBudgetError);
      const outcome = await importContactCard(
        { import: (id, text) => service.importVcards(id, text, { source: 'vcard' }), maxPerUser: 5_000 },
        userId,
        Buffer.from(file),
        { stored: 'en', typed: '', what: 'your contact card', attachment: 1 },
      );
      expect(outcome).toMatchObject({ saved: 0, userLines: ["I couldn't read your contact card in time, so I saved nothing from it."] });
      expect(await database.prisma.contact.count({ where: { userId } })).toBe(0);
    } finally {
      await hurried.close();
    }
  });
});
