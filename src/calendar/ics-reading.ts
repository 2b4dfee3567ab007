import { unfoldContentLines } from '../shared/content-lines.js';
import { ParseBudgetError, sharedParseWorkers, type ParseWorkers } from '../shared/parse-workers.js';
import { CalendarError, type CalendarEvent, type CalendarFailure, type EventChanges, type EventScope, type TimeRange } from './calendar-event.js';
import { changeObject, removeFromObject } from './ics-changes.js';
import { eventsInObject, findInObject } from './ics-object.js';

/**
 * iCalendar objects from a CalDAV server, read off the event loop (issue 32). The server is the
 * user's (or whoever they point Herald at): what it serves is parsed by ical.js and its
 * recurrences expanded, up to 50,000 occurrences a series, which a crafted calendar can make
 * slow. Here that runs in a parse worker (src/shared/parse-workers.ts) with a time budget, each
 * object held to a size and its content lines to MAX_CONTENT_LINE_LENGTH first.
 */

/** The largest iCalendar object read, in characters (an event with a long description is a few KB; an inline attachment could be megabytes). */
export const MAX_ICS_OBJECT_LENGTH = 1_000_000;

/** One stored object: its text, the key its events' ids start with, its version (ETag). */
export interface IcsObject {
  ics: string;
  key: string;
  version?: string | undefined;
}

/** A reading's answer: a CalendarError's failure and message cross the thread as data, not as a class. */
type Reading<Value> = { ok: true; value: Value } | { ok: false; failure: CalendarFailure; message: string };

/**
 * An object as ical.js will read it: refused past MAX_ICS_OBJECT_LENGTH, and without any
 * content line longer than MAX_CONTENT_LINE_LENGTH (an inline ATTACH, a hostile DESCRIPTION):
 * such a line is left out whole rather than cut, so no value is ever read half.
 */
export function heldIcs(ics: string): string {
  if (ics.length > MAX_ICS_OBJECT_LENGTH) throw new CalendarError('invalid', 'An event in the calendar is too large to read (over 1,000,000 characters).');
  const lines = unfoldContentLines(ics);
  if (!lines.some((line) => line.cut)) return ics;
  return lines
    .filter((line) => !line.cut)
    .map((line) => line.text)
    .join('\r\n');
}

function reading<Value>(work: () => Value): Reading<Value> {
  try {
    return { ok: true, value: work() };
  } catch (error) {
    if (error instanceof CalendarError) return { ok: false, failure: error.failure, message: error.message };
    return { ok: false, failure: 'invalid', message: 'An event in the calendar could not be read (its iCalendar data is malformed).' };
  }
}

/** Every occurrence overlapping `range` of every object, sorted by start (runs in the worker). */
export function readEventsInObjects(objects: readonly IcsObject[], range: TimeRange, zone: string): Reading<CalendarEvent[]> {
  return reading(() =>
    objects.flatMap((object) => eventsInObject(heldIcs(object.ics), range, zone, object.key, object.version)).sort((left, right) => left.startsAt.getTime() - right.startsAt.getTime()),
  );
}

/** One event or occurrence of one object (runs in the worker). */
export function readEventInObject(object: IcsObject, occurrence: string | undefined, zone: string): Reading<CalendarEvent | undefined> {
  return reading(() => findInObject(heldIcs(object.ics), occurrence, zone, object.key, object.version));
}

/** A size check alone, for an object Herald writes back: its long lines are the user's data and stay. */
function sized(ics: string): string {
  if (ics.length > MAX_ICS_OBJECT_LENGTH) throw new CalendarError('invalid', 'That event is too large for Herald to change (over 1,000,000 characters). Nothing was changed.');
  return ics;
}

/** The object with `changes` made (ics-changes.ts changeObject; runs in the worker). */
export function readChangedObject(ics: string, occurrence: string | undefined, changes: EventChanges, scope: EventScope, zone: string, now: Date): Reading<string> {
  return reading(() => changeObject(sized(ics), occurrence, changes, scope, zone, now));
}

/** The object without one occurrence, or undefined when the whole object goes (ics-changes.ts removeFromObject; runs in the worker). */
export function readRemovedFromObject(ics: string, occurrence: string | undefined, scope: EventScope, now: Date): Reading<string | undefined> {
  return reading(() => removeFromObject(sized(ics), occurrence, scope, now));
}

/** This module, for the parse workers. */
const READING = new URL('./ics-reading.js', import.meta.url);

async function offLoop<Value>(workers: ParseWorkers, name: string, args: readonly unknown[]): Promise<Value> {
  let answer: Reading<Value>;
  try {
    answer = await workers.run<Reading<Value>>(READING, name, args);
  } catch (error) {
    if (error instanceof ParseBudgetError) throw new CalendarError('server', 'The calendar was too large or too slow to read (Herald stops reading after a few seconds). Nothing was changed.', { cause: error });
    throw error;
  }
  if (!answer.ok) throw new CalendarError(answer.failure, answer.message);
  return answer.value;
}

/** {@link readEventsInObjects} in a parse worker: a CalendarError when an object is malformed, too large, or the reading over its budget. */
export function eventsInObjectsOffLoop(objects: readonly IcsObject[], range: TimeRange, zone: string, workers: ParseWorkers = sharedParseWorkers()): Promise<CalendarEvent[]> {
  if (objects.length === 0) return Promise.resolve([]);
  return offLoop(workers, 'readEventsInObjects', [objects, range, zone]);
}

/** {@link readEventInObject} in a parse worker, as {@link eventsInObjectsOffLoop}. */
export function eventInObjectOffLoop(object: IcsObject, occurrence: string | undefined, zone: string, workers: ParseWorkers = sharedParseWorkers()): Promise<CalendarEvent | undefined> {
  return offLoop(workers, 'readEventInObject', [object, occurrence, zone]);
}

/** {@link readChangedObject} in a parse worker, as {@link eventsInObjectsOffLoop}. */
export function changeObjectOffLoop(ics: string, occurrence: string | undefined, changes: EventChanges, scope: EventScope, zone: string, now: Date, workers: ParseWorkers = sharedParseWorkers()): Promise<string> {
  return offLoop(workers, 'readChangedObject', [ics, occurrence, changes, scope, zone, now]);
}

/** {@link readRemovedFromObject} in a parse worker, as {@link eventsInObjectsOffLoop}. */
export function removeFromObjectOffLoop(ics: string, occurrence: string | undefined, scope: EventScope, now: Date, workers: ParseWorkers = sharedParseWorkers()): Promise<string | undefined> {
  return offLoop(workers, 'readRemovedFromObject', [ics, occurrence, scope, now]);
}
