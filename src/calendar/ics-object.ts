import ICAL from 'ical.js';
import { CalendarError, overlaps, type CalendarEvent, type TimeRange } from './calendar-event.js';
import { occurrencesOf } from './recurrence-guard.js';
import { isIanaZone, shiftDate, startOfDate, wallClock, wallClockInstant } from './event-time.js';

/*
 * An event as an iCalendar object (RFC 5545): one VCALENDAR holding the event's VEVENT,
 * any changed occurrences (VEVENTs with a RECURRENCE-ID) and the VTIMEZONEs they use.
 * CalDAV servers store events exactly so, and so does the built-in calendar, so both
 * read and expand them here (ics-changes.ts writes them). ical.js parses the text;
 * wall-clock times are turned into instants with the IANA zone in TZID (luxon), so a
 * weekly event stays at 18:00 across a DST change.
 */

/** Occurrences looked at per series at most (a daily event over 100+ years). */
const MAX_OCCURRENCES = 50_000;

/** One VEVENT's timing, in its own zone. */
export interface Timing {
  allDay: boolean;
  /** Wall clock in `zone`, or a date. */
  start: string;
  end: string;
  /** IANA zone, or "UTC"; for floating times, the reader's zone. */
  zone: string;
}

/** Parsed object. */
interface ParsedObject {
  calendar: ICAL.Component;
  master: ICAL.Component;
  exceptions: ICAL.Component[];
}

/** The event's title (the series'), for listings of stored objects. */
export function objectTitle(ics: string): string {
  return parseObject(ics).master.getFirstPropertyValue('summary')?.toString() ?? '(no title)';
}

/**
 * Every occurrence of the object overlapping the range, as {@link CalendarEvent}s whose ids
 * start with `key` (an occurrence's is `key@<its original start>`). Timed events are given
 * in `zone`, the reader's.
 */
export function eventsInObject(ics: string, range: TimeRange, zone: string, key: string, version?: string): CalendarEvent[] {
  const parsed = parseObject(ics);
  const masterTiming = timingOf(parsed.master, zone, parsed.calendar);
  const rule = parsed.master.getFirstPropertyValue('rrule')?.toString();
  if (!rule && parsed.master.getAllProperties('rdate').length === 0) {
    const event = present(parsed.master, masterTiming, zone, key, undefined, version);
    return overlaps(event, range) ? [event] : [];
  }
  const found: CalendarEvent[] = [];
  const changed = new Map(parsed.exceptions.map((exception) => [recurrenceKey(exception.getFirstPropertyValue('recurrence-id') as ICAL.Time), exception]));
  for (const [occurrenceKey, exception] of changed) {
    const event = present(exception, timingOf(exception, zone, parsed.calendar), zone, `${key}@${occurrenceKey}`, rule, version);
    if (overlaps(event, range)) found.push(event);
  }
  const durationMs = spanMs(masterTiming, zone);
  const iterator = occurrencesOf(parsed.master);
  for (let count = 0, next = iterator.next(); next && count < MAX_OCCURRENCES; next = iterator.next(), count += 1) {
    const occurrenceKey = recurrenceKey(next);
    const timing = occurrenceTiming(masterTiming, next, durationMs);
    const startsAt = instantOf(timing.start, timing.allDay, timing.zone, zone);
    if (startsAt.getTime() >= range.to.getTime()) break;
    if (changed.has(occurrenceKey)) continue;
    const event = present(parsed.master, timing, zone, `${key}@${occurrenceKey}`, rule, version);
    if (overlaps(event, range)) found.push(event);
  }
  return found.sort((left, right) => left.startsAt.getTime() - right.startsAt.getTime());
}

/** One event or occurrence by its id's occurrence part (undefined for the event itself). */
export function findInObject(ics: string, occurrence: string | undefined, zone: string, key: string, version?: string): CalendarEvent | undefined {
  const parsed = parseObject(ics);
  const rule = parsed.master.getFirstPropertyValue('rrule')?.toString();
  if (occurrence === undefined) return present(parsed.master, timingOf(parsed.master, zone, parsed.calendar), zone, key, rule, version);
  const exception = parsed.exceptions.find((candidate) => recurrenceKey(candidate.getFirstPropertyValue('recurrence-id') as ICAL.Time) === occurrence);
  if (exception) return present(exception, timingOf(exception, zone, parsed.calendar), zone, `${key}@${occurrence}`, rule, version);
  const masterTiming = timingOf(parsed.master, zone, parsed.calendar);
  const durationMs = spanMs(masterTiming, zone);
  const iterator = occurrencesOf(parsed.master);
  for (let count = 0, next = iterator.next(); next && count < MAX_OCCURRENCES; next = iterator.next(), count += 1) {
    const nextKey = recurrenceKey(next);
    if (nextKey === occurrence) return present(parsed.master, occurrenceTiming(masterTiming, next, durationMs), zone, `${key}@${occurrence}`, rule, version);
    if (nextKey > occurrence && nextKey.length === occurrence.length) return undefined;
  }
  return undefined;
}

