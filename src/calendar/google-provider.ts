import { calendar as googleCalendar, type calendar_v3 } from '@googleapis/calendar';
import { DateTime } from 'luxon';
import type { ConnectionRecord } from '../connections/connection-store.js';
import { isInvalidGrant, type GoogleAccounts } from '../connections/google-accounts.js';
import { CalendarError, type CalendarEvent, type EventChanges, type EventDraft, type TimeRange, type WriteOptions } from './calendar-event.js';
import type { CalendarProvider } from './calendar-provider.js';
import { shiftDate, shiftWallClock, wallClock } from './event-time.js';

type GoogleEvent = calendar_v3.Schema$Event;
type GoogleTime = calendar_v3.Schema$EventDateTime;

const CALENDAR_ID = 'primary';

/**
 * The user's primary Google Calendar through the official client (@googleapis/calendar)
 * and an OAuth client from {@link GoogleAccounts}, which refreshes expired access tokens by
 * itself. Recurring events are listed expanded (singleEvents); an occurrence's id is
 * Google's instance id. Writes given a version send it as If-Match. A refresh Google
 * refuses marks the connection for a reconnect, and the user is told so, once.
 */
export class GoogleCalendarProvider implements CalendarProvider {
  readonly kind = 'google' as const;
  readonly label: string;

  constructor(
    private readonly connection: ConnectionRecord,
    private readonly accounts: GoogleAccounts,
    private readonly timeoutMs: number,
  ) {
    this.label = connection.label;
  }

  async listEvents(range: TimeRange, timezone: string): Promise<CalendarEvent[]> {
    const api = await this.api();
    const items: GoogleEvent[] = [];
    let pageToken: string | undefined;
    do {
      const page = await this.call(() =>
        api.events.list({ calendarId: CALENDAR_ID, timeMin: range.from.toISOString(), timeMax: range.to.toISOString(), singleEvents: true, orderBy: 'startTime', maxResults: 2500, timeZone: timezone, pageToken }, { timeout: this.timeoutMs }),
      );
      items.push(...(page.data.items ?? []));
      pageToken = page.data.nextPageToken ?? undefined;
    } while (pageToken);
    // Occurrences do not carry their series' rule: read each series once.
    const rules = new Map<string, string | undefined>();
    for (const seriesId of new Set(items.flatMap((item) => (item.recurringEventId ? [item.recurringEventId] : [])))) {
      const series = await this.call(() => api.events.get({ calendarId: CALENDAR_ID, eventId: seriesId }, { timeout: this.timeoutMs }));
      rules.set(seriesId, ruleOf(series.data));
    }
    return items.filter((item) => item.status !== 'cancelled').map((item) => toEvent(item, timezone, item.recurringEventId ? rules.get(item.recurringEventId) : ruleOf(item)));
  }

  async getEvent(id: string, timezone: string): Promise<CalendarEvent | undefined> {
    const item = await this.fetch(id);
    return item ? toEvent(item, timezone, ruleOf(item)) : undefined;
  }

  async createEvent(draft: EventDraft): Promise<CalendarEvent> {
    const api = await this.api();
    const attendees = draft.attendees ?? [];
    const created = await this.call(() =>
      api.events.insert(
        {
          calendarId: CALENDAR_ID,
          sendUpdates: attendees.length > 0 ? 'all' : 'none',
          requestBody: {
            summary: draft.title,
            location: draft.location,
            description: draft.description,
            start: googleTime(draft.start, draft.allDay, draft.timezone),
            end: googleTime(draft.end, draft.allDay, draft.timezone),
            ...(draft.recurrence ? { recurrence: [`RRULE:${draft.recurrence}`] } : {}),
            ...(attendees.length > 0 ? { attendees: attendees.map((email) => ({ email })) } : {}),
          },
        },
        { timeout: this.timeoutMs },
      ),
    );
    return toEvent(created.data, draft.timezone, ruleOf(created.data));
  }

