import { newUserZone } from '../channels/phone-zones.js';
import { CalendarService } from '../calendar/calendar-service.js';
import { EmailService } from '../email/email-service.js';
import { ConnectionStore } from '../connections/connection-store.js';
import { resolveEncryptionKey } from '../connections/encryption-key.js';
import { GoogleAccounts } from '../connections/google-accounts.js';
import { SecretBox } from '../connections/secret-box.js';
import { systemClock } from '../shared/clock.js';
import { randomIds } from '../shared/ids.js';
import { CommandError, passwordOption, phoneOption, type AccountsContext, type AccountsSubcommand } from './accounts-subcommand.js';
import { servesGmail } from '../email/gmail-mailbox.js';
import { GMAIL_SEND_SCOPE } from '../email/gmail-provider.js';
import { AllowedHosts } from '../net/allowed-hosts.js';
import { OutboundPolicy } from '../net/outbound-policy.js';
import { withoutTrailingSlashes } from '../shared/text-ends.js';
import { isEmailAddress } from '../shared/text-ends.js';

/** The services these commands use, on the command's database. */
async function services({ config, database, logger }: AccountsContext) {
  const box = new SecretBox(await resolveEncryptionKey(config.connections.encryptionKey, config.database.dataDir, logger));
  const connections = new ConnectionStore(database.prisma, box, systemClock);
  // The operator's connections are trusted (they own the network); the policy still resolves once and pins the address.
  const outbound = new OutboundPolicy({ allowedHosts: new AllowedHosts(config.connections.allowedHosts), logger });
  const calendars = new CalendarService({ prisma: database.prisma, connections, clock: systemClock, ids: randomIds, timeoutMs: config.connections.timeoutMs, outbound, logger });
  const emails = new EmailService({ connections, clock: systemClock, ids: randomIds, timeoutMs: config.connections.timeoutMs, outbound, logger });
  // Only to give Herald's grant back to Google when a Google account is removed (no OAuth flow runs here).
  const base = withoutTrailingSlashes(config.http.linkBaseUrl);
  const google = config.connections.google ? new GoogleAccounts(config.connections.google, `${base}/oauth/google/callback`, connections, logger) : undefined;
  return { connections, calendars, emails, google };
}

/** The user with this phone number; `create` makes one (as their first text would) when there is none. */
async function userByPhone(context: AccountsContext, phone: string, create: boolean) {
  const e164 = phoneOption(phone);
  const found = await context.database.prisma.user.findUnique({ where: { phone: e164 } });
  if (found || !create) {
    if (!found) throw new CommandError(`No user has the number ${e164}.`);
    return found;
  }
  const now = new Date();
  return context.database.prisma.user.create({ data: { phone: e164, ...newUserZone(e164, context.config.defaultTimezone, now), createdAt: now, updatedAt: now } });
}