/** Splits an id into the object's key and the occurrence ("abc@20260303T180000"). */
export function splitOccurrenceId(id: string): { key: string; occurrence?: string } {
  const match = /^(.*)@(\d{8}(?:T\d{6}Z?)?)$/.exec(id);
  return match ? { key: match[1]!, occurrence: match[2]! } : { key: id };
}

/** Where the object lies in time, for the built-in calendar's range queries: the last end is undefined when it repeats forever. */
export function objectSpan(ics: string, zone: string): { startsAt: Date; endsAt: Date | undefined } {
  const parsed = parseObject(ics);
  const timing = timingOf(parsed.master, zone, parsed.calendar);
  const exceptions = parsed.exceptions.map((exception) => timingOf(exception, zone, parsed.calendar));
  const startsAt = Math.min(...[timing, ...exceptions].map((entry) => instantOf(entry.start, entry.allDay, entry.zone, zone).getTime()));
  const ends = exceptions.map((entry) => instantOf(entry.end, entry.allDay, entry.zone, zone).getTime());
  const rule = parsed.master.getFirstPropertyValue('rrule') as ICAL.Recur | null;
  if (rule && !rule.count && !rule.until) return { startsAt: new Date(startsAt), endsAt: undefined };
  if (!rule) {
    ends.push(instantOf(timing.end, timing.allDay, timing.zone, zone).getTime());
    return { startsAt: new Date(startsAt), endsAt: new Date(Math.max(...ends)) };
  }
  const durationMs = spanMs(timing, zone);
  const iterator = occurrencesOf(parsed.master);
  let last = timing;
  for (let count = 0, next = iterator.next(); next && count < MAX_OCCURRENCES; next = iterator.next(), count += 1) last = occurrenceTiming(timing, next, durationMs);
  ends.push(instantOf(last.end, last.allDay, last.zone, zone).getTime());
  return { startsAt: new Date(startsAt), endsAt: new Date(Math.max(...ends)) };
}

// ---------------------------------------------------------------------------

/** The object's VCALENDAR, its event and its changed occurrences; malformed text is a CalendarError. */
export function parseObject(ics: string): ParsedObject {
  let calendar: ICAL.Component;
  try {
    calendar = ICAL.Component.fromString(ics);
  } catch (error) {
    throw new CalendarError('invalid', 'An event in the calendar could not be read (its iCalendar data is malformed).', { cause: error });
  }
  const events = calendar.getAllSubcomponents('vevent');
  const master = events.find((event) => !event.hasProperty('recurrence-id')) ?? events[0];
  if (!master) throw new CalendarError('invalid', 'An object in the calendar holds no event.');
  return { calendar, master, exceptions: events.filter((event) => event !== master && event.hasProperty('recurrence-id')) };
}

/** The VEVENT's timing. Floating times are taken in `readerZone`; non-IANA TZIDs through the object's VTIMEZONE. */
export function timingOf(event: ICAL.Component, readerZone: string, calendar: ICAL.Component): Timing {
  const startProperty = event.getFirstProperty('dtstart');
  if (!startProperty) throw new CalendarError('invalid', 'An event in the calendar has no start time.');
  const start = startProperty.getFirstValue() as ICAL.Time;
  const zone = zoneOf(startProperty, start, readerZone, calendar);
  const endProperty = event.getFirstProperty('dtend');
  let end: ICAL.Time;
  if (endProperty) end = endProperty.getFirstValue() as ICAL.Time;
  else {
    end = start.clone();
    const duration = event.getFirstPropertyValue('duration') as ICAL.Duration | null;
    if (duration) end.addDuration(duration);
    else if (start.isDate) end.day += 1;
  }
  if (zone.kind === 'vtimezone') {
    // Read through the object's own zone definition, then shown in the reader's zone.
    const startsAt = new Date(withZone(start, zone.timezone).toUnixTime() * 1000);
    const endsAt = new Date(withZone(end, zone.timezone).toUnixTime() * 1000);
    return { allDay: false, start: wallClock(startsAt, readerZone), end: wallClock(endsAt, readerZone), zone: readerZone };
  }
  if (start.isDate) return { allDay: true, start: dateString(start), end: dateString(end.isDate ? end : start), zone: zone.name };
  const endLocal = localString(end);
  const endZone = endProperty ? zoneOf(endProperty, end, readerZone, calendar) : zone;
  // An end in another zone than the start is read as the same instant in the start's zone.
  const endInStartZone = endZone.kind === 'named' && endZone.name !== zone.name ? wallClock(wallClockInstant(endLocal, endZone.name), zone.name) : endLocal;
  return { allDay: false, start: localString(start), end: endInStartZone, zone: zone.name };
}

