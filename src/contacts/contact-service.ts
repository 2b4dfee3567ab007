import type { CountryCode } from 'libphonenumber-js';
import type { Contact } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import { lockUserRows } from '../db/user-lock.js';
import type { Clock } from '../shared/clock.js';
import { sharedParseWorkers, type ParseWorkers } from '../shared/parse-workers.js';
import { sqlTimestamp, uuidv7 } from '../shared/sql.js';
import { isEmailAddress } from '../shared/text-ends.js';
import { CONTACT_LIMITS } from './contact-limits.js';
import { normalizePhone, uniqueValues } from './contact-fields.js';
import type { PreparedContact, PreparedImport } from './contact-import-preparation.js';
import { parseBirthday, type VcardContact } from './vcard.js';

/** The worker-side half of an import (src/contacts/contact-import-preparation.ts), for the parse workers. */
const PREPARATION = new URL('./contact-import-preparation.js', import.meta.url);

/** Where a contact came from. */
type ContactSource = 'user' | 'vcard' | 'carddav' | 'google';

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

/** What an import did: every count the user is told, and the first few lines behind the last two. */
export interface ImportReport {
  created: number;
  updated: number;
  /** Cards that shared a UID with a later card of the same import: merged into it (the last wins). */
  merged: number;
  /** Contacts in the file past the user's limit: not imported. */
  skipped: number;
  /** Values and cards cut or refused for their length or number (CONTACT_LIMITS). */
  refused: number;
  /** Lines or cards that could not be read. */
  unread: number;
  /** The first unreadable lines ("line 4: not a vCard property"). */
  problems: string[];
  /** The first refusals ("line 9: a phone number longer than 64 characters was refused"). */
  refusals: string[];
}

/** Where an import's contacts come from. */
export interface ImportSource {
  source: Exclude<ContactSource, 'user'>;
  connectionId?: string | undefined;
  country?: CountryCode | undefined;
}

/** Rows per statement when an import writes (a parameter list, or a JSON document, of this many contacts). */
const WRITE_BATCH = 1_000;

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
function foldName(name: string): string {
  return name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^\p{L}\p{N}@.+]+/gu, ' ').trim();
}

