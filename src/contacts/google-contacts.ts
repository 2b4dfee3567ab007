import { z } from 'zod';
import type { ConnectLinks } from '../connections/connect-links.js';
import { defineConnectMethod, type ConnectMethod } from '../connections/connect-method.js';
import type { ConnectionRecord } from '../connections/connection-store.js';
import { isInvalidGrant, type GoogleAccounts } from '../connections/google-accounts.js';
import type { Logger } from '../logging/logger.js';
import { describeError } from '../shared/errors.js';
import type { ContactService, ImportReport } from './contact-service.js';
import type { VcardContact } from './vcard.js';

/** Read-only access to the user's Google Contacts: asked for only when they connect their contacts. */
export const GOOGLE_CONTACTS_SCOPE = 'https://www.googleapis.com/auth/contacts.readonly';
/** The link purpose for connecting Google Contacts. */
export const GOOGLE_CONTACTS_PURPOSE = 'google-contacts';

/** Google's own address for the People API; GOOGLE_API_BASE_URL replaces it only when it is not Google's default (tests, a proxy). */
const PEOPLE_API = 'https://people.googleapis.com/';
const DEFAULT_API_BASE = 'https://www.googleapis.com/';
const PAGE_SIZE = 1000;
/** Pages read at most (a million contacts): a server that pages forever cannot keep Herald reading. */
const MAX_PAGES = 1000;

const personSchema = z.object({
  resourceName: z.string(),
  names: z.array(z.object({ displayName: z.string().optional() })).optional(),
  nicknames: z.array(z.object({ value: z.string().optional() })).optional(),
  emailAddresses: z.array(z.object({ value: z.string().optional() })).optional(),
  phoneNumbers: z.array(z.object({ value: z.string().optional(), canonicalForm: z.string().optional() })).optional(),
  birthdays: z.array(z.object({ date: z.object({ year: z.number().optional(), month: z.number().optional(), day: z.number().optional() }).optional() })).optional(),
  biographies: z.array(z.object({ value: z.string().optional() })).optional(),
});
const pageSchema = z.object({ connections: z.array(personSchema).optional(), nextPageToken: z.string().optional() });

const two = (value: number) => String(value).padStart(2, '0');

/** A People API person as a contact (undefined for one with no name, email or nickname). */
function contactOfPerson(person: z.infer<typeof personSchema>): VcardContact | undefined {
  const values = (list: Array<{ value?: string | undefined }> | undefined) => (list ?? []).map((item) => item.value?.trim() ?? '').filter(Boolean);
  const nicknames = values(person.nicknames);
  const emails = values(person.emailAddresses).map((email) => email.toLowerCase());
  const name = person.names?.map((entry) => entry.displayName?.trim()).find(Boolean) ?? nicknames[0] ?? emails[0];
  if (!name) return undefined;
  const date = person.birthdays?.map((entry) => entry.date).find((candidate) => candidate?.month && candidate.day);
  return {
    name,
    nicknames,
    emails,
    phones: (person.phoneNumbers ?? []).map((phone) => phone.canonicalForm?.trim() || phone.value?.trim() || '').filter(Boolean),
    birthday: date ? `${date.year ? String(date.year).padStart(4, '0') : '-'}-${two(date.month!)}-${two(date.day!)}` : undefined,
    notes: values(person.biographies)[0]?.slice(0, 2000),
    uid: person.resourceName,
  };
}

/**
 * Google Contacts, read with the People API (`people/me/connections`, page by page) under
 * `contacts.readonly`: a scope added to the user's Google consent only when they ask to
 * connect their contacts (incremental consent keeps the calendar and mail they gave). The
 * contacts keep the Google connection they came from; disconnecting contacts removes them
 * and gives the scope up (the connection itself goes when nothing else uses it).
 */
export class GoogleContacts {
  constructor(
    private readonly deps: { contacts: ContactService; google: GoogleAccounts; apiBaseUrl: string; logger: Logger },
  ) {}

