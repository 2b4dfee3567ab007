import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { Contact, Prisma } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Clock } from '../shared/clock.js';
import { parseBirthday, parseVcards, type VcardContact } from './vcard.js';
import { isEmailAddress } from '../shared/text-ends.js';

/** Where a contact came from. */
export type ContactSource = 'user' | 'vcard' | 'carddav' | 'google';

/** A contact as tools and pages see it. */
export interface ContactView {
  id: string;
  name: string;
  nicknames: string[];
  relationship: string | null;
  phones: string[];
  emails: string[];
  birthday: string | null;
  notes: string | null;
  source: string;
}

/** What the user said about a contact; every field optional on update. */
export interface ContactInput {
  name?: string | undefined;
  nicknames?: readonly string[] | undefined;
  relationship?: string | undefined;
  phones?: readonly string[] | undefined;
  emails?: readonly string[] | undefined;
  birthday?: string | undefined;
  notes?: string | undefined;
}

/** A contact's fields after checking and normalising. */
interface CleanContact {
  nicknames?: string[] | undefined;
  phones?: string[] | undefined;
  emails?: string[] | undefined;
  relationship?: string | undefined;
  birthday?: string | undefined;
  notes?: string | undefined;
}

/** An expected failure, worded for the model. */
export type ContactResult<Value> = { ok: true; value: Value } | { ok: false; error: string };

/** What an import did. */
export interface ImportReport {
  created: number;
  updated: number;
  /** Contacts in the file past the user's limit: not imported. */
  skipped: number;
  /** Lines or cards that could not be read (listed, capped). */
  problems: string[];
}

const toView = (contact: Contact): ContactView => ({
  id: contact.id,
  name: contact.name,
  nicknames: contact.nicknames,
  relationship: contact.relationship,
  phones: contact.phones,
  emails: contact.emails,
  birthday: contact.birthday,
  notes: contact.notes,
  source: contact.source,
});

/** Lower-case, accents off, one space: "Dána  K." matches "dana k". */
export function foldName(name: string): string {
  return name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^\p{L}\p{N}@.+]+/gu, ' ').trim();
}

const unique = (values: Iterable<string>) => [...new Set([...values].map((value) => value.trim()).filter(Boolean))];

/** E.164 when the number parses (in the user's own country when it has no +), else as written. */
export function normalizePhone(phone: string, country?: CountryCode): string {
  const parsed = parsePhoneNumberFromString(phone, country);
  return parsed?.isValid() ? parsed.number : phone.trim();
}

/**
 * The people in the user's life: names and nicknames, relationship, phones, emails,
 * birthday and notes, from the user's words, vCards and address books. Herald uses them to
 * resolve "email Dana" to an address; it never writes or calls them (it speaks only to its
 * user). Every method is scoped to one user.
 */