/** `add-caldav`, `add-imap`, `list` and `remove`: connected accounts (calendars and mailboxes). */
export const connectionSubcommands: AccountsSubcommand[] = [
  {
    name: 'add-caldav',
    usage: '--phone +15551234567 --url URL --username U --password P|- [--calendar NAME]   (- reads the password from standard input)',
    summary: "Connect a CalDAV calendar (iCloud, Fastmail, Nextcloud…) as the user's calendar, after checking it with the server.",
    options: { phone: { type: 'string' }, url: { type: 'string' }, username: { type: 'string' }, password: { type: 'string' }, calendar: { type: 'string' } },
    required: ['phone', 'url', 'username', 'password'],
    async run(values, context) {
      const url = String(values.url);
      if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) throw new CommandError(`--url must be the server's full address, starting with https:// (got "${url}").`);
      const password = await passwordOption(values.password);
      const user = await userByPhone(context, String(values.phone), true);
      const { calendars } = await services(context);
      // The operator owns the network: any address, and the connection keeps that trust.
      const connected = await calendars.connectCaldav(user.id, { serverUrl: url, username: String(values.username), password, calendar: values.calendar as string | undefined }, 'operator');
      if (!connected.ok) throw new CommandError(`Not connected: ${connected.error}`);
      return `Connected ${connected.connection.label} for ${user.phone}: calendar "${connected.calendarName}" is now their calendar (connection ${connected.connection.id}).`;
    },
  },
  {
    name: 'add-imap',
    usage: '--phone +15551234567 --imap-url imaps://HOST:993 --smtp-url smtps://HOST:465 --username U --password P|- [--address EMAIL] [--sent-saved-by-server]   (- reads the password from standard input)',
    summary: "Connect a mailbox over IMAP/SMTP as the user's email, after logging in to both servers.",
    options: { phone: { type: 'string' }, 'imap-url': { type: 'string' }, 'smtp-url': { type: 'string' }, username: { type: 'string' }, password: { type: 'string' }, address: { type: 'string' }, 'sent-saved-by-server': { type: 'boolean' } },
    required: ['phone', 'imap-url', 'smtp-url', 'username', 'password'],
    async run(values, context) {
      const imapUrl = String(values['imap-url']);
      const smtpUrl = String(values['smtp-url']);
      if (!/^imaps?:\/\//i.test(imapUrl) || !URL.canParse(imapUrl)) throw new CommandError(`--imap-url must be imaps://host:993 or imap://host:143 (got "${imapUrl}").`);
      if (!/^smtps?:\/\//i.test(smtpUrl) || !URL.canParse(smtpUrl)) throw new CommandError(`--smtp-url must be smtps://host:465 or smtp://host:587 (got "${smtpUrl}").`);
      const username = String(values.username);
      const address = String(values.address ?? username);
      if (!isEmailAddress(address)) throw new CommandError(`The username "${username}" is not an email address: give the mailbox's address with --address.`);
      const password = await passwordOption(values.password);
      const user = await userByPhone(context, String(values.phone), true);
      const { emails } = await services(context);
      const connected = await emails.connectImap(user.id, { imapUrl, smtpUrl, username, password, address, sentSavedByServer: values['sent-saved-by-server'] === true }, 'operator');
      if (!connected.ok) throw new CommandError(`Not connected: ${connected.error}`);
      return `Connected ${connected.connection.label} for ${user.phone} as their mailbox (connection ${connected.connection.id}).`;
    },
  },
  {
    name: 'list',
    usage: '--phone +15551234567',
    summary: "The user's connected accounts, and which calendar Herald uses.",
    options: { phone: { type: 'string' } },
    required: ['phone'],
    async run(values, context) {
      const user = await userByPhone(context, String(values.phone), false);
      const { connections } = await services(context);
      const all = await connections.list(user.id);
      const settings = await context.database.prisma.calendarSettings.findUnique({ where: { userId: user.id } });
      const lines = all.map((connection) => {
        const inUse = connection.id === settings?.connectionId ? ', the calendar in use' : '';
        // One Google account can serve the calendar and mail: say what it is used for.
        const mail = servesGmail(connection) ? `, Gmail (${connection.scopes.includes(GMAIL_SEND_SCOPE) ? 'read and send' : 'read only'})` : '';
        const trusted = connection.operatorTrusted ? ', added by the operator (any address)' : '';
        return `${connection.id}  ${connection.provider}  ${connection.label}  ${connection.status}${inUse}${mail}${trusted}`;
      });
      const calendar = settings?.connectionId ? '' : "\nCalendar: Herald's built-in calendar";
      return `${user.phone}: ${all.length === 0 ? 'no connected accounts' : `${all.length} connected account${all.length === 1 ? '' : 's'}`}${lines.length > 0 ? `\n${lines.join('\n')}` : ''}${calendar}`;
    },
  },
  {
    name: 'remove',
    usage: '--phone +15551234567 (--id CONNECTION_ID | --provider caldav|google|imap)',
    summary: "Delete a connected account and its saved credentials (the user's calendar falls back to Herald's built-in one).",
    options: { phone: { type: 'string' }, id: { type: 'string' }, provider: { type: 'string' } },
    required: ['phone'],
    async run(values, context) {
      const user = await userByPhone(context, String(values.phone), false);
      const { connections, google } = await services(context);
      const all = await connections.list(user.id);
      const matching = all.filter((connection) => (values.id ? connection.id === values.id : values.provider ? connection.provider === values.provider : false));
      if (!values.id && !values.provider) throw new CommandError('Say which: --id CONNECTION_ID (see `list`) or --provider caldav|google|imap.');
      if (matching.length === 0) throw new CommandError(`${user.phone} has no such connected account. ${all.length > 0 ? `They have: ${all.map((connection) => `${connection.id} (${connection.label})`).join(', ')}.` : 'They have none.'}`);
      if (matching.length > 1) throw new CommandError(`${matching.length} accounts match; give --id: ${matching.map((connection) => `${connection.id} (${connection.label})`).join(', ')}.`);
      const [connection] = matching as [(typeof matching)[number]];
      // A Google account: deleted with every scope given up, and Herald's grant revoked at Google.
      const revoked = connection.provider === 'google' && google !== undefined;
      if (revoked) await google.release(connection, connection.scopes);
      else await connections.remove(user.id, connection.id);
      await context.database.prisma.calendarEventReminder.deleteMany({ where: { userId: user.id, calendarKey: connection.id } });
      return `Removed ${connection.label} (${connection.id}) and its credentials for ${user.phone}${revoked ? "; Herald's access was given back to Google" : ''}.`;
    },
  },
];