  async updateEvent(id: string, changes: EventChanges, options: WriteOptions): Promise<CalendarEvent> {
    const item = await this.fetch(id);
    if (!item) throw new CalendarError('not_found', `That event is no longer in ${this.label}. Nothing was changed.`);
    if (options.version !== undefined && item.etag !== options.version) throw this.conflict();
    const series = options.scope === 'series' && item.recurringEventId ? await this.fetch(item.recurringEventId) : undefined;
    const target = series ?? item;
    const current = toEvent(item, options.timezone, undefined);
    const body: GoogleEvent = {};
    if (changes.title !== undefined) body.summary = changes.title;
    if (changes.location !== undefined) body.location = changes.location;
    if (changes.description !== undefined) body.description = changes.description;
    if (changes.attendees !== undefined) body.attendees = changes.attendees.map((email) => ({ email }));
    if (changes.recurrence !== undefined && options.scope === 'series') body.recurrence = changes.recurrence ? [`RRULE:${changes.recurrence}`] : [];
    if (changes.start !== undefined || changes.end !== undefined || changes.allDay !== undefined) {
      const moved = movedTimes(current, changes, options.timezone);
      // On a series, the same shift is applied to its first occurrence.
      const base = series ? toEvent(series, options.timezone, undefined) : current;
      const start = shift(base.start, current.start, moved.start, moved.allDay);
      body.start = googleTime(start, moved.allDay, options.timezone);
      body.end = googleTime(shift(moved.end, moved.start, start, moved.allDay), moved.allDay, options.timezone);
    }
    const api = await this.api();
    const notify = (changes.attendees ?? target.attendees ?? []).length > 0 ? 'all' : 'none';
    const updated = await this.call(() =>
      api.events.patch({ calendarId: CALENDAR_ID, eventId: target.id!, sendUpdates: notify, requestBody: body }, { timeout: this.timeoutMs, ...(options.version !== undefined && !series ? { headers: { 'If-Match': options.version } } : {}) }),
    );
    return toEvent(updated.data, options.timezone, ruleOf(series ? updated.data : item));
  }

  async deleteEvent(id: string, options: WriteOptions): Promise<void> {
    const item = await this.fetch(id);
    if (!item) throw new CalendarError('not_found', `That event is no longer in ${this.label}. Nothing was changed.`);
    if (options.version !== undefined && item.etag !== options.version) throw this.conflict();
    const targetId = options.scope === 'series' && item.recurringEventId ? item.recurringEventId : item.id!;
    const api = await this.api();
    await this.call(() =>
      api.events.delete(
        { calendarId: CALENDAR_ID, eventId: targetId, sendUpdates: (item.attendees ?? []).length > 0 ? 'all' : 'none' },
        { timeout: this.timeoutMs, ...(options.version !== undefined && targetId === item.id ? { headers: { 'If-Match': options.version } } : {}) },
      ),
    );
  }

  private async fetch(id: string): Promise<GoogleEvent | undefined> {
    if (!/^[\w@.-]{1,1024}$/.test(id)) return undefined;
    const api = await this.api();
    try {
      const found = await this.call(() => api.events.get({ calendarId: CALENDAR_ID, eventId: id }, { timeout: this.timeoutMs }));
      return found.data.status === 'cancelled' ? undefined : found.data;
    } catch (error) {
      if (error instanceof CalendarError && error.failure === 'not_found') return undefined;
      throw error;
    }
  }

  private async api(): Promise<calendar_v3.Calendar> {
    const auth = await this.accounts.client(this.connection);
    return googleCalendar({ version: 'v3', auth, rootUrl: this.accounts.apiBaseUrl });
  }

