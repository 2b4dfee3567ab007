import type { CountryCode } from 'libphonenumber-js';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { z } from 'zod';
import type { AddressBookImport } from '../../contacts/address-book-import.js';
import type { ConnectLinks } from '../../connections/connect-links.js';
import type { ConnectionStore } from '../../connections/connection-store.js';
import { GOOGLE_CONTACTS_PURPOSE, type GoogleContacts } from '../../contacts/google-contacts.js';
import type { ContactService, ContactView } from '../../contacts/contact-service.js';
import { defineTool, ok, toolError, type ToolContext, type ToolDefinition } from '../../tools/tool.js';
import { toolLanguage } from '../../tools/bulk-change.js';
import { say } from '../../texts/texts.js';

const contactId = z.string().uuid().describe('The contact id, from find_contacts');
const names = z.array(z.string().trim().min(1).max(80)).max(10);
const fields = {
  nicknames: names.optional().describe('Other names the user calls them ("mom", "Dana K")'),
  relationship: z.string().trim().min(1).max(80).optional().describe('"sister", "dentist", "colleague"'),
  phones: z.array(z.string().trim().min(3).max(40)).max(10).optional(),
  emails: z.array(z.string().trim().min(3).max(254)).max(10).optional(),
  birthday: z.string().trim().max(20).optional().describe('YYYY-MM-DD, or --MM-DD when the year is not known'),
  notes: z.string().trim().max(2000).optional(),
};

/** How the user's own country is known: from their phone number, for contacts' numbers written without +. */
export type UserCountry = (userId: string) => Promise<CountryCode | undefined>;

/** One line per person, numbered, so the user can answer "2" (issue 19's pending choice will answer it without a model). */
function numberedChoices(contacts: ContactView[]): string {
  return contacts.map((contact, index) => `${index + 1}) ${contact.name}${contact.relationship ? ` (${contact.relationship})` : ''}${contact.emails[0] ? ` ${contact.emails[0]}` : contact.phones[0] ? ` ${contact.phones[0]}` : ''}`).join('\n');
}

/**
 * `find_contacts`: people by name, nickname, relationship or email. Shared by the contacts,
 * email and calendar agents, so "email Dana" resolves to her address. Several matches come
 * back numbered with an instruction to ask which one; none, with an instruction to ask once
 * and offer to save the answer.
 */
export function findContactsTool(contacts: ContactService) {
  return defineTool({
    name: 'find_contacts',
    description: 'Find people in the user\'s contacts by name, nickname, relationship ("mom", "my dentist") or email, to get their email address, phone or birthday.',
    mutates: false,
    inputSchema: z.object({ query: z.string().trim().min(1).max(120).describe('A name, nickname, relationship or email') }),
    run: async (input, context) => {
      const found = await contacts.find(context.userId, input.query);
      if (found.length === 0) {
        return ok({ contacts: [], note: `No contact matches "${input.query}". Do not guess an address: ask the user for it, and offer to save it as a contact.` });
      }
      if (found.length > 1) {
        return ok({ contacts: found, choices: numberedChoices(found), note: 'Several people match. Do not pick one: ask which one, listing these choices by number exactly as given, and act only on the answer.' });
      }
      return ok({ contacts: found });
    },
  });
}

/** Google Contacts, when a Google client is configured. */
export interface GoogleContactsTools {
  google: GoogleContacts;
  links: ConnectLinks;
  connections: ConnectionStore;
}

function googleContactTools({ google, links, connections }: GoogleContactsTools): ToolDefinition[] {
  const connected = async (context: ToolContext) => google.connectionOf(await connections.list(context.userId));
  return [
    defineTool({
      name: 'connect_google_contacts',
      description: "Make a short-lived link where the user lets Herald read their Google Contacts (read only); the contacts are imported when they finish. Give the link exactly as returned.",
      mutates: false,
      inputSchema: z.object({}),
      run: async (_input, context) => {
        const issued = await links.issue(context.userId, GOOGLE_CONTACTS_PURPOSE);
        const minutes = Math.round((issued.expiresAt.getTime() - context.clock.now().getTime()) / 60_000);
        return ok({ link: issued.url, expiresInMinutes: minutes, note: `Send this link exactly as given; it works once, for ${minutes} minutes.` });
      },
    }),
    defineTool({
      name: 'import_google_contacts',
      description: 'Import the user\'s Google Contacts again (after they changed them at Google); needs them connected first.',
      mutates: true,
      inputSchema: z.object({}),
      run: async (_input, context) => {
        const connection = await connected(context);
        if (!connection) return toolError('Google Contacts are not connected: give the user a link with connect_google_contacts.');
        return ok({ effect: 'updated', ...(await google.importFrom(connection)) });
      },
    }),
    defineTool({
      name: 'disconnect_google_contacts',
      description: "Stop using the user's Google Contacts: the contacts that came from Google are removed from Herald and its read access given up (their Google calendar or mail, if connected, stays). It waits for the user's YES.",
      mutates: true,
      inputSchema: z.object({}),
      // A connection changes (and contacts go) only on the user's YES; not connected: the call runs and says so.
      confirmation: async (_input, context) =>
        (await connected(context))
          ? { question: 'Disconnect your Google Contacts? The contacts that came from Google are removed from Herald.', done: 'Disconnected your Google Contacts.' }
          : undefined,
      run: async (_input, context) => {
        const connection = context.confirmed ? await connected(context) : undefined;
        if (!connection) return toolError('Google Contacts are not connected; nothing to disconnect.');
        return ok({ effect: 'deleted', removedContacts: await google.disconnect(connection) });
      },
    }),
  ];
}

