import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { mediaFields } from '../helpers/media-fixtures.js';
import { createUser } from '../reminders/support.js';
import { vcardFile } from '../fixtures/vcard-file.js';

/**
 * A contact card (vCard) sent as an MMS attachment, through the signed webhook and the fake
 * Twilio's media: its contacts are imported with no model call, up to the user's limit
 * (CONTACTS_MAX_PER_USER, 10 here), the rest reported; malformed lines are skipped and named
 * by number; a card sent again updates rather than duplicates.
 */
describe('a vCard sent as an attachment imports contacts', () => {
  let harness: HeraldHarness;
  let counter = 0;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { CONTACTS_MAX_PER_USER: '10' } });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1312555${String(7100 + counter)}`;
    userId = (await createUser(harness, phone, { timezone: 'America/New_York' })).id;
  });
  afterAll(async () => {
    await harness.close();
  });

  async function sendCard(text: string, type: string, nth = 1): Promise<string> {
    const url = harness.twilio.media.add(Buffer.from(text, 'utf8'), type);
    const response = await harness.inbound({ from: phone, body: '', numMedia: 1, extra: mediaFields([{ url, type }]) });
    expect(response.statusCode).toBe(200);
    const replies = await harness.repliesTo(phone, nth);
    return replies[nth - 1]!.body ?? '';
  }
  const contacts = () => harness.database.prisma.contact.findMany({ where: { userId }, orderBy: { name: 'asc' }, select: { name: true, emails: true, phones: true, source: true } });

  it('a card of three with malformed lines (text/x-vcard): the good ones saved, the bad lines named, no model call; sent again it updates', async () => {
    const card = [
      'BEGIN:VCARD',
      'VERSION:3.0',
      'UID:dana-1',
      'FN:Dana Katz',
      'EMAIL:dana@katz.example',
      'TEL:+14155550101',
      'END:VCARD',
      'BEGIN:VCARD',
      'VERSION:3.0',
      'UID:bob-1',
      'FN:Bob Stone',
      'EMAIL:not-an-address',
      'this line is not a property',
      'END:VCARD',
      'BEGIN:VCARD',
      'VERSION:4.0',
      'FN:Noa Levi',
      'EMAIL:noa@levi.example',
      'END:VCARD',
      '',
    ].join('\r\n');
    expect(await sendCard(card, 'text/x-vcard')).toBe("Saved to your contacts from your contact card: 3 (3 new, 0 updated, 0 merged, 0 refused).\nLines I couldn't read, skipped (2): 12, 13.");
    expect(harness.anthropic.requests).toHaveLength(0);
    expect(await contacts()).toEqual([
      { name: 'Bob Stone', emails: [], phones: [], source: 'vcard' },
      { name: 'Dana Katz', emails: ['dana@katz.example'], phones: ['+14155550101'], source: 'vcard' },
      { name: 'Noa Levi', emails: ['noa@levi.example'], phones: [], source: 'vcard' },
    ]);
    // The same card again: updated, not duplicated (the one without a UID too: it gets one from what it says).
    expect(await sendCard(card.replace('dana@katz.example', 'dana@new.example'), 'text/vcard', 2)).toMatch(/^Saved to your contacts from your contact card: 3 \(0 new, 3 updated, 0 merged, 0 refused\)\./);
    const after = await contacts();
    expect(after.filter((contact) => contact.name === 'Dana Katz')).toEqual([{ name: 'Dana Katz', emails: ['dana@new.example'], phones: ['+14155550101'], source: 'vcard' }]);
    expect(after.map((contact) => contact.name)).toEqual(['Bob Stone', 'Dana Katz', 'Noa Levi']);
  });

  it('a card of 15 with a limit of 10: 10 saved, the other 5 reported, nothing past the limit stored', async () => {
    expect(await sendCard(vcardFile(15), 'text/vcard')).toBe('Saved to your contacts from your contact card: 10 (10 new, 0 updated, 0 merged, 0 refused).\n5 more were not saved: you have reached the limit of 10 contacts.');
    expect(await harness.database.prisma.contact.count({ where: { userId } })).toBe(10);
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it('a file that says it is a vCard but is not: nothing saved, told so', async () => {
    expect(await sendCard('hello, this is just text', 'text/vcard')).toMatch(/^I can't open your contact card/);
    expect(await harness.database.prisma.contact.count({ where: { userId } })).toBe(0);
  });
});