  /** Runs an API call; every failure becomes a CalendarError (or the revoked-access error). */
  private async call<Result>(work: () => Promise<Result>): Promise<Result> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof CalendarError) throw error;
      if (isInvalidGrant(error)) throw await this.accounts.revoked(this.connection);
      const status = (error as { status?: number; response?: { status?: number } }).response?.status ?? (error as { status?: number }).status;
      if (status === 404 || status === 410) throw new CalendarError('not_found', `That event is no longer in ${this.label}. Nothing was changed.`, { cause: error });
      if (status === 412) throw this.conflict();
      if (status === 401 || status === 403) throw new CalendarError('unauthorized', `${this.label} refused Herald's access (HTTP ${status}). Nothing was changed. The user can connect again ("connect my Google calendar").`, { cause: error });
      if (status !== undefined && status >= 400) throw new CalendarError('server', `${this.label} had an error (HTTP ${status}). Nothing was changed; try again later.`, { cause: error });
      throw new CalendarError('unreachable', `${this.label} could not be reached. Nothing was changed; try again later.`, { cause: error });
    }
  }

  private conflict(): CalendarError {
    return new CalendarError('conflict', `That event was changed in ${this.label} since I read it, so I changed nothing. Ask again to see it as it is now.`);
  }
}

/** Where a changed event goes: the new start and end in the user's zone (keeping its length when only the start moves). */
function movedTimes(current: CalendarEvent, changes: EventChanges, zone: string): { allDay: boolean; start: string; end: string } {
  const allDay = changes.allDay ?? (changes.start !== undefined ? !changes.start.includes('T') : current.allDay);
  if (allDay) {
    const start = (changes.start ?? current.start).slice(0, 10);
    const days = current.allDay ? Math.max(1, Math.round((Date.parse(`${current.end}T00:00Z`) - Date.parse(`${current.start}T00:00Z`)) / 86_400_000)) : 1;
    return { allDay, start, end: changes.end?.slice(0, 10) ?? shiftDate(start, days) };
  }
  const start = changes.start ?? (current.allDay ? `${current.start}T09:00` : current.start);
  const length = current.allDay ? 3_600_000 : current.endsAt.getTime() - current.startsAt.getTime();
  const end = changes.end ?? wallClock(new Date(DateTime.fromISO(start, { zone }).toMillis() + length), zone);
  if (DateTime.fromISO(end, { zone }) <= DateTime.fromISO(start, { zone })) throw new CalendarError('invalid', 'The end must be after the start. Nothing was changed.');
  return { allDay, start, end };
}

/** `base` moved by the shift from `from` to `to` (wall clock, or days when all-day). */
function shift(base: string, from: string, to: string, allDay: boolean): string {
  if (base === from) return to;
  if (allDay) return shiftDate(base.slice(0, 10), Math.round((Date.parse(`${to.slice(0, 10)}T00:00Z`) - Date.parse(`${from.slice(0, 10)}T00:00Z`)) / 86_400_000));
  return shiftWallClock(base, Date.parse(`${to}Z`) - Date.parse(`${from}Z`));
}

function googleTime(value: string, allDay: boolean, zone: string): GoogleTime {
  return allDay ? { date: value.slice(0, 10) } : { dateTime: value.length === 16 ? `${value}:00` : value, timeZone: zone };
}

function ruleOf(item: GoogleEvent): string | undefined {
  return item.recurrence?.find((line) => line.startsWith('RRULE:'))?.slice('RRULE:'.length);
}

function toEvent(item: GoogleEvent, zone: string, rule: string | undefined): CalendarEvent {
  const allDay = Boolean(item.start?.date);
  const instant = (time: GoogleTime | undefined) =>
    time?.dateTime ? DateTime.fromISO(time.dateTime, { zone: time.timeZone ?? 'UTC' }).toJSDate() : DateTime.fromISO(time?.date ?? '1970-01-01', { zone }).startOf('day').toJSDate();
  const startsAt = instant(item.start);
  const endsAt = instant(item.end);
  return {
    id: item.id ?? '',
    title: item.summary || '(no title)',
    allDay,
    start: allDay ? item.start!.date! : wallClock(startsAt, zone),
    end: allDay ? (item.end?.date ?? shiftDate(item.start!.date!, 1)) : wallClock(endsAt, zone),
    timezone: zone,
    startsAt,
    endsAt,
    location: item.location || undefined,
    description: item.description || undefined,
    attendees: (item.attendees ?? []).flatMap((attendee) => (attendee.email ? [attendee.email] : [])),
    recurrence: rule,
    version: item.etag ?? undefined,
  };
}
