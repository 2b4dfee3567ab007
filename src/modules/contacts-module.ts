import { contactsAgent } from '../agents/contacts/contacts-agent.js';
import { countryOfPhone, findContactsTool, type GoogleContactsTools } from '../agents/contacts/contact-tools.js';
import type { Config } from '../config/config.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Clock } from '../shared/clock.js';
import type { AddressBookImport } from '../contacts/address-book-import.js';
import { ContactService } from '../contacts/contact-service.js';

/**
 * Contacts, wired: the service, contacts-agent, and the `find_contacts` tool the email and
 * calendar agents get so they can resolve people by name.
 */
export function createContactsModule(deps: { config: Config; prisma: PrismaClient; clock: Clock }) {
  const contacts = new ContactService(deps.prisma, deps.clock, { maxPerUser: deps.config.brain.maxContactsPerUser });
  // A contact's local number ("054-…") is read in the user's own country.
  const countryOf = async (userId: string) => {
    const user = await deps.prisma.user.findUnique({ where: { id: userId }, select: { phone: true } });
    return user ? countryOfPhone(user.phone) : undefined;
  };
  return {
    contacts,
    lookup: findContactsTool(contacts),
    /** contacts-agent, with address book import once the connections it reads exist. */
    agentWith: (addressBooks?: AddressBookImport, google?: GoogleContactsTools) => contactsAgent(contacts, countryOf, addressBooks, google),
  };
}

/** The wired contacts module. */
export type ContactsModule = ReturnType<typeof createContactsModule>;
