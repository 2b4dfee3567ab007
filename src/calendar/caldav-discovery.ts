import { createDAVClient } from 'tsdav';

/** A calendar found on a CalDAV server. */
export interface DiscoveredCalendar {
  url: string;
  name: string;
}

/** What checking a CalDAV account found: its calendars (the default first), or what is wrong, by field. */
export type CaldavCheck =
  | { ok: true; calendars: DiscoveredCalendar[] }
  | { ok: false; field: 'serverUrl' | 'password' | 'form'; error: string };

const PREFERRED_NAMES = /^(calendar|calendars|personal|home|default|kalender)$/i;

/**
 * Logs in to a CalDAV server the way a calendar app does (RFC 6764 discovery from the
 * server URL, the principal, its calendar home) and lists the calendars that hold events.
 * Used before anything is saved: a connection that cannot work is never stored.
 */
export async function checkCaldavAccount(account: { serverUrl: string; username: string; password: string; timeoutMs: number }, preferred?: string): Promise<CaldavCheck> {
  let lastStatus: number | undefined;
  let networkError: unknown;
  const timedFetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    try {
      const response = await fetch(input, { ...init, signal: AbortSignal.timeout(account.timeoutMs) });
      lastStatus = response.status;
      return response;
    } catch (error) {
      // tsdav wraps what fetch threw; the original says why the server could not be reached.
      networkError ??= error;
      throw error;
    }
  };
  try {
    const client = await createDAVClient({
      serverUrl: account.serverUrl,
      credentials: { username: account.username, password: account.password },
      authMethod: 'Basic',
      defaultAccountType: 'caldav',
      fetch: timedFetch,
    });
    const calendars = (await client.fetchCalendars())
      .filter((calendar) => !calendar.components || calendar.components.includes('VEVENT'))
      .map((calendar) => ({ url: calendar.url, name: typeof calendar.displayName === 'string' && calendar.displayName ? calendar.displayName : (calendar.url.split('/').filter(Boolean).pop() ?? 'Calendar') }));
    if (calendars.length === 0) {
      if (lastStatus === 401 || lastStatus === 403) return refusedPassword();
      return { ok: false, field: 'serverUrl', error: 'Signed in, but found no calendars for events at this address. Check the server address.' };
    }
    const wanted = preferred?.toLowerCase();
    const index = Math.max(0, wanted ? calendars.findIndex((calendar) => calendar.name.toLowerCase() === wanted) : calendars.findIndex((calendar) => PREFERRED_NAMES.test(calendar.name)));
    if (wanted && calendars[index]!.name.toLowerCase() !== wanted) {
      return { ok: false, field: 'form', error: `There is no calendar named "${preferred}". Calendars there: ${calendars.map((calendar) => calendar.name).sort().join(', ')}.` };
    }
    return { ok: true, calendars: [calendars[index]!, ...calendars.filter((_calendar, position) => position !== index)] };
  } catch (error) {
    if (lastStatus === 401 || lastStatus === 403) return refusedPassword();
    if (lastStatus === undefined) return { ok: false, field: 'serverUrl', error: `Could not reach that server (${describe(networkError ?? error)}). Check the address and try again.` };
    return { ok: false, field: 'serverUrl', error: `That server did not answer like a CalDAV calendar server (HTTP ${lastStatus}). Check the address.` };
  }
}

function refusedPassword(): CaldavCheck {
  return { ok: false, field: 'password', error: 'The server refused this username and password. For iCloud use an app-specific password (appleid.apple.com → Sign-In and Security).' };
}

function describe(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'it did not answer in time';
  const code = (error as { cause?: { code?: string } }).cause?.code;
  return code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'no such server' : 'network error';
}
