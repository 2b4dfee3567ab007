import ICAL from 'ical.js';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import { CalendarError, type EventChanges, type EventDraft, type EventScope } from './calendar-event.js';
import { isIanaZone, shiftDate, shiftWallClock, wallClock, wallClockInstant } from './event-time.js';
import { findInObject, parseObject as parse, recurrenceKey, timingOf, type Timing } from './ics-object.js';

/*
 * Writing events as iCalendar objects (see ics-object.ts for reading them): a new object
 * for a draft, changes to the whole event or to one occurrence (which becomes a changed
 * occurrence with its RECURRENCE-ID), and removing one occurrence (an EXDATE). Every write
 * bumps SEQUENCE and stamps DTSTAMP and LAST-MODIFIED, and every IANA zone named gets its
 * VTIMEZONE, as RFC 5545 requires.
 */

const PRODUCT_ID = '-//Herald//Calendar//EN';

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
  const byDay = rule?.parts.BYDAY;
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
function vtimezone(zone: string): ICAL.Component | undefined {
  if (!vtimezones.has(zone)) {
    const block = tzlib_get_ical_block(zone);
    vtimezones.set(zone, Array.isArray(block) && block[0]?.startsWith('BEGIN:VTIMEZONE') ? block[0] : undefined);
  }
  const text = vtimezones.get(zone);
  return text ? ICAL.Component.fromString(text) : undefined;
}

function utcTime(instant: Date): ICAL.Time {
  return ICAL.Time.fromJSDate(instant, true);
}

/** An occurrence key (20260303T180000, 20260303, or …Z) back as the time it names. */
function timeFromKey(key: string): ICAL.Time {
  if (/^\d{8}$/.test(key)) return ICAL.Time.fromDateString(`${key.slice(0, 4)}-${key.slice(4, 6)}-${key.slice(6, 8)}`);
  const time = ICAL.Time.fromDateTimeString(`${key.slice(0, 4)}-${key.slice(4, 6)}-${key.slice(6, 8)}T${key.slice(9, 11)}:${key.slice(11, 13)}:${key.slice(13, 15)}`);
  if (key.endsWith('Z')) time.zone = ICAL.Timezone.utcTimezone;
  return time;
}

function withSeconds(local: string): string {
  return local.length === 16 ? `${local}:00` : local;
}
