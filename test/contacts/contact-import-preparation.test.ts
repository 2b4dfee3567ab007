import { describe, expect, it } from 'vitest';
import { prepareContactsImport, prepareVcardImport } from '../../src/contacts/contact-import-preparation.js';
import { CONTACT_LIMITS } from '../../src/contacts/contact-limits.js';
import { HOSTILE_CARD } from '../fixtures/hostile-vcard.js';

const card = (...lines: string[]) => ['BEGIN:VCARD', 'VERSION:3.0', ...lines, 'END:VCARD'].join('\r\n');

/**
 * What an import reads, held to CONTACT_LIMITS (issue 32): each value at its length (a name or
 * note cut, an address, phone or nickname refused, each by its line), each list at ten, a card
 * at 500 properties, an import at 20,000 cards; properties Herald does not read skipped whatever
 * their length; cards sharing a UID merged, the later winning.
 */
describe('preparing an import', () => {
  it('refuses the hostile address of issue 32 by its line, and keeps the card', () => {
    expect(prepareVcardImport([HOSTILE_CARD])).toEqual({
      contacts: [{ uid: 'hostile-1', name: 'Hostile Card', nicknames: [], phones: [], emails: [], relationship: null, birthday: null, notes: null }],
      merged: 0,
      refused: 1,
      unread: 0,
      problems: [],
      refusals: ['line 5: EMAIL longer than 10,000 characters was refused'],
    });
  });

  it('holds every value to its cap: at the cap kept, past it cut (name, note) or refused (nickname, phone, email), each by its line', () => {
    const address = (length: number) => `${'a'.repeat(length - '@example.com'.length)}@example.com`;
    const prepared = prepareVcardImport([
      card(
        'UID:caps-1',
        `FN:${'N'.repeat(250)}`,
        `NICKNAME:${'k'.repeat(100)},${'K'.repeat(101)}`,
        `TEL:${'5'.repeat(64)}`,
        `TEL:${'6'.repeat(65)}`,
        `EMAIL:${address(254)}`,
        `EMAIL:${address(255)}`,
        `NOTE:${'o'.repeat(2_500)}`,
        `PHOTO;ENCODING=b;TYPE=JPEG:${'A'.repeat(1_000_000)}`,
        `X-LONG:${'x'.repeat(50_000)}`,
      ),
    ]);
    expect(prepared.contacts).toEqual([
      { uid: 'caps-1', name: 'N'.repeat(200), nicknames: ['k'.repeat(100)], phones: ['5'.repeat(64)], emails: [address(254)], relationship: null, birthday: null, notes: 'o'.repeat(2_000) },
    ]);
    expect(prepared.refusals).toEqual([
      'line 4: the name cut to 200 characters',
      'line 5: a nickname longer than 100 characters was refused',
      'line 7: a phone number longer than 64 characters was refused',
      'line 9: an email address longer than 254 characters was refused',
      'line 10: the note cut to 2,000 characters',
    ]);
    expect(prepared.refused).toBe(5);
  });

  it('keeps ten phones, emails and nicknames a contact, refusing the rest', () => {
    const phones = Array.from({ length: 12 }, (_unused, index) => `TEL:+1415555${String(index).padStart(4, '0')}`);
    const prepared = prepareVcardImport([card('UID:many-1', 'FN:Many Phones', ...phones)]);
    expect(prepared.contacts[0]!.phones).toHaveLength(10);
    expect(prepared).toMatchObject({ refused: 2, refusals: ['line 1: 2 phones over the 10 a contact keeps were refused'] });
  });

  it('refuses a card of more than 500 properties whole, and reads the next', () => {
    const crowded = card('FN:Crowded', ...Array.from({ length: CONTACT_LIMITS.propertiesPerCard }, (_unused, index) => `X-FIELD-${index}:${index}`));
    const prepared = prepareVcardImport([`${crowded}\r\n${card('FN:Next One')}`]);
    expect(prepared.contacts.map((contact) => contact.name)).toEqual(['Next One']);
    expect(prepared).toMatchObject({ refused: 1, refusals: ['line 1: a card with more than 500 properties was refused'] });
  });

  it('reads at most 20,000 cards in one import (across an address book\'s files), refusing and counting the rest', () => {
    const files = Array.from({ length: 4 }, (_unused, file) => Array.from({ length: 5_001 }, (_unused2, index) => card(`UID:c-${file}-${index}`, `FN:C ${file} ${index}`)).join('\r\n'));
    const prepared = prepareVcardImport(files);
    expect(prepared.contacts).toHaveLength(CONTACT_LIMITS.cardsPerImport);
    expect(prepared.refused).toBe(4);
    // The fourth file's 4,998th card (5 lines each) is the 20,001st.
    expect(prepared.refusals).toEqual(['line 24986: more than 20,000 cards in one import; this card and the rest were refused']);
  });

  it('merges cards sharing a UID: the later card\'s name, note and relationship win, lists of both kept, a field only the earlier has kept', () => {
    const prepared = prepareVcardImport([
      [
        card('UID:same', 'FN:Dana Katz', 'TEL:+14155550101', 'EMAIL:dana@old.example', 'BDAY:1990-05-14', 'NOTE:first'),
        card('UID:other', 'FN:Bob Stone'),
        card('UID:same', 'FN:Dana K. Katz', 'TEL:+14155550102', 'EMAIL:dana@new.example', 'NOTE:second', 'X-RELATIONSHIP:sister'),
      ].join('\r\n'),
    ]);
    expect(prepared.merged).toBe(1);
    expect(prepared.contacts).toEqual([
      { uid: 'other', name: 'Bob Stone', nicknames: [], phones: [], emails: [], relationship: null, birthday: null, notes: null },
      { uid: 'same', name: 'Dana K. Katz', nicknames: [], phones: ['+14155550101', '+14155550102'], emails: ['dana@old.example', 'dana@new.example'], relationship: 'sister', birthday: '1990-05-14', notes: 'second' },
    ]);
  });

  it('holds a merge to the limits too: two cards of eight phones each keep ten', () => {
    const phones = (from: number) => Array.from({ length: 8 }, (_unused, index) => `TEL:+1415555${String(from + index).padStart(4, '0')}`);
    const prepared = prepareVcardImport([[card('UID:twin', 'FN:Twin', ...phones(0)), card('UID:twin', 'FN:Twin', ...phones(100))].join('\r\n')]);
    expect(prepared.contacts[0]!.phones).toHaveLength(10);
    expect(prepared).toMatchObject({ merged: 1, refused: 6, refusals: ['the card of "Twin": 6 phones over the 10 a contact keeps were refused'] });
  });

  it('holds contacts read elsewhere (Google) to the same limits', () => {
    const prepared = prepareContactsImport([{ uid: 'people/c1', name: 'G'.repeat(300), nicknames: ['n'.repeat(3_000_000)], phones: ['5'.repeat(3_000_000), '+14155550100'], emails: ['not-an-address', 'g@example.com'] }]);
    expect(prepared.contacts).toEqual([{ uid: 'people/c1', name: 'G'.repeat(200), nicknames: [], phones: ['+14155550100'], emails: ['g@example.com'], relationship: null, birthday: null, notes: null }]);
    expect(prepared.refused).toBe(4);
  });
});
