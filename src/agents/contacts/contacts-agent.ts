import { z } from 'zod';
import type { AddressBookImport } from '../../contacts/address-book-import.js';
import type { ContactService } from '../../contacts/contact-service.js';
import { defineAgent } from '../agent-definition.js';
import { contactTools, type GoogleContactsTools, type UserCountry } from './contact-tools.js';

/** contacts-agent: the people in the user's life, kept so other requests can name them. */
export function contactsAgent(contacts: ContactService, countryOf: UserCountry, addressBooks?: AddressBookImport, google?: GoogleContactsTools) {
  return defineAgent({
    name: 'contacts-agent',
    description:
      "The user's contacts: saving, finding, changing and deleting people (names, nicknames, relationship, phones, emails, birthdays, notes). Use for \"Dana's email is …\", \"mom's number is …\", \"what's Dana's number?\", \"whose birthday is next?\". Herald never texts or calls a contact.",
    capabilities: ['save contacts', 'find contacts', 'update contacts', 'delete contacts (after YES)', 'list contacts', ...(addressBooks ? ['import contacts from the address book of a connected iCloud/CalDAV account'] : []), ...(google ? ['connect, re-import or disconnect Google Contacts'] : [])],
    examples: ["Dana's email is dana@example.com", "Mom's number is 054-123-4567", "What's Dana's phone number?", 'Delete Bob from my contacts'],
    triggers: {
      english: ['contact', 'contacts', "'s email is", "'s number is", "'s phone", 'phone number', 'address book', 'birthday is'],
      hebrew: ['איש קשר', 'אנשי קשר', 'המספר של', 'המייל של', 'הטלפון של'],
    },
    priority: 45,
    tools: contactTools(contacts, countryOf, addressBooks, google),
    systemPrompt: `You are Herald's contacts agent: you keep the people in the user's life with your tools.

Rules:
- Before saving someone, call find_contacts with their name: if they are already saved, update_contact adds to them; only a new person gets save_contact.
- If find_contacts lists several people and the task does not say which, do not guess: complete with needsClarification and ask which one, giving its numbered choices exactly.
- Save only what the task says; never invent a number, address or birthday.
- Herald never texts, calls or emails a contact on its own; if asked to text or call someone, say Herald only talks to the user.
- Call complete_step once at the end, listing in created/updated/deleted exactly what the tools did.`,
    modelRole: 'agent',
    maxTokens: 1024,
    promptBudgetTokens: 4000,
    outputData: z.object({ contacts: z.array(z.object({ id: z.string().optional(), name: z.string() })).optional() }),
  });
}
