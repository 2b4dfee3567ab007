import { z } from 'zod';
import type { ConnectLinks } from '../connections/connect-links.js';
import { defineConnectMethod, type ConnectMethod } from '../connections/connect-method.js';
import type { GoogleAccounts } from '../connections/google-accounts.js';
import type { Logger } from '../logging/logger.js';
import { describeError } from '../shared/errors.js';
import type { CalendarService } from './calendar-service.js';

/** Google's scope for reading and writing calendar events (and nothing else of the account). */
const GOOGLE_CALENDAR_SCOPE = 'https://www.googleapis.com/auth/calendar.events';

const caldavSchema = z.object({
  serverUrl: z
    .string()
    .trim()
    .min(1, 'Enter the server address.')
    .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), 'Enter the full address, starting with https://'),
  username: z.string().trim().min(1, 'Enter your username (often your email address).').max(200),
  password: z.string().min(1, 'Enter the password (for iCloud, an app-specific password).').max(500),
  // An unticked checkbox posts "".
  contacts: z
    .string()
    .optional()
    .transform((value) => value === 'on'),
});

/**
 * Brings in the address books of the server the user's CalDAV calendar is on (src/contacts
 * AddressBookImport, wired in runtime.ts: contacts sit beside the calendar, not under it).
 */
export type ServerContacts = (
  userId: string,
) => Promise<{ ok: true; value: { created: number; updated: number; merged: number; skipped: number; refused: number; addressBooks: number } } | { ok: false; error: string }>;

/**
 * What the done page says about the contacts the user asked for with their calendar: how many
 * came in, always as new, updated, merged (cards sharing a UID) and refused (a value or card
 * too long or too many, src/contacts/contact-limits.ts), and any left out by the user's limit.
 */
function contactsLine(result: Awaited<ReturnType<ServerContacts>>): string {
  if (!result.ok) return ` Your contacts were not brought in: ${result.error}`;
  const { created, updated, merged, skipped, refused, addressBooks } = result.value;
  if (addressBooks === 0) return ' This server has no address book, so no contacts were brought in.';
  const count = created + updated;
  const counts = `${created} new, ${updated} updated, ${merged} merged from cards sharing a UID, ${refused} ${refused === 1 ? 'value' : 'values'} refused as too long or too many`;
  return ` Herald also brought in ${count} contact${count === 1 ? '' : 's'} from its address book${addressBooks === 1 ? '' : 's'} (${counts})${skipped > 0 ? `; ${skipped} more are over your limit and were left out` : ''}; disconnecting the calendar removes them.`;
}

/** The connect pages for calendars: any CalDAV server, iCloud (the same, its address filled in), and Google (OAuth). */
export function calendarConnectMethods(deps: {
  calendars: CalendarService;
  links: ConnectLinks;
  google?: GoogleAccounts | undefined;
  logger: Logger;
  /** The same server's contacts (CardDAV), offered on the CalDAV form; read when the form is sent, so it can be wired later. */
  contacts?: () => ServerContacts | undefined;
}): ConnectMethod[] {
  const caldav = (purpose: string, title: string, intro: string, serverUrl: string) =>
    defineConnectMethod({
      purpose,
      title,
      intro,
      initialValues: { serverUrl, contacts: 'on' },
      form: {
        title: 'Your calendar account',
        submitLabel: 'Connect',
        schema: caldavSchema,
        fields: [
          { name: 'serverUrl', label: 'Server address', type: 'url', required: true, hint: 'iCloud: https://caldav.icloud.com · Fastmail: https://caldav.fastmail.com · Nextcloud: https://your.server/remote.php/dav', autocomplete: 'url' },
          { name: 'username', label: 'Username', type: 'text', required: true, autocomplete: 'username', maxLength: 200 },
          { name: 'password', label: 'App password', type: 'password', required: true, autocomplete: 'current-password', hint: 'An app-specific password, not your main one. It is stored encrypted and only used to reach your calendar.' },
          ...(deps.contacts
            ? [{ name: 'contacts', label: 'Also bring in my contacts from this server, where it has them', type: 'checkbox' as const, hint: 'iCloud, Fastmail, Nextcloud and Radicale keep contacts beside calendars. Herald only reads them, to know who "Dana" is; it never writes to anyone.' }]
            : []),
        ],
      },
      submit: async (link, values) => {
        const connected = await deps.calendars.connectCaldav(link.userId, { serverUrl: values.serverUrl, username: values.username, password: values.password });
        if (!connected.ok) return connected.field === 'form' ? { kind: 'refused', formError: connected.error } : { kind: 'refused', fieldErrors: { [connected.field]: connected.error } };
        const importContacts = values.contacts ? deps.contacts?.() : undefined;
        const contacts = importContacts ? contactsLine(await importContacts(link.userId)) : '';
        return { kind: 'done', message: `Connected ${connected.connection.label}. Herald now uses your calendar "${connected.calendarName}".${contacts} You can close this page and text Herald.` };
      },
    });
  const methods: ConnectMethod[] = [
    caldav('caldav-calendar', 'Connect your calendar', 'Connect a CalDAV calendar (Fastmail, Nextcloud, Radicale, iCloud…) so Herald can read and add your events. Herald checks the account with the server before saving anything.', ''),
    caldav(
      'icloud-calendar',
      'Connect your iCloud calendar',
      'Herald connects to iCloud with an **app-specific password**: make one at appleid.apple.com → Sign-In and Security → App-Specific Passwords, and enter it below with your Apple ID email.',
      'https://caldav.icloud.com',
    ),
  ];
  const google = deps.google;
  if (google) {
    methods.push(
      defineConnectMethod({
        purpose: 'google-calendar',
        title: 'Connect your Google Calendar',
        intro: 'Google will ask you to let Herald see and change the events in your calendars. Herald asks for nothing else, and you can remove its access at any time in your Google account.',
        form: { title: 'Google Calendar', submitLabel: 'Continue to Google', schema: z.object({}), fields: [] },
        submit: async (link) => {
          const { state, codeChallenge } = await deps.links.beginOAuth(link.id);
          return { kind: 'redirect', url: google.consentUrl(await google.scopesFor(link.userId, [GOOGLE_CALENDAR_SCOPE]), state, codeChallenge) };
        },
        completeOAuth: async (link, code, verifier) => {
          try {
            const connection = await google.connect(link.userId, code, verifier, await google.scopesFor(link.userId, [GOOGLE_CALENDAR_SCOPE]));
            if (!connection.scopes.includes(GOOGLE_CALENDAR_SCOPE)) return { kind: 'refused', formError: 'Google did not give Herald access to your calendar. Try again and allow it.' };
            await deps.calendars.useConnection(link.userId, connection.id);
            return { kind: 'done', message: `Connected ${connection.label}. Herald now uses your Google Calendar. You can close this page and text Herald.` };
          } catch (error) {
            deps.logger.warn({ linkId: link.id, error: describeError(error) }, 'Google connection failed');
            return { kind: 'refused', formError: 'Google did not complete the connection. Please try again.' };
          }
        },
      }),
    );
  }
  return methods;
}