  /** The user's Google connection that may read contacts, if any. */
  async connectionOf(connections: ConnectionRecord[]): Promise<ConnectionRecord | undefined> {
    return connections.find((connection) => connection.provider === 'google' && connection.scopes.includes(GOOGLE_CONTACTS_SCOPE));
  }

  /** Imports (or updates, by resource name) every contact of the connection's Google account. */
  async importFrom(connection: ConnectionRecord): Promise<ImportReport> {
    const client = await this.deps.google.client(connection);
    const base = this.deps.apiBaseUrl === DEFAULT_API_BASE ? PEOPLE_API : this.deps.apiBaseUrl;
    const people: VcardContact[] = [];
    let pageToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const url = new URL('v1/people/me/connections', base);
      url.searchParams.set('personFields', 'names,nicknames,emailAddresses,phoneNumbers,birthdays,biographies');
      url.searchParams.set('pageSize', String(PAGE_SIZE));
      if (pageToken) url.searchParams.set('pageToken', pageToken);
      const response = await client.request({ url: url.toString(), method: 'GET' }).catch(async (error: unknown) => {
        // Access revoked at Google: the connection is marked for reconnecting, and the user told so.
        throw isInvalidGrant(error) ? await this.deps.google.revoked(connection) : error;
      });
      const parsed = pageSchema.parse(response.data);
      for (const person of parsed.connections ?? []) {
        const contact = contactOfPerson(person);
        if (contact) people.push(contact);
      }
      pageToken = parsed.nextPageToken;
      if (!pageToken) break;
    }
    const report = await this.deps.contacts.importContacts(connection.userId, people, { source: 'google', connectionId: connection.id });
    this.deps.logger.info({ userId: connection.userId, connectionId: connection.id, created: report.created, updated: report.updated, skipped: report.skipped }, 'Google contacts imported');
    return report;
  }

  /** Stops using Google Contacts: removes what came from it and gives up the scope. */
  async disconnect(connection: ConnectionRecord): Promise<number> {
    const removed = await this.deps.contacts.removeFromConnection(connection.userId, connection.id);
    await this.deps.google.release(connection, [GOOGLE_CONTACTS_SCOPE]);
    return removed;
  }

  /** The connect page: Google's consent for contacts.readonly, then the import. */
  connectMethod(links: ConnectLinks): ConnectMethod {
    const { google, logger } = this.deps;
    return defineConnectMethod({
      purpose: GOOGLE_CONTACTS_PURPOSE,
      title: 'Connect your Google Contacts',
      intro:
        'Google will ask you to let Herald **see** your contacts (read only). Herald uses them to know who you mean ("email Dana"); it never writes to, texts or calls anyone in them, and you can remove its access at any time in your Google account.',
      form: { title: 'Google Contacts', submitLabel: 'Continue to Google', schema: z.object({}), fields: [] },
      submit: async (link) => {
        const { state, codeChallenge } = await links.beginOAuth(link.id);
        return { kind: 'redirect', url: google.consentUrl(await google.scopesFor(link.userId, [GOOGLE_CONTACTS_SCOPE]), state, codeChallenge) };
      },
      completeOAuth: async (link, code, verifier) => {
        try {
          const connection = await google.connect(link.userId, code, verifier, await google.scopesFor(link.userId, [GOOGLE_CONTACTS_SCOPE]));
          if (!connection.scopes.includes(GOOGLE_CONTACTS_SCOPE)) return { kind: 'refused', formError: 'Google did not give Herald access to your contacts. Try again and allow it.' };
          const report = await this.importFrom(connection);
          const skipped = report.skipped > 0 ? ` ${report.skipped} more were left out: Herald keeps at most that many contacts.` : '';
          return { kind: 'done', message: `Connected ${connection.label}: ${report.created + report.updated} contacts. You can close this page and text Herald.${skipped}` };
        } catch (error) {
          logger.warn({ linkId: link.id, error: describeError(error) }, 'Google contacts connection failed');
          return { kind: 'refused', formError: 'Google did not complete the connection. Please try again.' };
        }
      },
    });
  }
}
