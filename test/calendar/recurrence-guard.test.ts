import { describe, expect, it } from 'vitest';
import { eventsInObject, objectSpan } from '../../src/calendar/ics-object.js';

/** An object with one event at 09:00 UTC on 10 March 2026 repeating by `rule`. */
const withRule = (rule: string, extra: string[] = []) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'BEGIN:VEVENT', 'UID:guard-1', 'SUMMARY:Stand-up', 'DTSTART:20260310T090000Z', 'DTEND:20260310T093000Z', `RRULE:${rule}`, ...extra, 'END:VEVENT', 'END:VCALENDAR'].join('\r\n');
const march = { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-04-01T00:00:00Z') };
const starts = (ics: string) => eventsInObject(ics, march, 'UTC', 'k').map((event) => event.startsAt.toISOString());

/**
 * Rules ical.js would search forever (or for millions of steps) are read as the event at its
 * DTSTART (found by the parse fuzz, test/shared/parse-fuzz.test.ts: such a rule used to spend
 * the parse worker's whole budget and fail the calendar's read).
 */
describe('rules that never recur again', () => {
  it.each([
    ['no February 31st', 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31'],
    ['no February 31st, every second', 'FREQ=SECONDLY;BYMONTHDAY=31;BYMONTH=2'],
    ['week 20 of February, weekly', 'FREQ=WEEKLY;BYMONTH=2;BYWEEKNO=20'],
    ['the last day of the month, daily (ical.js compares -1 with the day itself)', 'FREQ=DAILY;BYMONTHDAY=-1'],
    ['the last Friday, daily (ical.js compares "-1FR" with "FR")', 'FREQ=DAILY;BYDAY=-1FR'],
    ['every second, but only in February', 'FREQ=SECONDLY;BYMONTH=2'],
  ])('%s (%s): the event once, at its start, quickly', (_why, rule) => {
    expect(starts(withRule(rule))).toEqual(['2026-03-10T09:00:00.000Z']);
    expect(objectSpan(withRule(`${rule};COUNT=3`), 'UTC')).toEqual({ startsAt: new Date('2026-03-10T09:00:00Z'), endsAt: new Date('2026-03-10T09:30:00Z') });
  });

  it.each([
    ['29 February, in a leap year four years on', 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=2', ['2026-03-10T09:00:00.000Z']],
    ['the 31st, daily', 'FREQ=DAILY;BYMONTHDAY=31;COUNT=2', ['2026-03-10T09:00:00.000Z', '2026-03-31T09:00:00.000Z']],
    ['Fridays in week 11', 'FREQ=DAILY;BYWEEKNO=11;BYDAY=FR;COUNT=2', ['2026-03-10T09:00:00.000Z', '2026-03-13T09:00:00.000Z']],
    ['weekdays at 9', 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;COUNT=3', ['2026-03-10T09:00:00.000Z', '2026-03-11T09:00:00.000Z', '2026-03-12T09:00:00.000Z']],
    ['every hour, twice', 'FREQ=HOURLY;COUNT=2', ['2026-03-10T09:00:00.000Z', '2026-03-10T10:00:00.000Z']],
  ])('still follows a rule that recurs: %s', (_why, rule, expected) => {
    expect(starts(withRule(rule))).toEqual(expected);
  });
});
