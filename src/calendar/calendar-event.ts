import { ToolError } from '../shared/errors.js';

/**
 * One event, or one occurrence of a recurring event, as every provider reports it. Times
 * are wall-clock in the event's zone (what the user reads); the instants are for ordering,
 * overlaps and free time.
 */
export interface CalendarEvent {
  /** Opaque, the provider's: for a recurring event it names this occurrence. */
  id: string;
  title: string;
  allDay: boolean;
  /** "2026-03-03T18:00" in `timezone`, or the date "2026-03-03" when all-day. */
  start: string;
  /** Exclusive: for an all-day event, the day after its last day. */
  end: string;
  timezone: string;
  startsAt: Date;
  endsAt: Date;
  location?: string | undefined;
  description?: string | undefined;
  /** Invitees' email addresses. */
  attendees: string[];
  /** The series' RFC 5545 rule (without DTSTART) when this is an occurrence of a recurring event. */
  recurrence?: string | undefined;
  /** Changes with every edit (an ETag): writes given it refuse to overwrite a newer version. */
  version?: string | undefined;
}

/** A new event. Times as in {@link CalendarEvent}. */
export interface EventDraft {
  title: string;
  allDay: boolean;
  start: string;
  end: string;
  timezone: string;
  location?: string | undefined;
  description?: string | undefined;
  attendees?: string[] | undefined;
  /** RFC 5545 rule without DTSTART, e.g. FREQ=WEEKLY;BYDAY=TU. */
  recurrence?: string | undefined;
}

/** What an update changes; for a whole series a new start moves every occurrence by the same amount. */
export interface EventChanges {
  title?: string | undefined;
  allDay?: boolean | undefined;
  start?: string | undefined;
  end?: string | undefined;
  location?: string | undefined;
  description?: string | undefined;
  attendees?: string[] | undefined;
  /** A new rule, or null to stop repeating (series only). */
  recurrence?: string | null | undefined;
}

/** For an occurrence of a recurring event: that one, or the whole series. */
export type EventScope = 'occurrence' | 'series';

/** Write options: the scope, the version the caller saw (refused if the event changed since), and the zone its times are in. */
export interface WriteOptions {
  scope: EventScope;
  version?: string | undefined;
  /** The user's zone: new times are wall-clock in it, and the result is shown in it. */
  timezone: string;
}

/** A half-open span of time. */
export interface TimeRange {
  from: Date;
  to: Date;
}

/** Why a provider could not do what was asked. */
export type CalendarFailure = 'unreachable' | 'unauthorized' | 'conflict' | 'not_found' | 'server' | 'invalid' | 'revoked';

/**
 * A calendar failure worded for the model (it goes back as the tool's error result). Each
 * says plainly whether anything changed: a failed write never half-happens.
 */
export class CalendarError extends ToolError {
  constructor(
    readonly failure: CalendarFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The events overlapping [from, to), as the instants say. */
export function overlaps(event: Pick<CalendarEvent, 'startsAt' | 'endsAt'>, range: TimeRange): boolean {
  const end = Math.max(event.endsAt.getTime(), event.startsAt.getTime() + 1);
  return event.startsAt.getTime() < range.to.getTime() && end > range.from.getTime();
}
