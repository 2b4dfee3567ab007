import { createCalendarObject, deleteCalendarObject, fetchCalendarObjects, updateCalendarObject, type DAVCalendarObject } from 'tsdav';
import { z } from 'zod';
import type { IdGenerator } from '../shared/ids.js';
import { networkFailureText, type OutboundHttp } from '../net/outbound-fetch.js';
import { OutboundRefusedError } from '../net/outbound-policy.js';
import type { Clock } from '../shared/clock.js';
import { CalendarError, type CalendarEvent, type EventChanges, type EventDraft, type TimeRange, type WriteOptions } from './calendar-event.js';
import type { CalendarProvider } from './calendar-provider.js';
import { buildEventObject } from './ics-changes.js';
import { splitOccurrenceId } from './ics-object.js';
import { changeObjectOffLoop, eventInObjectOffLoop, eventsInObjectsOffLoop, removeFromObjectOffLoop } from './ics-reading.js';

/** A CalDAV connection's settings (not secret). */
export const caldavSettingsSchema = z.object({
  serverUrl: z.string().url(),
  username: z.string().min(1),
  calendarUrl: z.string().url(),
  calendarName: z.string(),
});

/** What a CalDAV connection keeps sealed. */
export const caldavSecretsSchema = z.object({ password: z.string().min(1) });

/** Where and as whom. */
export interface CaldavAccount {
  /** For people: "iCloud (ana@icloud.com)". */
  label: string;
  calendarUrl: string;
  username: string;
  password: string;
  /** Requests under the outbound policy, with the connection's trust and timeout: every URL is checked at each use. */
  http: OutboundHttp;
}

/**
 * A calendar on a CalDAV server (RFC 4791: iCloud, Fastmail, Nextcloud, Radicale…), with
 * tsdav. Listing is one calendar-query REPORT with a time range (the server expands
 * recurrence to decide what matches; Herald expands the occurrences itself). Writes carry
 * the ETag: If-None-Match on create, If-Match on change and delete, so a change someone
 * made on the server since is reported, never overwritten. Every failure becomes a
 * {@link CalendarError} that says nothing was changed. Every request, to the stored
 * calendar URL or wherever the server points, is checked by the outbound policy first.
 */
export class CaldavCalendarProvider implements CalendarProvider {
  readonly kind = 'caldav' as const;
  readonly label: string;
  private readonly calendar: { url: string };
  private readonly headers: Record<string, string>;

  constructor(
    private readonly account: CaldavAccount,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    this.label = account.label;
    this.calendar = { url: account.calendarUrl.endsWith('/') ? account.calendarUrl : `${account.calendarUrl}/` };
    this.headers = { authorization: `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}` };
  }

  async listEvents(range: TimeRange, timezone: string): Promise<CalendarEvent[]> {
    const objects = await this.call(() =>
      fetchCalendarObjects({
        calendar: this.calendar,
        timeRange: { start: range.from.toISOString(), end: range.to.toISOString() },
        useMultiGet: false,
        headers: this.headers,
        fetch: this.fetch,
      }),
    );
    const events = objects
      .filter((object) => typeof object.data === 'string' && object.data.includes('BEGIN:VEVENT'))
      .map((object) => ({ ics: object.data as string, key: this.keyOf(object.url), version: object.etag ?? undefined }));
    // Parsed and expanded in a parse worker: the server's objects are the user's, and may be large or crafted.
    return eventsInObjectsOffLoop(events, range, timezone);
  }

  async getEvent(id: string, timezone: string): Promise<CalendarEvent | undefined> {
    const { key, occurrence } = splitOccurrenceId(id);
    const object = await this.fetchObject(key);
    return object ? eventInObjectOffLoop({ ics: object.data as string, key, version: object.etag ?? undefined }, occurrence, timezone) : undefined;
  }

  async createEvent(draft: EventDraft): Promise<CalendarEvent> {
    const key = `${this.ids.next('herald').replace(/[^\w-]/g, '')}.ics`;
    const ics = buildEventObject(draft, key.replace(/\.ics$/, ''), this.clock.now());
    await this.call(() => createCalendarObject({ calendar: this.calendar, filename: key, iCalString: ics, headers: this.headers, fetch: this.fetch }));
    const created = await this.fetchObject(key);
    return (await eventInObjectOffLoop({ ics: (created?.data as string | undefined) ?? ics, key, version: created?.etag ?? undefined }, undefined, draft.timezone))!;
  }

