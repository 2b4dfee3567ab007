import { createDAVClient } from 'tsdav';
import { networkFailureText, type OutboundHttp } from '../net/outbound-fetch.js';
import { OutboundRefusedError } from '../net/outbound-policy.js';
import { trackedFetch } from '../net/tracked-fetch.js';

/** A calendar found on a CalDAV server. */
interface DiscoveredCalendar {
  url: string;
  name: string;
}

/** What checking a CalDAV account found: its calendars (the default first), or what is wrong, by field. */
export type CaldavCheck =
  | { ok: true; calendars: DiscoveredCalendar[] }
  | { ok: false; field: 'serverUrl' | 'password' | 'form'; error: string };

const PREFERRED_NAMES = /^(?:calendar|calendars|personal|home|default|kalender)$/i;

/**
 * Logs in to a CalDAV server the way a calendar app does (RFC 6764 discovery from the
 * server URL, the principal, its calendar home) and lists the calendars that hold events.
 * Used before anything is saved: a connection that cannot work is never stored. Every
 * request goes through the outbound policy (`http`): an address it refuses is answered
 * with its one message before anything is contacted, and a calendar the server names on
 * a refused address (another host, a private one) refuses the whole account.
 */
export async function checkCaldavAccount(account: { serverUrl: string; username: string; password: string; http: OutboundHttp }, preferred?: string): Promise<CaldavCheck> {
  try {
    await account.http.check(account.serverUrl);
  } catch (error) {
    if (error instanceof OutboundRefusedError) return refusedAddress(error);
    return { ok: false, field: 'serverUrl', error: `Could not reach that server (${networkFailureText(error)}). Check the address and try again.` };
  }
  // tsdav swallows some failures (discovery tries several URLs): the first one says why.
  const { fetch: checkedFetch, seen } = trackedFetch(account.http);
  try {
    const client = await createDAVClient({
      serverUrl: account.serverUrl,
      credentials: { username: account.username, password: account.password },
      authMethod: 'Basic',
      defaultAccountType: 'caldav',
      fetch: checkedFetch,
    });
    const calendars = (await client.fetchCalendars())
      .filter((calendar) => !calendar.components || calendar.components.includes('VEVENT'))
      .map((calendar) => ({ url: calendar.url, name: typeof calendar.displayName === 'string' && calendar.displayName ? calendar.displayName : (calendar.url.split('/').filter(Boolean).pop() ?? 'Calendar') }));
    if (calendars.length === 0) {
      if (seen.refusal) return refusedAddress(seen.refusal);
      if (seen.lastStatus === 401 || seen.lastStatus === 403) return refusedPassword();
      return { ok: false, field: 'serverUrl', error: 'Signed in, but found no calendars for events at this address. Check the server address.' };
    }
    // The server names where its calendars are: each is checked like the address typed
    // before it is stored (later requests go there with the password).
    for (const calendar of calendars) await account.http.check(calendar.url);
    const wanted = preferred?.toLowerCase();
    const index = Math.max(0, wanted ? calendars.findIndex((calendar) => calendar.name.toLowerCase() === wanted) : calendars.findIndex((calendar) => PREFERRED_NAMES.test(calendar.name)));
    if (wanted && calendars[index]!.name.toLowerCase() !== wanted) {
      return { ok: false, field: 'form', error: `There is no calendar named "${preferred}". Calendars there: ${calendars.map((calendar) => calendar.name).sort().join(', ')}.` };
    }
    return { ok: true, calendars: [calendars[index]!, ...calendars.filter((_calendar, position) => position !== index)] };
  } catch (error) {
    if (error instanceof OutboundRefusedError) return refusedAddress(error);
    if (seen.refusal) return refusedAddress(seen.refusal);
    if (seen.lastStatus === 401 || seen.lastStatus === 403) return refusedPassword();
    if (seen.lastStatus === undefined) return { ok: false, field: 'serverUrl', error: `Could not reach that server (${networkFailureText(seen.networkError ?? error)}). Check the address and try again.` };
    return { ok: false, field: 'serverUrl', error: `That server did not answer like a CalDAV calendar server (HTTP ${seen.lastStatus}). Check the address.` };
  }
}

function refusedPassword(): CaldavCheck {
  return { ok: false, field: 'password', error: 'The server refused this username and password. For iCloud use an app-specific password (appleid.apple.com → Sign-In and Security).' };
}

/** The outbound policy's one message: nothing here depends on what listens at the address. */
function refusedAddress(error: OutboundRefusedError): CaldavCheck {
  return { ok: false, field: 'serverUrl', error: error.message };
}
