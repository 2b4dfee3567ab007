import { DateTime } from 'luxon';
import { describeRule } from '../reminders/reminder-schedule.js';
import type { CalendarEvent } from './calendar-event.js';

/** An event as the model sees it: short, with the words to say and the id to act on. */
export interface EventView {
  id: string;
  title: string;
  /** "Fri 14 Mar, 3:00 PM–3:45 PM", "Fri 14 Mar (all day)". */
  when: string;
  start: string;
  end: string;
  allDay?: true;
  location?: string;
  attendees?: string[];
  /** "every week on Tuesday" for an occurrence of a recurring event. */
  repeats?: string;
  /** Pass back as "version" when changing or deleting it, so a newer change is never overwritten. */
  version?: string;
}

/** The most events listed one by one; beyond it the model gets counts per day. */
const MAX_LISTED_EVENTS = 30;

/** "Fri 14 Mar, 3:00 PM–3:45 PM" / "Fri 14 Mar (all day)" / "Fri 14 – Sun 16 Mar (all day)". */
export function describeEventTime(event: Pick<CalendarEvent, 'allDay' | 'start' | 'end' | 'timezone'>): string {
  if (event.allDay) {
    const first = DateTime.fromISO(event.start, { zone: 'UTC' });
    const last = DateTime.fromISO(event.end, { zone: 'UTC' }).minus({ days: 1 });
    return last > first ? `${first.toFormat('ccc d LLL')} – ${last.toFormat('ccc d LLL')} (all day)` : `${first.toFormat('ccc d LLL')} (all day)`;
  }
  const start = DateTime.fromISO(event.start, { zone: 'UTC' });
  const end = DateTime.fromISO(event.end, { zone: 'UTC' });
  const sameDay = start.toISODate() === end.toISODate();
  return `${start.toFormat('ccc d LLL, h:mm a')}–${sameDay ? end.toFormat('h:mm a') : end.toFormat('ccc d LLL, h:mm a')}`;
}

/** The view of one event. */
export function eventView(event: CalendarEvent): EventView {
  return {
    id: event.id,
    title: event.title,
    when: describeEventTime(event),
    start: event.start,
    end: event.end,
    ...(event.allDay ? { allDay: true as const } : {}),
    ...(event.location ? { location: event.location.slice(0, 120) } : {}),
    ...(event.attendees.length > 0 ? { attendees: event.attendees.slice(0, 10) } : {}),
    ...(event.recurrence ? { repeats: repeatsText(event.recurrence, event.start) } : {}),
    ...(event.version ? { version: event.version } : {}),
  };
}

/**
 * A listing the model can read whatever the range holds: up to {@link MAX_LISTED_EVENTS}
 * events in full, then only how many there are per day, and a note to keep the reply short.
 */
export function eventListing(events: CalendarEvent[], calendarLabel: string) {
  const listed = events.slice(0, MAX_LISTED_EVENTS).map(eventView);
  const base = { calendar: calendarLabel, count: events.length, isEmpty: events.length === 0, events: listed };
  if (events.length <= MAX_LISTED_EVENTS) return base;
  const perDay = new Map<string, number>();
  for (const event of events) perDay.set(event.start.slice(0, 10), (perDay.get(event.start.slice(0, 10)) ?? 0) + 1);
  return {
    ...base,
    shown: listed.length,
    perDay: [...perDay].slice(0, 62).map(([date, count]) => ({ date, count })),
    note: `There are ${events.length} events in this range; only the first ${listed.length} are listed. Do not list them all in a text: say how many there are, name the next few, and offer a narrower range or a page.`,
  };
}

function repeatsText(rule: string, start: string): string {
  try {
    return describeRule(rule, start.includes('T') ? start : `${start}T00:00`);
  } catch {
    return 'repeats';
  }
}