  async updateEvent(id: string, changes: EventChanges, options: WriteOptions): Promise<CalendarEvent> {
    const { key, occurrence } = splitOccurrenceId(id);
    const object = await this.current(key, options.version);
    const ics = await changeObjectOffLoop(object.data as string, occurrence, changes, options.scope, options.timezone, this.clock.now());
    await this.call(() => updateCalendarObject({ calendarObject: { ...object, data: ics }, headers: this.headers, fetch: this.fetch }));
    const saved = await this.fetchObject(key);
    return (await eventInObjectOffLoop({ ics: (saved?.data as string | undefined) ?? ics, key, version: saved?.etag ?? undefined }, options.scope === 'occurrence' ? occurrence : undefined, options.timezone))!;
  }

  async deleteEvent(id: string, options: WriteOptions): Promise<void> {
    const { key, occurrence } = splitOccurrenceId(id);
    const object = await this.current(key, options.version);
    const ics = await removeFromObjectOffLoop(object.data as string, occurrence, options.scope, this.clock.now());
    if (ics === undefined) await this.call(() => deleteCalendarObject({ calendarObject: object, headers: this.headers, fetch: this.fetch }));
    else await this.call(() => updateCalendarObject({ calendarObject: { ...object, data: ics }, headers: this.headers, fetch: this.fetch }));
  }

  /** The object as the server has it now; refused when it has moved past the version the caller saw. */
  private async current(key: string, version: string | undefined): Promise<DAVCalendarObject> {
    const object = await this.fetchObject(key);
    if (!object) throw new CalendarError('not_found', `That event is no longer in ${this.label}. Nothing was changed.`);
    if (version !== undefined && object.etag !== version) {
      throw new CalendarError('conflict', `That event was changed in ${this.label} since I read it, so I changed nothing. Ask again to see it as it is now.`);
    }
    // The write below sends this ETag (If-Match): a change landing in between is refused too.
    return version !== undefined ? { ...object, etag: version } : object;
  }

  private async fetchObject(key: string): Promise<DAVCalendarObject | undefined> {
    if (!/^[^/?#]+\.ics$/.test(key)) return undefined;
    const url = new URL(encodeURIComponent(key).replace(/%40/g, '@'), this.calendar.url).href;
    const response = await this.fetch(url, { method: 'GET', headers: this.headers }).catch((error: unknown) => {
      if (error instanceof CalendarError && error.failure === 'not_found') return undefined;
      throw error;
    });
    if (!response) return undefined;
    return { url, etag: response.headers.get('etag') ?? undefined, data: await response.text() };
  }

  /** The object's key: its file name within the calendar. */
  private keyOf(url: string): string {
    return decodeURIComponent(url.split('/').filter(Boolean).pop() ?? url);
  }

  /** Runs a tsdav call; failures that are not already a CalendarError become one. */
  private async call<Result>(work: () => Promise<Result>): Promise<Result> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof CalendarError) throw error;
      throw new CalendarError('server', `${this.label} answered in a way Herald could not read (${error instanceof Error ? error.message : String(error)}). Nothing was changed.`, { cause: error });
    }
  }

  /** fetch under the outbound policy (with its timeout), turning HTTP and network failures into CalendarErrors. */
  private readonly fetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    let response: Response;
    try {
      response = await this.account.http.fetch(input, init);
    } catch (error) {
      if (error instanceof OutboundRefusedError) {
        throw new CalendarError('unreachable', `${this.label} cannot be used from here: ${error.message} Nothing was changed; the connection is kept.`, { cause: error });
      }
      throw new CalendarError(
        'unreachable',
        `${this.label} could not be reached (${networkFailureText(error)}). Nothing was changed, and the connection is kept; try again later.`,
        { cause: error },
      );
    }
    if (response.status === 401 || response.status === 403) {
      throw new CalendarError('unauthorized', `${this.label} refused the saved username and password (HTTP ${response.status}). Nothing was changed; the connection is kept. If the password was changed or revoked, the user can connect again ("connect my calendar").`);
    }
    if (response.status === 412) throw new CalendarError('conflict', `That event was changed in ${this.label} since I read it, so I changed nothing. Ask again to see it as it is now.`);
    if (response.status === 404) throw new CalendarError('not_found', `That event is no longer in ${this.label}. Nothing was changed.`);
    if (response.status >= 500) throw new CalendarError('server', `${this.label} had a server error (HTTP ${response.status}). Nothing was changed, and the connection is kept; try again later.`);
    if (response.status >= 400) throw new CalendarError('server', `${this.label} refused the request (HTTP ${response.status}). Nothing was changed.`);
    return response;
  };
}
