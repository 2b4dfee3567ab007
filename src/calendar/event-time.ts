import { DateTime } from 'luxon';
import { localToInstant } from '../reminders/reminder-schedule.js';

/** True for an IANA zone name luxon (and so Intl) knows. */
export function isIanaZone(zone: string): boolean {
  return DateTime.now().setZone(zone).isValid;
}

/**
 * The instant of a wall-clock time ("2026-03-03T18:00") in `zone`, for reading events that
 * already exist: a time the clocks skip is read as the moment after the gap, and one they
 * show twice as the first (as RFC 5545 says). New events are checked before this (tools
 * refuse such times and ask).
 */
export function wallClockInstant(local: string, zone: string): Date {
  const exact = localToInstant(local, zone, 'earlier');
  if (exact.ok) return exact.instant;
  return DateTime.fromISO(local, { zone }).toJSDate();
}

/** Midnight at the start of a date ("2026-03-03") in `zone`. */
export function startOfDate(date: string, zone: string): Date {
  return DateTime.fromISO(date, { zone }).startOf('day').toJSDate();
}

/** An instant as wall-clock time in `zone`: "2026-03-03T18:00" (seconds only when not zero). */
export function wallClock(instant: Date, zone: string): string {
  const local = DateTime.fromJSDate(instant, { zone });
  return local.toFormat(local.second === 0 ? "yyyy-MM-dd'T'HH:mm" : "yyyy-MM-dd'T'HH:mm:ss");
}

/** The wall-clock string moved by `milliseconds`, as a clock on the wall would move (DST ignored). */
export function shiftWallClock(local: string, milliseconds: number): string {
  const moved = DateTime.fromISO(local, { zone: 'UTC' }).plus({ milliseconds });
  return moved.toFormat(local.length > 16 ? "yyyy-MM-dd'T'HH:mm:ss" : "yyyy-MM-dd'T'HH:mm");
}

/** A date moved by whole days. */
export function shiftDate(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: 'UTC' }).plus({ days }).toISODate()!;
}

/** "Fri 14 Mar, 3:00 PM" (timed) or "Fri 14 Mar" (all-day): how Herald names an event's time to the user. */
export function describeWhen(event: { allDay: boolean; start: string; timezone: string }): string {
  if (event.allDay) return DateTime.fromISO(event.start, { zone: 'UTC' }).toFormat('ccc d LLL');
  return DateTime.fromISO(event.start, { zone: event.timezone }).toFormat('ccc d LLL, h:mm a');
}
