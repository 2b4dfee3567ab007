import type { CalendarEvent, EventChanges, EventDraft, TimeRange, WriteOptions } from './calendar-event.js';

/**
 * One calendar: Herald's built-in one, a CalDAV server's, or Google's. The tools and the
 * calendar service speak only this; every provider passes the same contract tests
 * (test/calendar/provider-contract.ts). Failures are {@link CalendarError}s.
 */
export interface CalendarProvider {
  readonly kind: 'builtin' | 'caldav' | 'google';
  /** For people: "Herald's calendar", "iCloud (ana@icloud.com)". */
  readonly label: string;
  /** Events and occurrences overlapping the range, recurring events expanded, by start. All-day dates are read in `timezone`. */
  listEvents(range: TimeRange, timezone: string): Promise<CalendarEvent[]>;
  /** One event or occurrence by the id a listing gave; undefined when it is gone. */
  getEvent(id: string, timezone: string): Promise<CalendarEvent | undefined>;
  createEvent(draft: EventDraft): Promise<CalendarEvent>;
  /** Returns the event (the occurrence, for scope "occurrence") as it now is. */
  updateEvent(id: string, changes: EventChanges, options: WriteOptions): Promise<CalendarEvent>;
  deleteEvent(id: string, options: WriteOptions): Promise<void>;
}
