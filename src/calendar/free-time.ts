import { DateTime } from 'luxon';
import type { CalendarEvent, TimeRange } from './calendar-event.js';
import { wallClock } from './event-time.js';

/** A free stretch, in the user's wall-clock time. */
export interface FreeSlot {
  from: string;
  to: string;
  minutes: number;
}

/** Where free time is looked for within each day: "08:00"–"20:00" unless the range itself is narrower. */
export interface FreeTimeOptions {
  zone: string;
  minMinutes: number;
  dayStart: string;
  dayEnd: string;
}

/**
 * The free stretches of at least `minMinutes` in the range, within each day's hours, given
 * the timed events in it. All-day events do not block time (birthdays, holidays); they
 * are reported beside the result by the caller.
 */
export function freeSlots(events: CalendarEvent[], range: TimeRange, options: FreeTimeOptions): FreeSlot[] {
  const busy = events
    .filter((event) => !event.allDay)
    .map((event) => [event.startsAt.getTime(), event.endsAt.getTime()] as const)
    .sort((left, right) => left[0] - right[0]);
  const slots: FreeSlot[] = [];
  for (const [windowStart, windowEnd] of dayWindows(range, options)) {
    let cursor = windowStart;
    for (const [start, end] of busy) {
      if (end <= cursor || start >= windowEnd) continue;
      if (start > cursor) push(slots, cursor, Math.min(start, windowEnd), options);
      cursor = Math.max(cursor, end);
      if (cursor >= windowEnd) break;
    }
    if (cursor < windowEnd) push(slots, cursor, windowEnd, options);
  }
  return slots;
}

function push(slots: FreeSlot[], from: number, to: number, options: FreeTimeOptions): void {
  const minutes = Math.floor((to - from) / 60_000);
  if (minutes >= options.minMinutes) slots.push({ from: wallClock(new Date(from), options.zone), to: wallClock(new Date(to), options.zone), minutes });
}

/** Each day's [start, end) within the range and the day's hours, as epoch milliseconds. */
function dayWindows(range: TimeRange, options: FreeTimeOptions): Array<[number, number]> {
  const windows: Array<[number, number]> = [];
  let day = DateTime.fromJSDate(range.from, { zone: options.zone }).startOf('day');
  const [startHour, startMinute] = options.dayStart.split(':').map(Number) as [number, number];
  const [endHour, endMinute] = options.dayEnd.split(':').map(Number) as [number, number];
  for (let count = 0; day.toMillis() < range.to.getTime() && count < 62; count += 1, day = day.plus({ days: 1 })) {
    const from = Math.max(day.set({ hour: startHour, minute: startMinute }).toMillis(), range.from.getTime());
    const to = Math.min(day.set({ hour: endHour, minute: endMinute }).toMillis(), range.to.getTime());
    if (to > from) windows.push([from, to]);
  }
  return windows;
}