function zoneOf(property: ICAL.Property, time: ICAL.Time, readerZone: string, calendar: ICAL.Component): { kind: 'named'; name: string } | { kind: 'vtimezone'; timezone: ICAL.Timezone } {
  if (time.zone?.tzid === 'UTC' || time.toString().endsWith('Z')) return { kind: 'named', name: 'UTC' };
  const tzid = property.getParameter('tzid');
  if (typeof tzid !== 'string') return { kind: 'named', name: readerZone };
  if (isIanaZone(tzid)) return { kind: 'named', name: tzid };
  const definition = calendar.getAllSubcomponents('vtimezone').find((candidate) => candidate.getFirstPropertyValue('tzid') === tzid);
  return definition ? { kind: 'vtimezone', timezone: new ICAL.Timezone(definition) } : { kind: 'named', name: readerZone };
}

function withZone(time: ICAL.Time, timezone: ICAL.Timezone): ICAL.Time {
  const copy = time.clone();
  copy.zone = timezone;
  return copy;
}

/** An occurrence's timing: the iterator's start (in the series' frame) and the series' length. */
function occurrenceTiming(master: Timing, occurrence: ICAL.Time, durationMs: number): Timing {
  if (master.allDay) {
    const start = dateString(occurrence);
    return { allDay: true, start, end: shiftDate(start, Math.round(durationMs / 86_400_000)), zone: master.zone };
  }
  const start = localString(occurrence);
  const end = wallClock(new Date(wallClockInstant(start, master.zone).getTime() + durationMs), master.zone);
  return { allDay: false, start, end, zone: master.zone };
}

function spanMs(timing: Timing, zone: string): number {
  if (timing.allDay) return Math.max(1, Math.round((Date.parse(`${timing.end}T00:00Z`) - Date.parse(`${timing.start}T00:00Z`)) / 86_400_000)) * 86_400_000;
  return instantOf(timing.end, false, timing.zone, zone).getTime() - instantOf(timing.start, false, timing.zone, zone).getTime();
}

function instantOf(value: string, allDay: boolean, zone: string, readerZone: string): Date {
  return allDay ? startOfDate(value, readerZone) : wallClockInstant(value, zone);
}

/** The component's timing as a {@link CalendarEvent} in the reader's zone. */
function present(event: ICAL.Component, timing: Timing, readerZone: string, id: string, rule: string | undefined, version: string | undefined): CalendarEvent {
  const startsAt = instantOf(timing.start, timing.allDay, timing.zone, readerZone);
  const endsAt = instantOf(timing.end, timing.allDay, timing.zone, readerZone);
  const text = (name: string) => {
    const value = event.getFirstPropertyValue(name);
    return value === null || value === undefined || String(value) === '' ? undefined : String(value);
  };
  return {
    id,
    title: text('summary') ?? '(no title)',
    allDay: timing.allDay,
    start: timing.allDay ? timing.start : wallClock(startsAt, readerZone),
    end: timing.allDay ? timing.end : wallClock(endsAt, readerZone),
    timezone: readerZone,
    startsAt,
    endsAt,
    location: text('location'),
    description: text('description'),
    attendees: event.getAllProperties('attendee').map((property) => String(property.getFirstValue()).replace(/^mailto:/i, '')),
    recurrence: rule,
    version,
  };
}

/** An occurrence's key: its original start as iCalendar writes it (20260303T180000, 20260303, or …Z). */
export function recurrenceKey(time: ICAL.Time): string {
  return time.toICALString();
}


function localString(time: ICAL.Time): string {
  const pad = (value: number, length = 2) => String(value).padStart(length, '0');
  const base = `${pad(time.year, 4)}-${pad(time.month)}-${pad(time.day)}T${pad(time.hour)}:${pad(time.minute)}`;
  return time.second ? `${base}:${pad(time.second)}` : base;
}

function dateString(time: ICAL.Time): string {
  return localString(time).slice(0, 10);
}
