import { createHash } from 'node:crypto';
import type { CountryCode } from 'libphonenumber-js';
import { holdToLimits, uniqueValues } from './contact-fields.js';
import { CONTACT_LIMITS } from './contact-limits.js';
import { MAX_PROBLEMS_LISTED, parseVcards, type VcardContact, type VcardParseResult } from './vcard.js';

/**
 * The CPU side of an import, run in a parse worker (src/shared/parse-workers.ts) so a large or
 * hostile file never stalls the event loop: vCards parsed and held to CONTACT_LIMITS, phones
 * normalised, a UID for every card, and cards sharing a UID merged into one. What comes back is
 * plain data, ready for ContactService to write in a few statements.
 */

/** A contact ready to write: every field within CONTACT_LIMITS, its UID settled. */
export interface PreparedContact {
  uid: string;
  name: string;
  nicknames: string[];
  phones: string[];
  emails: string[];
  relationship: string | null;
  birthday: string | null;
  notes: string | null;
}

/** An import, read and ready: the contacts, and what was merged, refused or unreadable. */
export interface PreparedImport {
  contacts: PreparedContact[];
  /** Cards that shared a UID with a later card of the same import and were merged into it (the last wins). */
  merged: number;
  /** Values and cards cut or refused for their length or number. */
  refused: number;
  /** Lines or cards that could not be read. */
  unread: number;
  /** The first few unreadable lines ("line 4: …"). */
  problems: string[];
  /** The first few refusals ("line 9: a phone number longer than 64 characters was refused"). */
  refusals: string[];
}

/** Reads vCard texts (one attachment, or each card of an address book) and prepares their contacts. */
export function prepareVcardImport(texts: readonly string[], country?: CountryCode): PreparedImport {
  const parsed: VcardParseResult = { contacts: [], problems: [], refusals: [], unread: 0, refused: 0, cards: 0 };
  for (const text of texts) {
    const one = parseVcards(text, { cardsBefore: parsed.cards });
    parsed.cards = one.cards;
    parsed.contacts.push(...one.contacts);
    parsed.problems.push(...one.problems);
    parsed.refusals.push(...one.refusals);
    parsed.unread += one.unread;
    parsed.refused += one.refused;
  }
  return prepare(parsed, country);
}

/** Prepares contacts already read elsewhere (Google's People API), held to the same limits. */
export function prepareContactsImport(contacts: readonly VcardContact[], country?: CountryCode): PreparedImport {
  const kept = contacts.slice(0, CONTACT_LIMITS.cardsPerImport);
  const refused = contacts.length - kept.length;
  const refusals = refused > 0 ? [`${refused} contacts past the ${CONTACT_LIMITS.cardsPerImport.toLocaleString('en-US')} one import reads were refused`] : [];
  return prepare({ contacts: kept, problems: [], refusals, unread: 0, refused, cards: contacts.length }, country);
}

function prepare(parsed: VcardParseResult, country: CountryCode | undefined): PreparedImport {
  const byUid = new Map<string, VcardContact>();
  let merged = 0;
  for (const card of parsed.contacts) {
    // A card without a UID gets one from what it says, so the same card sent again (or a turn
    // run again after a crash) updates its contact instead of adding a second one.
    const uid = card.uid ?? `herald-${createHash('sha256').update(JSON.stringify([card.name, card.emails, card.phones])).digest('hex').slice(0, 24)}`;
    const earlier = byUid.get(uid);
    if (earlier) merged += 1;
    // Two cards with one UID are one contact: the later card's name, birthday, notes and
    // relationship win; the phones, emails and nicknames of both are kept. Moved to the end, as
    // the later card stands.
    byUid.delete(uid);
    byUid.set(uid, earlier ? mergeCards(earlier, card) : { ...card, uid });
  }
  const result: PreparedImport = { contacts: [], merged, refused: parsed.refused, unread: parsed.unread, problems: parsed.problems.slice(0, MAX_PROBLEMS_LISTED), refusals: parsed.refusals.slice(0, MAX_PROBLEMS_LISTED) };
  for (const [uid, card] of byUid) {
    const held = holdToLimits(card, country, `the card of ${JSON.stringify(card.name.slice(0, 40))}`);
    result.refused += held.refused;
    for (const refusal of held.refusals) if (result.refusals.length < MAX_PROBLEMS_LISTED) result.refusals.push(refusal);
    const contact = held.contact;
    if (!contact.name) continue;
    result.contacts.push({
      uid,
      name: contact.name,
      nicknames: contact.nicknames,
      phones: contact.phones,
      emails: contact.emails,
      relationship: contact.relationship ?? null,
      birthday: contact.birthday ?? null,
      notes: contact.notes ?? null,
    });
  }
  return result;
}

function mergeCards(earlier: VcardContact, later: VcardContact): VcardContact {
  return {
    uid: later.uid ?? earlier.uid,
    name: later.name || earlier.name,
    nicknames: uniqueValues([...earlier.nicknames, ...later.nicknames]),
    phones: uniqueValues([...earlier.phones, ...later.phones]),
    emails: uniqueValues([...earlier.emails, ...later.emails]),
    birthday: later.birthday ?? earlier.birthday,
    notes: later.notes ?? earlier.notes,
    relationship: later.relationship ?? earlier.relationship,
  };
}
