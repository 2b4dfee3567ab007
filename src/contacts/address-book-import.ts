import { createDAVClient } from 'tsdav';
import { caldavSecretsSchema, caldavSettingsSchema } from '../calendar/caldav-provider.js';
import type { ConnectionStore } from '../connections/connection-store.js';
import type { Logger } from '../logging/logger.js';
import { createOutboundHttp, networkFailureText, type OutboundHttp } from '../net/outbound-fetch.js';
import { OUTBOUND_REFUSED_MESSAGE, OutboundRefusedError, type OutboundPolicy } from '../net/outbound-policy.js';
import { trackedFetch } from '../net/tracked-fetch.js';
import type { ContactService, ImportReport } from './contact-service.js';
import { ParseBudgetError } from '../shared/parse-workers.js';

/** Why an address book too large or too slow to read brought nothing in (worded for the model and the connect page). */
const ADDRESS_BOOK_OVER_BUDGET = 'The address book was too large or too slow to read, so nothing from it was imported.';

/** What importing an address book did, or why nothing was imported (worded for the model). */
export type AddressBookResult = { ok: true; value: ImportReport & { addressBooks: number; account: string } } | { ok: false; error: string };

/**
 * Reads the vCards of every address book a CardDAV account has, as an address book app
 * does (tsdav: RFC 6764 discovery, the principal, its address book home). Every request
 * goes through the outbound policy, so a server on the deployment's own network (or an
 * address book the server names there) is refused before it is contacted.
 */
async function fetchAddressBookCards(account: { serverUrl: string; username: string; password: string; http: OutboundHttp }): Promise<{ ok: true; cards: string[]; addressBooks: number } | { ok: false; error: string }> {
  const { fetch: checkedFetch, seen } = trackedFetch(account.http);
  try {
    await account.http.check(account.serverUrl);
    const client = await createDAVClient({
      serverUrl: account.serverUrl,
      credentials: { username: account.username, password: account.password },
      authMethod: 'Basic',
      defaultAccountType: 'carddav',
      fetch: checkedFetch,
    });
    const addressBooks = await client.fetchAddressBooks();
    const cards: string[] = [];
    for (const addressBook of addressBooks) {
      await account.http.check(addressBook.url);
      for (const card of await client.fetchVCards({ addressBook })) if (typeof card.data === 'string') cards.push(card.data);
    }
    if (seen.refusal) return { ok: false, error: OUTBOUND_REFUSED_MESSAGE };
    return { ok: true, cards, addressBooks: addressBooks.length };
  } catch (error) {
    if (error instanceof OutboundRefusedError || seen.refusal) return { ok: false, error: OUTBOUND_REFUSED_MESSAGE };
    if (seen.lastStatus === 401 || seen.lastStatus === 403) return { ok: false, error: 'The server refused the saved password; the user should connect the calendar again.' };
    return { ok: false, error: `Could not read the address book (${seen.lastStatus ? `HTTP ${seen.lastStatus}` : networkFailureText(error)}). Nothing was imported.` };
  }
}

/**
 * Imports the address books of the server the user's CalDAV calendar is on (iCloud,
 * Fastmail, Nextcloud and Radicale serve contacts beside calendars, with the same
 * password). Contacts keep the connection they came from: disconnecting the calendar
 * removes them (the foreign key cascades), and importing again updates them by UID.
 */
export class AddressBookImport {
  constructor(
    private readonly deps: { contacts: ContactService; connections: ConnectionStore; outbound: OutboundPolicy; timeoutMs: number; logger: Logger },
  ) {}

  async fromCalendarServer(userId: string): Promise<AddressBookResult> {
    const connection = await this.deps.connections.findByProvider(userId, 'caldav');
    if (!connection) return { ok: false, error: 'The user has no CalDAV calendar connected (iCloud, Fastmail, Nextcloud…): address books come from that server. They can connect one first ("connect my calendar").' };
    const settings = caldavSettingsSchema.parse(connection.settings);
    const secrets = await this.deps.connections.secrets(connection, caldavSecretsSchema);
    const http = createOutboundHttp(this.deps.outbound, { trust: connection.operatorTrusted ? 'operator' : 'user', timeoutMs: this.deps.timeoutMs });
    const fetched = await fetchAddressBookCards({ serverUrl: settings.serverUrl, username: settings.username, password: secrets.password, http });
    if (!fetched.ok) {
      this.deps.logger.info({ userId, connectionId: connection.id }, 'address book not imported');
      return fetched;
    }
    let report: ImportReport;
    try {
      report = await this.deps.contacts.importVcards(userId, fetched.cards, { source: 'carddav', connectionId: connection.id });
    } catch (error) {
      if (!(error instanceof ParseBudgetError)) throw error;
      this.deps.logger.warn({ userId, connectionId: connection.id, limit: error.limit }, 'address book not imported: over its parse budget');
      return { ok: false, error: ADDRESS_BOOK_OVER_BUDGET };
    }
    this.deps.logger.info({ userId, connectionId: connection.id, created: report.created, updated: report.updated, merged: report.merged, skipped: report.skipped, refused: report.refused }, 'address book imported');
    return { ok: true, value: { ...report, addressBooks: fetched.addressBooks, account: connection.label } };
  }
}

