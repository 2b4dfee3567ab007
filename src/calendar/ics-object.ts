import ICAL from 'ical.js';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import { CalendarError, overlaps, type CalendarEvent, type EventChanges, type EventDraft, type EventScope, type TimeRange } from './calendar-event.js';
import { isIanaZone, shiftDate, shiftWallClock, startOfDate, wallClock, wallClockInstant } from './event-time.js';

/*
 * An event as an iCalendar object (RFC 5545): one VCALENDAR holding the event's VEVENT,
 * any changed occurrences (VEVENTs with a RECURRENCE-ID) and the VTIMEZONEs they use.
 * CalDAV servers store events exactly so, and so does the built-in calendar, so both
 * read, expand and change them here. ical.js parses and writes the text; wall-clock
 * times are turned into instants with the IANA zone in TZID (luxon), so a weekly event
 * stays at 18:00 across a DST change.
 */

const PRODUCT_ID = '-//Herald//Calendar//EN';
/** Occurrences looked at per series at most (a daily event over 100+ years). */
const MAX_OCCURRENCES = 50_000;

/** One VEVENT's timing, in its own zone. */
interface Timing {
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

/** A new object for a draft. */
export function buildEventObject(draft: EventDraft, uid: string, now: Date): string {
  const calendar = new ICAL.Component(['vcalendar', [], []]);
  calendar.updatePropertyWithValue('prodid', PRODUCT_ID);
  calendar.updatePropertyWithValue('version', '2.0');
  calendar.updatePropertyWithValue('calscale', 'GREGORIAN');
  const event = new ICAL.Component('vevent');
  event.updatePropertyWithValue('uid', uid);
  event.updatePropertyWithValue('created', utcTime(now));
  stamp(event, now, 0);
  setTiming(event, { allDay: draft.allDay, start: draft.start, end: draft.end, zone: draft.timezone });
  setText(event, { title: draft.title, location: draft.location, description: draft.description, attendees: draft.attendees ?? [] });
  if (draft.recurrence) event.updatePropertyWithValue('rrule', ICAL.Recur.fromString(draft.recurrence));
  calendar.addSubcomponent(event);
  addTimezones(calendar);
  return calendar.toString();
}

/** The UID of an object. */
export function objectUid(ics: string): string {
  return parse(ics).master.getFirstPropertyValue('uid')?.toString() ?? '';
}

/** The event's title (the series'), for listings of stored objects. */
export function objectTitle(ics: string): string {
  return parse(ics).master.getFirstPropertyValue('summary')?.toString() ?? '(no title)';
}

/**
 * Every occurrence of the object overlapping the range, as {@link CalendarEvent}s whose ids
 * start with `key` (an occurrence's is `key@<its original start>`). Timed events are given
 * in `zone`, the reader's.
 */
export function eventsInObject(ics: string, range: TimeRange, zone: string, key: string, version?: string): CalendarEvent[] {
  const parsed = parse(ics);
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
  const iterator = new ICAL.Event(parsed.master).iterator();
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
  const parsed = parse(ics);
  const rule = parsed.master.getFirstPropertyValue('rrule')?.toString();
  if (occurrence === undefined) return present(parsed.master, timingOf(parsed.master, zone, parsed.calendar), zone, key, rule, version);
  const exception = parsed.exceptions.find((candidate) => recurrenceKey(candidate.getFirstPropertyValue('recurrence-id') as ICAL.Time) === occurrence);
  if (exception) return present(exception, timingOf(exception, zone, parsed.calendar), zone, `${key}@${occurrence}`, rule, version);
  const masterTiming = timingOf(parsed.master, zone, parsed.calendar);
  const durationMs = spanMs(masterTiming, zone);
  const iterator = new ICAL.Event(parsed.master).iterator();
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

/**
 * The object with the changes made: to the whole event (scope "series", or an event that
 * does not repeat) or to one occurrence, which becomes a changed occurrence of its own.
 * Moving a series moves every occurrence by the same amount (and its weekdays with it).
 */
export function changeObject(ics: string, occurrence: string | undefined, changes: EventChanges, scope: EventScope, zone: string, now: Date): string {
  const parsed = parse(ics);
  const sequence = Number(parsed.master.getFirstPropertyValue('sequence') ?? 0) + 1;
  if (occurrence !== undefined && scope === 'occurrence') {
    let exception = parsed.exceptions.find((candidate) => recurrenceKey(candidate.getFirstPropertyValue('recurrence-id') as ICAL.Time) === occurrence);
    if (!exception) {
      const current = findInObject(ics, occurrence, zone, 'x');
      if (!current) throw new CalendarError('not_found', 'That occurrence is not in the event any more. Nothing was changed.');
      exception = new ICAL.Component('vevent');
      for (const name of ['uid', 'summary', 'location', 'description', 'attendee', 'organizer', 'created']) {
        for (const property of parsed.master.getAllProperties(name)) exception.addProperty(ICAL.Property.fromString(property.toICALString()));
      }
      const masterStart = parsed.master.getFirstProperty('dtstart')!;
      const recurrenceId = new ICAL.Property('recurrence-id');
      const tzid = masterStart.getParameter('tzid');
      if (typeof tzid === 'string') recurrenceId.setParameter('tzid', tzid);
      recurrenceId.setValue(timeFromKey(occurrence));
      exception.addProperty(recurrenceId);
      const masterZone = timingOf(parsed.master, zone, parsed.calendar).zone;
      const startsAt = current.startsAt;
      setTiming(exception, current.allDay ? { allDay: true, start: current.start, end: current.end, zone: masterZone } : { allDay: false, start: wallClock(startsAt, masterZone), end: wallClock(current.endsAt, masterZone), zone: masterZone });
      parsed.calendar.addSubcomponent(exception);
    }
    applyChanges(exception, changes, timingOf(exception, zone, parsed.calendar), zone, parsed.calendar);
    stamp(exception, now, sequence);
  } else {
    const before = timingOf(parsed.master, zone, parsed.calendar);
    let reference = before;
    if (occurrence !== undefined && (changes.start !== undefined || changes.end !== undefined)) {
      // A new time given for one occurrence, applied to the series: the same shift for all.
      const current = findInObject(ics, occurrence, zone, 'x');
      if (!current) throw new CalendarError('not_found', 'That occurrence is not in the event any more. Nothing was changed.');
      reference = current.allDay ? { allDay: true, start: current.start, end: current.end, zone: before.zone } : { allDay: false, start: current.start, end: current.end, zone };
    }
    const after = applyChanges(parsed.master, changes, reference, zone, parsed.calendar, before);
    if (changes.recurrence !== undefined) {
      parsed.master.removeAllProperties('rrule');
      if (changes.recurrence) parsed.master.updatePropertyWithValue('rrule', ICAL.Recur.fromString(changes.recurrence));
    }
    if (after.start !== before.start || after.allDay !== before.allDay) {
      // Changed occurrences and removed dates named the old times: they no longer apply.
      for (const exception of parsed.exceptions) parsed.calendar.removeSubcomponent(exception);
      parsed.master.removeAllProperties('exdate');
      shiftWeekdays(parsed.master, before, after);
    }
    stamp(parsed.master, now, sequence);
  }
  parsed.master.updatePropertyWithValue('sequence', sequence);
  addTimezones(parsed.calendar);
  return parsed.calendar.toString();
}

/** The object without one occurrence (an EXDATE), or undefined when the whole event goes. */
export function removeFromObject(ics: string, occurrence: string | undefined, scope: EventScope, now: Date): string | undefined {
  if (occurrence === undefined || scope === 'series') return undefined;
  const parsed = parse(ics);
  for (const exception of parsed.exceptions) {
    if (recurrenceKey(exception.getFirstPropertyValue('recurrence-id') as ICAL.Time) === occurrence) parsed.calendar.removeSubcomponent(exception);
  }
  const exdate = new ICAL.Property('exdate');
  const tzid = parsed.master.getFirstProperty('dtstart')!.getParameter('tzid');
  if (typeof tzid === 'string') exdate.setParameter('tzid', tzid);
  exdate.setValue(timeFromKey(occurrence));
  parsed.master.addProperty(exdate);
  stamp(parsed.master, now, Number(parsed.master.getFirstPropertyValue('sequence') ?? 0) + 1);
  return parsed.calendar.toString();
}

/** Where the object lies in time, for the built-in calendar's range queries: the last end is undefined when it repeats forever. */
export function objectSpan(ics: string, zone: string): { startsAt: Date; endsAt: Date | undefined } {
  const parsed = parse(ics);
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
  const iterator = new ICAL.Event(parsed.master).iterator();
  let last = timing;
  for (let count = 0, next = iterator.next(); next && count < MAX_OCCURRENCES; next = iterator.next(), count += 1) last = occurrenceTiming(timing, next, durationMs);
  ends.push(instantOf(last.end, last.allDay, last.zone, zone).getTime());
  return { startsAt: new Date(startsAt), endsAt: new Date(Math.max(...ends)) };
}

// ---------------------------------------------------------------------------

function parse(ics: string): ParsedObject {
  let calendar: ICAL.Component;
  try {
    calendar = new ICAL.Component(ICAL.parse(ics));
  } catch (error) {
    throw new CalendarError('invalid', 'An event in the calendar could not be read (its iCalendar data is malformed).', { cause: error });
  }
  const events = calendar.getAllSubcomponents('vevent');
  const master = events.find((event) => !event.hasProperty('recurrence-id')) ?? events[0];
  if (!master) throw new CalendarError('invalid', 'An object in the calendar holds no event.');
  return { calendar, master, exceptions: events.filter((event) => event !== master && event.hasProperty('recurrence-id')) };
}

/** The VEVENT's timing. Floating times are taken in `readerZone`; non-IANA TZIDs through the object's VTIMEZONE. */
function timingOf(event: ICAL.Component, readerZone: string, calendar: ICAL.Component): Timing {
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

/** Applies changes to a VEVENT; returns its timing after. */
function applyChanges(event: ICAL.Component, changes: EventChanges, reference: Timing, readerZone: string, calendar: ICAL.Component, own?: Timing): Timing {
  const current = own ?? timingOf(event, readerZone, calendar);
  let next = current;
  if (changes.start !== undefined || changes.end !== undefined || changes.allDay !== undefined) {
    const allDay = changes.allDay ?? (changes.start !== undefined ? !changes.start.includes('T') : current.allDay);
    const zone = allDay ? current.zone : reference.allDay ? readerZone : reference.zone;
    if (allDay) {
      const start = changes.start?.slice(0, 10) ?? (reference.allDay ? reference.start : reference.start.slice(0, 10));
      const days = reference.allDay ? Math.round((Date.parse(`${reference.end}T00:00Z`) - Date.parse(`${reference.start}T00:00Z`)) / 86_400_000) : 1;
      const end = changes.end?.slice(0, 10) ?? shiftDate(start, Math.max(1, days));
      next = shiftFrom(current, reference, { allDay: true, start, end, zone });
    } else {
      const referenceStart = reference.allDay ? `${reference.start}T09:00` : reference.start;
      const referenceEnd = reference.allDay ? `${reference.start}T10:00` : reference.end;
      const start = changes.start ?? referenceStart;
      const lengthMs = wallClockInstant(referenceEnd, zone).getTime() - wallClockInstant(referenceStart, zone).getTime();
      const end = changes.end ?? wallClock(new Date(wallClockInstant(start, zone).getTime() + lengthMs), zone);
      next = shiftFrom(current, reference, { allDay: false, start, end, zone });
    }
    if (!next.allDay && wallClockInstant(next.end, next.zone).getTime() <= wallClockInstant(next.start, next.zone).getTime()) {
      throw new CalendarError('invalid', 'The end must be after the start. Nothing was changed.');
    }
    setTiming(event, next);
  }
  const attendees = changes.attendees ?? event.getAllProperties('attendee').map((property) => String(property.getFirstValue()).replace(/^mailto:/i, ''));
  setText(event, {
    title: changes.title ?? String(event.getFirstPropertyValue('summary') ?? ''),
    location: changes.location ?? (event.getFirstPropertyValue('location')?.toString() || undefined),
    description: changes.description ?? (event.getFirstPropertyValue('description')?.toString() || undefined),
    attendees,
  });
  return next;
}

/**
 * When the reference (an occurrence) is not the component itself (the series' first), the
 * new time is moved back onto the component by the same wall-clock shift.
 */
function shiftFrom(current: Timing, reference: Timing, target: Timing): Timing {
  if (current.start === reference.start && current.allDay === reference.allDay) return target;
  if (target.allDay && current.allDay) {
    const days = Math.round((Date.parse(`${target.start}T00:00Z`) - Date.parse(`${reference.start}T00:00Z`)) / 86_400_000);
    return { ...target, start: shiftDate(current.start, days), end: shiftDate(current.end, days) };
  }
  if (!target.allDay && !current.allDay && !reference.allDay) {
    const shift = Date.parse(`${target.start}Z`) - Date.parse(`${reference.start}Z`);
    const length = Date.parse(`${target.end}Z`) - Date.parse(`${target.start}Z`);
    const start = shiftWallClock(current.start, shift);
    return { ...target, start, end: shiftWallClock(start, length) };
  }
  return target;
}

/** A weekly rule's BYDAY follows the series when its first day moves. */
function shiftWeekdays(master: ICAL.Component, before: Timing, after: Timing): void {
  const rule = master.getFirstPropertyValue('rrule') as ICAL.Recur | null;
  const days = Math.round((Date.parse(`${after.start.slice(0, 10)}T00:00Z`) - Date.parse(`${before.start.slice(0, 10)}T00:00Z`)) / 86_400_000);
  const byDay = rule?.parts.BYDAY as string[] | undefined;
  if (!rule || !byDay || days % 7 === 0 || byDay.some((day) => !/^[A-Z]{2}$/.test(day))) return;
  const week = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];
  rule.parts.BYDAY = byDay.map((day) => week[(((week.indexOf(day) + days) % 7) + 7) % 7]!);
  master.updatePropertyWithValue('rrule', rule);
}

function setTiming(event: ICAL.Component, timing: Timing): void {
  for (const name of ['dtstart', 'dtend', 'duration']) event.removeAllProperties(name);
  for (const [name, value] of [['dtstart', timing.start], ['dtend', timing.end]] as const) {
    const property = new ICAL.Property(name);
    if (timing.allDay) {
      property.resetType('date');
      property.setValue(ICAL.Time.fromDateString(value.slice(0, 10)));
    } else if (timing.zone === 'UTC') {
      const time = ICAL.Time.fromDateTimeString(withSeconds(value));
      time.zone = ICAL.Timezone.utcTimezone;
      property.setValue(time);
    } else {
      property.setParameter('tzid', timing.zone);
      property.setValue(ICAL.Time.fromDateTimeString(withSeconds(value)));
    }
    event.addProperty(property);
  }
}

function setText(event: ICAL.Component, text: { title: string; location?: string | undefined; description?: string | undefined; attendees: string[] }): void {
  event.updatePropertyWithValue('summary', text.title);
  for (const [name, value] of [['location', text.location], ['description', text.description]] as const) {
    event.removeAllProperties(name);
    if (value) event.updatePropertyWithValue(name, value);
  }
  event.removeAllProperties('attendee');
  for (const email of text.attendees) {
    const attendee = new ICAL.Property('attendee');
    attendee.setParameter('rsvp', 'TRUE');
    attendee.setValue(`mailto:${email}`);
    event.addProperty(attendee);
  }
}

function stamp(event: ICAL.Component, now: Date, sequence: number): void {
  event.updatePropertyWithValue('dtstamp', utcTime(now));
  event.updatePropertyWithValue('last-modified', utcTime(now));
  event.updatePropertyWithValue('sequence', sequence);
}

/** Every IANA zone the events name gets its VTIMEZONE (RFC 5545 requires one per TZID). */
function addTimezones(calendar: ICAL.Component): void {
  const present = new Set(calendar.getAllSubcomponents('vtimezone').map((zone) => String(zone.getFirstPropertyValue('tzid'))));
  const needed = new Set<string>();
  for (const event of calendar.getAllSubcomponents('vevent')) {
    for (const property of event.getAllProperties()) {
      const tzid = property.getParameter('tzid');
      if (typeof tzid === 'string' && !present.has(tzid) && isIanaZone(tzid)) needed.add(tzid);
    }
  }
  for (const zone of needed) {
    const definition = vtimezone(zone);
    if (definition) calendar.addSubcomponent(definition);
  }
}

const vtimezones = new Map<string, string | undefined>();

/** The zone's VTIMEZONE (from the tz database, via timezones-ical-library), or undefined if it has none. */
export function vtimezone(zone: string): ICAL.Component | undefined {
  if (!vtimezones.has(zone)) {
    const block = tzlib_get_ical_block(zone);
    vtimezones.set(zone, Array.isArray(block) && block[0]?.startsWith('BEGIN:VTIMEZONE') ? block[0] : undefined);
  }
  const text = vtimezones.get(zone);
  return text ? new ICAL.Component(ICAL.parse(text)) : undefined;
}

function utcTime(instant: Date): ICAL.Time {
  return ICAL.Time.fromJSDate(instant, true);
}

/** An occurrence's key: its original start as iCalendar writes it (20260303T180000, 20260303, or …Z). */
function recurrenceKey(time: ICAL.Time): string {
  return time.toICALString();
}

function timeFromKey(key: string): ICAL.Time {
  if (/^\d{8}$/.test(key)) return ICAL.Time.fromDateString(`${key.slice(0, 4)}-${key.slice(4, 6)}-${key.slice(6, 8)}`);
  const time = ICAL.Time.fromDateTimeString(`${key.slice(0, 4)}-${key.slice(4, 6)}-${key.slice(6, 8)}T${key.slice(9, 11)}:${key.slice(11, 13)}:${key.slice(13, 15)}`);
  if (key.endsWith('Z')) time.zone = ICAL.Timezone.utcTimezone;
  return time;
}

function localString(time: ICAL.Time): string {
  const pad = (value: number, length = 2) => String(value).padStart(length, '0');
  const base = `${pad(time.year, 4)}-${pad(time.month)}-${pad(time.day)}T${pad(time.hour)}:${pad(time.minute)}`;
  return time.second ? `${base}:${pad(time.second)}` : base;
}

function dateString(time: ICAL.Time): string {
  return localString(time).slice(0, 10);
}

function withSeconds(local: string): string {
  return local.length === 16 ? `${local}:00` : local;
}