export class ContactService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    private readonly options: { maxPerUser: number },
  ) {}

  /**
   * Contacts whose name, a nickname, a word of the name, or an email address matches
   * `query` ("Dana", "mom", "dana@"), best first: whole name or nickname, then first
   * word, then any word or the start of one.
   */
  async find(userId: string, query: string): Promise<ContactView[]> {
    const wanted = foldName(query);
    if (!wanted) return [];
    // Matched here rather than in SQL, so accents and letter case fold the same way for every script
    // (a user has at most CONTACTS_MAX_PER_USER contacts; only the names are read).
    const candidates = await this.prisma.contact.findMany({ where: { userId }, select: { id: true, name: true, nicknames: true, emails: true, relationship: true } });
    const scored = candidates
      .map((contact) => ({ contact, score: matchScore(contact, wanted) }))
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score || a.contact.name.localeCompare(b.contact.name));
    const best = scored[0]?.score ?? 0;
    // An exact name or nickname wins outright: "Dana K" finds Dana K, not every Dana.
    const ids = scored.filter((entry) => best < 100 || entry.score >= 100).slice(0, 10).map((entry) => entry.contact.id);
    const rows = new Map((await this.prisma.contact.findMany({ where: { id: { in: ids } } })).map((contact) => [contact.id, contact]));
    return ids.map((id) => toView(rows.get(id)!));
  }

  async list(userId: string, options: { limit?: number; offset?: number } = {}): Promise<{ contacts: ContactView[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.prisma.contact.findMany({ where: { userId }, orderBy: [{ name: 'asc' }, { id: 'asc' }], take: options.limit ?? 50, skip: options.offset ?? 0 }),
      this.prisma.contact.count({ where: { userId } }),
    ]);
    return { contacts: rows.map(toView), total };
  }

  async get(userId: string, contactId: string): Promise<ContactView | undefined> {
    const contact = await this.prisma.contact.findFirst({ where: { id: contactId, userId } });
    return contact ? toView(contact) : undefined;
  }

  /** Saves a new contact from the user's words. */
  async create(userId: string, input: ContactInput & { name: string }, country?: CountryCode): Promise<ContactResult<{ effect: 'created'; contact: ContactView }>> {
    const data = this.clean(input, country);
    if (!data.ok) return data;
    const count = await this.prisma.contact.count({ where: { userId } });
    if (count >= this.options.maxPerUser) return { ok: false, error: `The user already has ${count.toLocaleString('en-US')} contacts, the most Herald keeps. Nothing was saved.` };
    const now = this.clock.now();
    const contact = await this.prisma.contact.create({
      data: { userId, name: input.name.trim(), nicknames: data.value.nicknames ?? [], phones: data.value.phones ?? [], emails: data.value.emails ?? [], relationship: data.value.relationship ?? null, birthday: data.value.birthday ?? null, notes: data.value.notes ?? null, source: 'user', createdAt: now, updatedAt: now },
    });
    return { ok: true, value: { effect: 'created', contact: toView(contact) } };
  }

  /** Changes a contact: given lists (phones, emails, nicknames) are added to, other fields replaced. */
  async update(userId: string, contactId: string, input: ContactInput, country?: CountryCode): Promise<ContactResult<{ effect: 'updated' | 'unchanged'; contact: ContactView }>> {
    const existing = await this.prisma.contact.findFirst({ where: { id: contactId, userId } });
    if (!existing) return { ok: false, error: `No contact has id ${contactId}. Use find_contacts to get it.` };
    const data = this.clean(input, country);
    if (!data.ok) return data;
    const next = {
      name: input.name?.trim() || existing.name,
      nicknames: unique([...existing.nicknames, ...(data.value.nicknames ?? [])]),
      phones: unique([...existing.phones, ...(data.value.phones ?? [])]),
      emails: unique([...existing.emails, ...(data.value.emails ?? [])]),
      relationship: data.value.relationship ?? existing.relationship,
      birthday: data.value.birthday ?? existing.birthday,
      notes: data.value.notes ?? existing.notes,
    };
    if (JSON.stringify(next) === JSON.stringify({ name: existing.name, nicknames: existing.nicknames, phones: existing.phones, emails: existing.emails, relationship: existing.relationship, birthday: existing.birthday, notes: existing.notes })) {
      return { ok: true, value: { effect: 'unchanged', contact: toView(existing) } };
    }
    const updated = await this.prisma.contact.update({ where: { id: existing.id }, data: { ...next, updatedAt: this.clock.now() } });
    return { ok: true, value: { effect: 'updated', contact: toView(updated) } };
  }

  /** Deletes a contact; undefined when there is none. */
  async remove(userId: string, contactId: string): Promise<ContactView | undefined> {
    const existing = await this.prisma.contact.findFirst({ where: { id: contactId, userId } });
    if (!existing) return undefined;
    await this.prisma.contact.delete({ where: { id: existing.id } });
    return toView(existing);
  }

  /**
   * Imports a vCard file (an attachment) or an address book's cards: a card already
   * imported from the same place (same UID) is updated, the rest created, up to the
   * user's limit; what is past the limit, and what could not be read, is reported.
   */
  async importVcards(
    userId: string,
    text: string,
    from: { source: Exclude<ContactSource, 'user'>; connectionId?: string | undefined; country?: CountryCode | undefined },
  ): Promise<ImportReport> {
    const parsed = parseVcards(text);
    // A card without a UID gets one from what it says, so the same card sent again (or a turn
    // run again after a crash) updates its contact instead of adding a second one.
    const contacts = parsed.contacts.map((card) => (card.uid ? card : { ...card, uid: `herald-${createHash('sha256').update(JSON.stringify([card.name, card.emails, card.phones])).digest('hex').slice(0, 24)}` }));
    return this.importContacts(userId, contacts, from, parsed.problems);
  }

  /** Imports contacts already read (vCards, Google's People API), as {@link importVcards}. */
  async importContacts(
    userId: string,
    contacts: VcardContact[],
    from: { source: Exclude<ContactSource, 'user'>; connectionId?: string | undefined; country?: CountryCode | undefined },
    problems: string[] = [],
  ): Promise<ImportReport> {
    const report: ImportReport = { created: 0, updated: 0, skipped: 0, problems };
    const now = this.clock.now();
    await this.prisma.$transaction(async (transaction) => {
      await transaction.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`contacts:${userId}`}, 0))`;
      let count = await transaction.contact.count({ where: { userId } });
      const known = new Map(
        (await transaction.contact.findMany({ where: { userId, source: from.source, sourceUid: { not: null } }, select: { id: true, sourceUid: true } })).map((row) => [row.sourceUid!, row.id]),
      );
      const creates: Prisma.ContactCreateManyInput[] = [];
      for (const card of contacts) {
        const data = {
          name: card.name.slice(0, 200),
          nicknames: unique(card.nicknames).slice(0, 10),
          phones: unique(card.phones.map((phone) => normalizePhone(phone, from.country))).slice(0, 10),
          emails: unique(card.emails).slice(0, 10),
          relationship: card.relationship ?? null,
          birthday: card.birthday ?? null,
          notes: card.notes ?? null,
          sourceConnectionId: from.connectionId ?? null,
          updatedAt: now,
        };
        const existingId = card.uid ? known.get(card.uid) : undefined;
        if (existingId) {
          await transaction.contact.update({ where: { id: existingId }, data });
          report.updated += 1;
        } else if (count >= this.options.maxPerUser) {
          report.skipped += 1;
        } else {
          creates.push({ ...data, userId, source: from.source, sourceUid: card.uid ?? null, createdAt: now });
          if (card.uid) known.set(card.uid, 'pending');
          count += 1;
          report.created += 1;
        }
      }
      for (let start = 0; start < creates.length; start += 1000) await transaction.contact.createMany({ data: creates.slice(start, start + 1000) });
    }, { timeout: 60_000 });
    return report;
  }

  /** Removes what came from an address book (when it is disconnected): the count removed. */
  async removeFromConnection(userId: string, connectionId: string): Promise<number> {
    const { count } = await this.prisma.contact.deleteMany({ where: { userId, sourceConnectionId: connectionId } });
    return count;
  }

  private clean(input: ContactInput, country?: CountryCode): ContactResult<CleanContact> {
    const emails = input.emails?.map((email) => email.trim().toLowerCase());
    const badEmail = emails?.find((email) => !isEmailAddress(email));
    if (badEmail) return { ok: false, error: `"${badEmail}" is not an email address. Nothing was saved.` };
    let birthday: string | undefined;
    if (input.birthday) {
      birthday = parseBirthday(input.birthday);
      if (!birthday) return { ok: false, error: `"${input.birthday}" is not a birthday: give YYYY-MM-DD, or --MM-DD without the year. Nothing was saved.` };
    }
    return {
      ok: true,
      value: {
        nicknames: input.nicknames ? unique(input.nicknames) : undefined,
        phones: input.phones?.map((phone) => normalizePhone(phone, country)),
        emails,
        relationship: input.relationship?.trim() || undefined,
        birthday,
        notes: input.notes?.trim() || undefined,
      },
    };
  }
}

/** How well a contact matches a folded query: 100+ for a whole name or nickname, less for words. */
function matchScore(contact: Pick<Contact, 'name' | 'nicknames' | 'emails' | 'relationship'>, wanted: string): number {
  const name = foldName(contact.name);
  const nicknames = contact.nicknames.map(foldName);
  if (name === wanted || nicknames.includes(wanted)) return 120;
  if (contact.relationship && foldName(contact.relationship) === wanted) return 110;
  if (contact.emails.some((email) => email === wanted)) return 100;
  const words = [...name.split(' '), ...nicknames.flatMap((nickname) => nickname.split(' '))];
  const queryWords = wanted.split(' ');
  if (queryWords.every((word) => words.includes(word))) return queryWords[0] === name.split(' ')[0] ? 80 : 60;
  if (queryWords.every((word) => words.some((candidate) => candidate.startsWith(word)))) return 40;
  if (contact.emails.some((email) => email.startsWith(wanted))) return 30;
  return 0;
}
