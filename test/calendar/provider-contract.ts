import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalendarError, type CalendarEvent } from '../../src/calendar/calendar-event.js';
import type { CalendarProvider } from '../../src/calendar/calendar-provider.js';

const ZONE = 'America/New_York';

/** A calendar under test, empty at first, and how to dispose of it. */
export interface ProviderUnderTest {
  provider: CalendarProvider;
  close(): Promise<void>;
}

const range = (from: string, to: string) => ({ from: new Date(from), to: new Date(to) });
const titles = (events: CalendarEvent[]) => events.map((event) => event.title);

async function failure(work: Promise<unknown>): Promise<CalendarError> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CalendarError);
  return error as CalendarError;
}

/**
 * The contract every calendar provider keeps: the built-in one, CalDAV (against a real
 * Radicale) and Google (against the fake Calendar API) all run exactly these tests. Each
 * test works in its own week of 2026 so they never see each other's events.
 */
export function describeCalendarProvider(name: string, open: () => Promise<ProviderUnderTest>): void {
  describe(`calendar provider contract: ${name}`, () => {
    let subject: ProviderUnderTest;
    let calendar: CalendarProvider;
    beforeAll(async () => {
      subject = await open();
      calendar = subject.provider;
    });
    afterAll(async () => {
      await subject?.close();
    });

    it('creates a timed event and lists it in its range only, in the user\'s zone', async () => {
      const created = await calendar.createEvent({ title: 'Dentist', allDay: false, start: '2026-01-05T15:00', end: '2026-01-05T15:45', timezone: ZONE, location: 'Main St 4', attendees: [] });
      expect(created).toMatchObject({ title: 'Dentist', allDay: false, start: '2026-01-05T15:00', end: '2026-01-05T15:45', location: 'Main St 4' });
      expect(created.startsAt).toEqual(new Date('2026-01-05T20:00:00Z'));
      const listed = await calendar.listEvents(range('2026-01-05T05:00:00Z', '2026-01-06T05:00:00Z'), ZONE);
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ id: created.id, title: 'Dentist', start: '2026-01-05T15:00', end: '2026-01-05T15:45', timezone: ZONE });
      expect(listed[0]!.version).toBeTruthy();
      // Ends exactly when the range starts, or starts exactly when it ends: not in it.
      expect(await calendar.listEvents(range('2026-01-05T20:45:00Z', '2026-01-06T05:00:00Z'), ZONE)).toEqual([]);
      expect(await calendar.listEvents(range('2026-01-05T05:00:00Z', '2026-01-05T20:00:00Z'), ZONE)).toEqual([]);
      expect(await calendar.getEvent(created.id, ZONE)).toMatchObject({ title: 'Dentist', start: '2026-01-05T15:00' });
    });

    it('keeps all-day events as dates, and attendees as addresses', async () => {
      const created = await calendar.createEvent({ title: 'Conference', allDay: true, start: '2026-01-13', end: '2026-01-15', timezone: ZONE, attendees: ['dana@example.com'] });
      const listed = await calendar.listEvents(range('2026-01-14T05:00:00Z', '2026-01-15T05:00:00Z'), ZONE);
      expect(listed).toMatchObject([{ id: created.id, title: 'Conference', allDay: true, start: '2026-01-13', end: '2026-01-15', attendees: ['dana@example.com'] }]);
      expect(await calendar.listEvents(range('2026-01-15T05:00:00Z', '2026-01-16T05:00:00Z'), ZONE)).toEqual([]);
    });

    it('expands a weekly event at the same local time across a DST change', async () => {
      await calendar.createEvent({ title: 'Choir', allDay: false, start: '2026-03-03T18:00', end: '2026-03-03T19:30', timezone: ZONE, recurrence: 'FREQ=WEEKLY;BYDAY=TU;COUNT=3' });
      const listed = await calendar.listEvents(range('2026-03-01T00:00:00Z', '2026-04-01T00:00:00Z'), ZONE);
      expect(listed.map((event) => [event.title, event.start, event.end])).toEqual([
        ['Choir', '2026-03-03T18:00', '2026-03-03T19:30'],
        ['Choir', '2026-03-10T18:00', '2026-03-10T19:30'],
        ['Choir', '2026-03-17T18:00', '2026-03-17T19:30'],
      ]);
      // 18:00 EST is 23:00Z; after the clocks go forward on 8 March, 18:00 EDT is 22:00Z.
      expect(listed.map((event) => event.startsAt.toISOString())).toEqual(['2026-03-03T23:00:00.000Z', '2026-03-10T22:00:00.000Z', '2026-03-17T22:00:00.000Z']);
      expect(listed.every((event) => event.recurrence?.includes('FREQ=WEEKLY'))).toBe(true);
      expect(new Set(listed.map((event) => event.id)).size).toBe(3);
    });

    it('changes one occurrence, or deletes one, and leaves the rest of the series alone', async () => {
      await calendar.createEvent({ title: 'Standup', allDay: false, start: '2026-04-06T09:00', end: '2026-04-06T09:15', timezone: ZONE, recurrence: 'FREQ=DAILY;COUNT=4' });
      const week = range('2026-04-06T00:00:00Z', '2026-04-11T00:00:00Z');
      const [, second, third] = await calendar.listEvents(week, ZONE);
      const moved = await calendar.updateEvent(second!.id, { start: '2026-04-07T10:00', title: 'Standup (late)' }, { scope: 'occurrence', timezone: ZONE });
      expect(moved).toMatchObject({ title: 'Standup (late)', start: '2026-04-07T10:00', end: '2026-04-07T10:15' });
      await calendar.deleteEvent(third!.id, { scope: 'occurrence', timezone: ZONE });
      expect((await calendar.listEvents(week, ZONE)).map((event) => [event.title, event.start])).toEqual([
        ['Standup', '2026-04-06T09:00'],
        ['Standup (late)', '2026-04-07T10:00'],
        ['Standup', '2026-04-09T09:00'],
      ]);
    });

    it('changes and moves a whole series from any of its occurrences, then deletes it', async () => {
      await calendar.createEvent({ title: 'Gym', allDay: false, start: '2026-05-04T07:00', end: '2026-05-04T08:00', timezone: ZONE, recurrence: 'FREQ=DAILY;COUNT=3' });
      const days = range('2026-05-04T00:00:00Z', '2026-05-08T00:00:00Z');
      const [, second] = await calendar.listEvents(days, ZONE);
      await calendar.updateEvent(second!.id, { title: 'Gym class', start: '2026-05-05T07:30' }, { scope: 'series', timezone: ZONE });
      const after = await calendar.listEvents(days, ZONE);
      expect(after.map((event) => [event.title, event.start, event.end])).toEqual([
        ['Gym class', '2026-05-04T07:30', '2026-05-04T08:30'],
        ['Gym class', '2026-05-05T07:30', '2026-05-05T08:30'],
        ['Gym class', '2026-05-06T07:30', '2026-05-06T08:30'],
      ]);
      await calendar.deleteEvent(after[1]!.id, { scope: 'series', timezone: ZONE });
      expect(await calendar.listEvents(days, ZONE)).toEqual([]);
    });

    it('moves and deletes a single event', async () => {
      const created = await calendar.createEvent({ title: 'Haircut', allDay: false, start: '2026-06-01T12:00', end: '2026-06-01T12:30', timezone: ZONE });
      const moved = await calendar.updateEvent(created.id, { start: '2026-06-02T16:00' }, { scope: 'series', timezone: ZONE });
      expect(moved).toMatchObject({ title: 'Haircut', start: '2026-06-02T16:00', end: '2026-06-02T16:30' });
      expect(titles(await calendar.listEvents(range('2026-06-01T00:00:00Z', '2026-06-02T00:00:00Z'), ZONE))).toEqual([]);
      await calendar.deleteEvent(moved.id, { scope: 'series', timezone: ZONE });
      expect(await calendar.listEvents(range('2026-06-01T00:00:00Z', '2026-06-04T00:00:00Z'), ZONE)).toEqual([]);
      expect(await calendar.getEvent(created.id, ZONE)).toBeUndefined();
    });

    it('refuses to overwrite a change made since the event was read, and changes nothing', async () => {
      const created = await calendar.createEvent({ title: 'Review', allDay: false, start: '2026-07-06T11:00', end: '2026-07-06T12:00', timezone: ZONE });
      const seen = created.version;
      await calendar.updateEvent(created.id, { title: 'Review (moved room)' }, { scope: 'series', timezone: ZONE });
      const stale = await failure(calendar.updateEvent(created.id, { title: 'Overwritten' }, { scope: 'series', version: seen, timezone: ZONE }));
      expect(stale.failure).toBe('conflict');
      expect((await failure(calendar.deleteEvent(created.id, { scope: 'series', version: seen, timezone: ZONE }))).failure).toBe('conflict');
      expect(await calendar.getEvent(created.id, ZONE)).toMatchObject({ title: 'Review (moved room)' });
    });

    it('lists a busy day whole and in start order, however many pages the service answers in', async () => {
      // Created out of order; more events than a page of the fake Google's list (3) holds.
      const hours = [15, 9, 12, 10, 17, 11, 14, 16];
      for (const hour of hours) {
        const time = String(hour).padStart(2, '0');
        await calendar.createEvent({ title: `Slot ${hour}`, allDay: false, start: `2026-09-07T${time}:00`, end: `2026-09-07T${time}:30`, timezone: ZONE });
      }
      const listed = await calendar.listEvents(range('2026-09-07T04:00:00Z', '2026-09-08T04:00:00Z'), ZONE);
      expect(titles(listed)).toEqual([...hours].sort((left, right) => left - right).map((hour) => `Slot ${hour}`));
      expect(new Set(listed.map((event) => event.id)).size).toBe(hours.length);
    });

    it('says "not found" for events that do not exist', async () => {
      const created = await calendar.createEvent({ title: 'Gone soon', allDay: false, start: '2026-08-03T10:00', end: '2026-08-03T11:00', timezone: ZONE });
      await calendar.deleteEvent(created.id, { scope: 'series', timezone: ZONE });
      expect(await calendar.getEvent(created.id, ZONE)).toBeUndefined();
      expect((await failure(calendar.updateEvent(created.id, { title: 'x' }, { scope: 'series', timezone: ZONE }))).failure).toBe('not_found');
      expect((await failure(calendar.deleteEvent(created.id, { scope: 'series', timezone: ZONE }))).failure).toBe('not_found');
    });
  });
}