/** The contacts-agent's tools. Herald never writes or calls a contact: there is no tool for it. */
export function contactTools(contacts: ContactService, countryOf: UserCountry, addressBooks?: AddressBookImport, google?: GoogleContactsTools): ToolDefinition[] {
  const country = (context: ToolContext) => countryOf(context.userId);
  return [
    ...(google ? googleContactTools(google) : []),
    ...(addressBooks
      ? [
          defineTool({
            name: 'import_address_book',
            description: "Import the user's contacts from the address book on the server of their connected CalDAV calendar (iCloud, Fastmail, Nextcloud…). Importing again updates them.",
            mutates: true,
            inputSchema: z.object({}),
            run: async (_input, context) => {
              const imported = await addressBooks.fromCalendarServer(context.userId);
              return imported.ok ? ok({ effect: imported.value.created > 0 ? 'created' : 'updated', ...imported.value }) : toolError(imported.error);
            },
          }),
        ]
      : []),
    findContactsTool(contacts),
    defineTool({
      name: 'list_contacts',
      description: "List the user's contacts by name (50 at a time).",
      mutates: false,
      inputSchema: z.object({ offset: z.number().int().min(0).optional() }),
      run: async (input, context) => ok(await contacts.list(context.userId, { offset: input.offset })),
    }),
    defineTool({
      name: 'save_contact',
      description: 'Save a new person: their name and what the user said about them. For someone already saved, use update_contact (find_contacts first).',
      mutates: true,
      inputSchema: z.object({ name: z.string().trim().min(1).max(120).describe('Their name as the user says it'), ...fields }),
      run: async (input, context) => {
        const saved = await contacts.create(context.userId, input, await country(context));
        return saved.ok ? ok(saved.value) : toolError(saved.error);
      },
    }),
    defineTool({
      name: 'update_contact',
      description: 'Add to or change a saved contact by id: phones, emails and nicknames given are added; name, relationship, birthday and notes replaced.',
      mutates: true,
      inputSchema: z.object({ contactId, name: z.string().trim().min(1).max(120).optional(), ...fields }),
      run: async (input, context) => {
        const updated = await contacts.update(context.userId, input.contactId, input, await country(context));
        return updated.ok ? ok(updated.value) : toolError(updated.error);
      },
    }),
    defineTool({
      name: 'delete_contact',
      description: 'Delete a contact by id. Herald asks the user to confirm with YES first.',
      mutates: true,
      inputSchema: z.object({ contactId }),
      async confirmation(input, context) {
        const contact = await contacts.get(context.userId, input.contactId);
        if (!contact) return undefined;
        const language = toolLanguage(context);
        return { question: say(language, 'contactDeleteAsk', { name: contact.name }), done: say(language, 'contactDeleted', { name: contact.name }) };
      },
      run: async (input, context) => {
        const removed = await contacts.remove(context.userId, input.contactId);
        return removed ? ok({ effect: 'deleted', contact: { id: removed.id, name: removed.name } }) : toolError(`No contact has id ${input.contactId}; nothing was deleted.`);
      },
    }),
  ];
}

/** The country of an E.164 number, for reading contacts' local numbers. */
export function countryOfPhone(phone: string): CountryCode | undefined {
  return parsePhoneNumberFromString(phone)?.country;
}

/** What the email and calendar agents are told about resolving people. */
export const CONTACT_LOOKUP_RULE = `- People by name ("email Dana", "invite mom"): call find_contacts first and use the address it gives. If it lists several people, do not guess: complete with needsClarification and ask which one, giving its numbered choices exactly. If it finds nobody, ask the user for the address and offer to save it as a contact.`;