const unique = uniqueValues;

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
    private readonly options: { maxPerUser: number; parsing?: ParseWorkers | undefined },
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
    // Counted and created under the user's contacts lock: saves made at once (the planner runs
    // steps together, an import may be running) never pass the limit together.
    return this.prisma.$transaction(async (transaction): Promise<ContactResult<{ effect: 'created'; contact: ContactView }>> => {
      await lockUserRows(transaction, 'contacts', userId);
      const count = await transaction.contact.count({ where: { userId } });
      if (count >= this.options.maxPerUser) return { ok: false, error: `The user already has ${count.toLocaleString('en-US')} contacts, the most Herald keeps. Nothing was saved.` };
      const now = this.clock.now();
      const contact = await transaction.contact.create({
        data: { userId, name: input.name.trim(), nicknames: data.value.nicknames ?? [], phones: data.value.phones ?? [], emails: data.value.emails ?? [], relationship: data.value.relationship ?? null, birthday: data.value.birthday ?? null, notes: data.value.notes ?? null, source: 'user', createdAt: now, updatedAt: now },
      });
      return { ok: true, value: { effect: 'created', contact: toView(contact) } };
    });
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
    // Lists are added to: the sum is held to the same limit as one call.
    for (const [what, values, before] of [['nicknames', next.nicknames, existing.nicknames], ['phone numbers', next.phones, existing.phones], ['email addresses', next.emails, existing.emails]] as const) {
      if (values.length > CONTACT_LIMITS.valuesPerField && values.length > before.length) return { ok: false, error: `${existing.name} would have ${values.length} ${what}; a contact keeps at most ${CONTACT_LIMITS.valuesPerField}. Nothing was saved.` };
    }
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
   * Imports vCard text (an attachment, or each card of an address book): read in a parse
   * worker with its time budget (a ParseBudgetError past it, and nothing written), held to
   * CONTACT_LIMITS, cards sharing a UID merged (the last wins); then a card already imported
   * from the same place (same UID) is updated, the rest created, up to the user's limit. The
   * report counts what was created, updated, merged, left out by the limit, refused and
   * unreadable.
   */
  async importVcards(userId: string, text: string | readonly string[], from: ImportSource): Promise<ImportReport> {
    const prepared = await this.parsing().run<PreparedImport>(PREPARATION, 'prepareVcardImport', [typeof text === 'string' ? [text] : text, from.country]);
    return this.write(userId, prepared, from);
  }

  /** Imports contacts already read (Google's People API), as {@link importVcards}. */
  async importContacts(userId: string, contacts: VcardContact[], from: ImportSource): Promise<ImportReport> {
    const prepared = await this.parsing().run<PreparedImport>(PREPARATION, 'prepareContactsImport', [contacts, from.country]);
    return this.write(userId, prepared, from);
  }

  private parsing(): ParseWorkers {
    return this.options.parsing ?? sharedParseWorkers();
  }

  /**
   * Writes a prepared import in one transaction under the user's contacts lock: the updates as
   * one statement per {@link WRITE_BATCH} rows, the new contacts likewise (a 5,000-card
   * re-import is a handful of statements, not 5,000 round trips).
   */
  private async write(userId: string, prepared: PreparedImport, from: ImportSource): Promise<ImportReport> {
    const report: ImportReport = { created: 0, updated: 0, merged: prepared.merged, skipped: 0, refused: prepared.refused, unread: prepared.unread, problems: prepared.problems, refusals: prepared.refusals };
    const now = this.clock.now();
    await this.prisma.$transaction(async (transaction) => {
      await lockUserRows(transaction, 'contacts', userId);
      let count = await transaction.contact.count({ where: { userId } });
      const known = new Map(
        (await transaction.contact.findMany({ where: { userId, source: from.source, sourceUid: { not: null } }, select: { id: true, sourceUid: true } })).map((row) => [row.sourceUid!, row.id]),
      );
      const updates: Array<PreparedContact & { id: string }> = [];
      const creates: Array<Omit<PreparedContact, 'uid'> & { id: string; sourceUid: string }> = [];
      // Prepared contacts have distinct UIDs (same-UID cards were merged), so each is one row.
      for (const contact of prepared.contacts) {
        const existingId = known.get(contact.uid);
        if (existingId) updates.push({ ...contact, id: existingId });
        else if (count >= this.options.maxPerUser) report.skipped += 1;
        else {
          const { uid, ...fields } = contact;
          creates.push({ ...fields, id: uuidv7(now), sourceUid: uid });
          count += 1;
        }
      }
      for (let start = 0; start < updates.length; start += WRITE_BATCH) {
        const rows = JSON.stringify(updates.slice(start, start + WRITE_BATCH).map(({ uid: _uid, ...row }) => row));
        report.updated += await transaction.$executeRaw`
          UPDATE "Contact" AS c
          SET "name" = r."name", "nicknames" = r."nicknames", "phones" = r."phones", "emails" = r."emails", "relationship" = r."relationship",
              "birthday" = r."birthday", "notes" = r."notes", "sourceConnectionId" = ${from.connectionId ?? null}::uuid, "updatedAt" = ${sqlTimestamp(now)}::timestamp
          FROM jsonb_to_recordset(${rows}::jsonb) AS r("id" uuid, "name" text, "nicknames" text[], "phones" text[], "emails" text[], "relationship" text, "birthday" text, "notes" text)
          WHERE c."id" = r."id" AND c."userId" = ${userId}::uuid`;
      }
      // Raw like the updates: Prisma's createMany of 1,000 rows is compiled on the event loop
      // (~0.5 s for a 5,000-card file, measured by npm run bench -- contacts), one JSON parameter is not.
      for (let start = 0; start < creates.length; start += WRITE_BATCH) {
        const rows = JSON.stringify(creates.slice(start, start + WRITE_BATCH));
        report.created += await transaction.$executeRaw`
          INSERT INTO "Contact" ("id", "userId", "name", "nicknames", "phones", "emails", "relationship", "birthday", "notes", "source", "sourceUid", "sourceConnectionId", "createdAt", "updatedAt")
          SELECT r."id", ${userId}::uuid, r."name", r."nicknames", r."phones", r."emails", r."relationship", r."birthday", r."notes", ${from.source}, r."sourceUid",
                 ${from.connectionId ?? null}::uuid, ${sqlTimestamp(now)}::timestamp, ${sqlTimestamp(now)}::timestamp
          FROM jsonb_to_recordset(${rows}::jsonb) AS r("id" uuid, "name" text, "nicknames" text[], "phones" text[], "emails" text[], "relationship" text, "birthday" text, "notes" text, "sourceUid" text)`;
      }
    }, { timeout: 60_000 });
    return report;
  }

  /** Removes what came from an address book (when it is disconnected): the count removed. */
  async removeFromConnection(userId: string, connectionId: string): Promise<number> {
    const { count } = await this.prisma.contact.deleteMany({ where: { userId, sourceConnectionId: connectionId } });
    return count;
  }

  /**
   * What the model passed, checked before anything is matched or stored (issue 32): every value
   * within CONTACT_LIMITS, or the call is refused whole with the reason, so the model can say it
   * and nothing is stored cut without the user knowing.
   */
  private clean(input: ContactInput, country?: CountryCode): ContactResult<CleanContact> {
    const tooLong = (what: string, value: string, cap: number): ContactResult<never> => ({
      ok: false,
      error: `${what} "${value.slice(0, 40)}…" is ${value.length.toLocaleString('en-US')} characters long; Herald keeps at most ${cap}. Nothing was saved.`,
    });
    const tooMany = (what: string, values: readonly string[]): ContactResult<never> | undefined =>
      values.length > CONTACT_LIMITS.valuesPerField ? { ok: false, error: `${values.length} ${what} were given; a contact keeps at most ${CONTACT_LIMITS.valuesPerField}. Nothing was saved.` } : undefined;
    const name = input.name?.trim();
    if (name && name.length > CONTACT_LIMITS.name) return tooLong('The name', name, CONTACT_LIMITS.name);
    const checks: Array<[string, readonly string[] | undefined, number]> = [
      ['The nickname', input.nicknames, CONTACT_LIMITS.nickname],
      ['The phone number', input.phones, CONTACT_LIMITS.phone],
      ['The email address', input.emails, CONTACT_LIMITS.email],
      ['The relationship', input.relationship ? [input.relationship] : undefined, CONTACT_LIMITS.relationship],
      ['The note', input.notes ? [input.notes] : undefined, CONTACT_LIMITS.notes],
    ];
    for (const [what, values, cap] of checks) {
      const long = values?.map((value) => value.trim()).find((value) => value.length > cap);
      if (long !== undefined) return tooLong(what, long, cap);
    }
    const many = tooMany('nicknames', input.nicknames ?? []) ?? tooMany('phone numbers', input.phones ?? []) ?? tooMany('email addresses', input.emails ?? []);
    if (many) return many;
    const emails = input.emails?.map((email) => email.trim().toLowerCase());
    const badEmail = emails?.find((email) => !isEmailAddress(email));
    if (badEmail !== undefined) return { ok: false, error: `"${badEmail}" is not an email address. Nothing was saved.` };
    let birthday: string | undefined;
    if (input.birthday) {
      birthday = parseBirthday(input.birthday);
      if (!birthday) return { ok: false, error: `"${input.birthday.slice(0, 40)}" is not a birthday: give YYYY-MM-DD, or --MM-DD without the year. Nothing was saved.` };
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
