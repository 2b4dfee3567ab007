import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  describeRule,
  firstOccurrence,
  localToInstant,
  nextOccurrence,
  nextOccurrenceWithLocal,
  recurrenceSchema,
  toRrule,
  type Recurrence,
} from '../../src/reminders/reminder-schedule.js';

/**
 * Wall-clock reminder arithmetic (issue 4): local times that do not exist or happen twice,
 * and recurring rules that stay at the same local time across DST changes.
 */

const NEW_YORK = 'America/New_York';

/** Every occurrence from the first, up to `limit` of them, as instants. */
function occurrences(recurrence: Recurrence, startLocal: string, zone: string, limit = 10): Date[] {
  const rule = toRrule(recurrence);
  const found: Date[] = [];
  let next = firstOccurrence(rule, startLocal, zone);
  while (next && found.length < limit) {
    found.push(next);
    next = nextOccurrence(rule, startLocal, zone, next);
  }
  return found;
}

/** "2026-03-08 09:00 -04:00 Sun" */
const local = (instant: Date, zone: string) => DateTime.fromJSDate(instant, { zone }).toFormat('yyyy-MM-dd HH:mm ZZ ccc');

describe('localToInstant', () => {
  it('turns an ordinary local time into its instant', () => {
    expect(localToInstant('2026-03-02T09:00', NEW_YORK)).toEqual({ ok: true, instant: new Date('2026-03-02T14:00:00Z') });
    expect(localToInstant('2026-07-02T09:00:30', NEW_YORK)).toEqual({ ok: true, instant: new Date('2026-07-02T13:00:30Z') });
  });

  it('rejects a time the clocks skip (02:30 on the spring-forward night) and names the nearest one', () => {
    const result = localToInstant('2026-03-08T02:30', NEW_YORK);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problem).toMatchObject({ kind: 'nonexistent', after: '2026-03-08T03:30' });
    expect(result.problem.message).toContain('02:30 does not exist on 2026-03-08');
    expect(result.problem.message).toContain('03:30');
    // The minutes either side of the gap exist.
    expect(localToInstant('2026-03-08T01:59', NEW_YORK)).toEqual({ ok: true, instant: new Date('2026-03-08T06:59:00Z') });
    expect(localToInstant('2026-03-08T03:00', NEW_YORK)).toEqual({ ok: true, instant: new Date('2026-03-08T07:00:00Z') });
  });

  it('flags a time that happens twice (01:30 on the fall-back night) unless told which', () => {
    const result = localToInstant('2026-11-01T01:30', NEW_YORK);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problem).toMatchObject({
      kind: 'ambiguous',
      earlier: new Date('2026-11-01T05:30:00Z'),
      later: new Date('2026-11-01T06:30:00Z'),
    });
    expect(result.problem.message).toContain('01:30 -04:00');
    expect(result.problem.message).toContain('01:30 -05:00');
    expect(localToInstant('2026-11-01T01:30', NEW_YORK, 'earlier')).toEqual({ ok: true, instant: new Date('2026-11-01T05:30:00Z') });
    expect(localToInstant('2026-11-01T01:30', NEW_YORK, 'later')).toEqual({ ok: true, instant: new Date('2026-11-01T06:30:00Z') });
    // A choice is ignored when there is nothing to choose between.
    expect(localToInstant('2026-11-01T03:30', NEW_YORK, 'earlier')).toEqual({ ok: true, instant: new Date('2026-11-01T08:30:00Z') });
  });

  it('rejects dates that do not exist at all', () => {
    for (const invalid of ['2026-02-30T09:00', '2026-02-29T09:00', '2026-13-01T09:00', '2026-04-31T09:00', '2026-03-02T24:00', '2026-03-02T09:60', 'tomorrow at 9']) {
      const result = localToInstant(invalid, NEW_YORK);
      expect(result, invalid).toMatchObject({ ok: false, problem: { kind: 'invalid' } });
    }
    // 2028 is a leap year.
    expect(localToInstant('2028-02-29T09:00', NEW_YORK)).toEqual({ ok: true, instant: new Date('2028-02-29T14:00:00Z') });
  });

  it('knows Europe/London and Asia/Jerusalem DST nights too', () => {
    // London: clocks forward 01:00 → 02:00 on 2026-03-29, back 02:00 → 01:00 on 2026-10-25.
    expect(localToInstant('2026-03-29T01:30', 'Europe/London')).toMatchObject({ ok: false, problem: { kind: 'nonexistent', after: '2026-03-29T02:30' } });
    expect(localToInstant('2026-10-25T01:30', 'Europe/London')).toMatchObject({
      ok: false,
      problem: { kind: 'ambiguous', earlier: new Date('2026-10-25T00:30:00Z'), later: new Date('2026-10-25T01:30:00Z') },
    });
    // Jerusalem: forward 02:00 → 03:00 on Friday 2026-03-27, back 02:00 → 01:00 on 2026-10-25.
    expect(localToInstant('2026-03-27T02:30', 'Asia/Jerusalem')).toMatchObject({ ok: false, problem: { kind: 'nonexistent', after: '2026-03-27T03:30' } });
    expect(localToInstant('2026-10-25T01:30', 'Asia/Jerusalem')).toMatchObject({
      ok: false,
      problem: { kind: 'ambiguous', earlier: new Date('2026-10-24T22:30:00Z'), later: new Date('2026-10-24T23:30:00Z') },
    });
    // The same wall-clock times exist once in a zone without DST.
    expect(localToInstant('2026-03-29T01:30', 'Asia/Tokyo')).toEqual({ ok: true, instant: new Date('2026-03-28T16:30:00Z') });
  });
});

describe('toRrule', () => {
  it('writes RFC 5545 rules without DTSTART', () => {
    expect(toRrule({ frequency: 'daily' })).toBe('FREQ=DAILY');
    expect(toRrule({ frequency: 'weekly', weekdays: ['MO', 'TU', 'WE', 'TH', 'FR'] })).toBe('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR');
    expect(toRrule({ frequency: 'weekly', interval: 2, weekdays: ['MO'], until: '2026-06-30' })).toBe('FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;UNTIL=20260630T235959Z');
    expect(toRrule({ frequency: 'monthly', monthDays: [1], count: 3 })).toBe('FREQ=MONTHLY;BYMONTHDAY=1;COUNT=3');
    expect(toRrule({ frequency: 'daily', interval: 1 })).toBe('FREQ=DAILY');
  });

  it('the schema refuses an end date together with a count, and combinations that match no day for millennia', () => {
    expect(recurrenceSchema.safeParse({ frequency: 'daily', until: '2026-06-30', count: 3 }).success).toBe(false);
    expect(recurrenceSchema.safeParse({ frequency: 'daily', interval: 7, weekdays: ['MO'] }).success).toBe(false);
    expect(recurrenceSchema.safeParse({ frequency: 'daily', interval: 2, monthDays: [1] }).success).toBe(false);
    expect(recurrenceSchema.safeParse({ frequency: 'weekly', monthDays: [31] }).success).toBe(false);
    expect(recurrenceSchema.safeParse({ frequency: 'monthly', monthDays: [0] }).success).toBe(false);
    // Their natural spellings are fine.
    expect(recurrenceSchema.safeParse({ frequency: 'weekly', weekdays: ['MO'] }).success).toBe(true);
    expect(recurrenceSchema.safeParse({ frequency: 'daily', weekdays: ['SA', 'SU'] }).success).toBe(true);
    expect(recurrenceSchema.safeParse({ frequency: 'monthly', monthDays: [-1] }).success).toBe(true);
  });

  it('describes rules in words', () => {
    expect(describeRule(toRrule({ frequency: 'weekly', weekdays: ['MO', 'TU', 'WE', 'TH', 'FR'] }), '2026-03-02T08:00')).toBe('every weekday');
    expect(describeRule(toRrule({ frequency: 'weekly', interval: 2, weekdays: ['MO'] }), '2026-03-02T08:00')).toBe('every 2 weeks on Monday');
  });
});

describe('recurring occurrences', () => {
  it('"every day at 9" stays at 09:00 local across the spring-forward change, the offset moving from -05:00 to -04:00', () => {
    const found = occurrences({ frequency: 'daily' }, '2026-03-06T09:00', NEW_YORK, 4);
    expect(found.map((instant) => local(instant, NEW_YORK))).toEqual([
      '2026-03-06 09:00 -05:00 Fri',
      '2026-03-07 09:00 -05:00 Sat',
      '2026-03-08 09:00 -04:00 Sun',
      '2026-03-09 09:00 -04:00 Mon',
    ]);
    expect(found.map((instant) => instant.toISOString())).toEqual([
      '2026-03-06T14:00:00.000Z',
      '2026-03-07T14:00:00.000Z',
      '2026-03-08T13:00:00.000Z',
      '2026-03-09T13:00:00.000Z',
    ]);
  });

  it('"every day at 9" stays at 09:00 local across the fall-back change', () => {
    const found = occurrences({ frequency: 'daily' }, '2026-10-31T09:00', NEW_YORK, 3);
    expect(found.map((instant) => instant.toISOString())).toEqual(['2026-10-31T13:00:00.000Z', '2026-11-01T14:00:00.000Z', '2026-11-02T14:00:00.000Z']);
    expect(found.map((instant) => local(instant, NEW_YORK).slice(11, 16))).toEqual(['09:00', '09:00', '09:00']);
  });

  it('an occurrence at a skipped time moves forward by the gap; one at a repeated time is the first of the two', () => {
    const skipped = occurrences({ frequency: 'daily' }, '2026-03-07T02:30', NEW_YORK, 3);
    expect(skipped.map((instant) => local(instant, NEW_YORK))).toEqual(['2026-03-07 02:30 -05:00 Sat', '2026-03-08 03:30 -04:00 Sun', '2026-03-09 02:30 -04:00 Mon']);
    const repeated = occurrences({ frequency: 'daily' }, '2026-10-31T01:30', NEW_YORK, 3);
    expect(repeated.map((instant) => instant.toISOString())).toEqual(['2026-10-31T05:30:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
  });

  it('the next occurrence is always after the instant asked about, even from inside the repeated hour', () => {
    // The 01:30 EDT occurrence (05:30Z) fired 40 minutes late, at 01:10 EST (06:10Z): the wall
    // clock reads earlier than 01:30 again, but 01:30 today is over; the next is tomorrow.
    const rule = toRrule({ frequency: 'daily' });
    const after = new Date('2026-11-01T06:10:00Z');
    const next = nextOccurrence(rule, '2026-10-30T01:30', NEW_YORK, after);
    expect(next?.toISOString()).toBe('2026-11-02T06:30:00.000Z');
    expect(nextOccurrenceWithLocal(rule, '2026-10-30T01:30', NEW_YORK, after)).toEqual({ instant: new Date('2026-11-02T06:30:00Z'), local: '2026-11-02T01:30' });
  });

  it('"every weekday at 8" skips weekends', () => {
    const found = occurrences({ frequency: 'weekly', weekdays: ['MO', 'TU', 'WE', 'TH', 'FR'] }, '2026-03-06T08:00', NEW_YORK, 6);
    expect(found.map((instant) => local(instant, NEW_YORK))).toEqual([
      '2026-03-06 08:00 -05:00 Fri',
      '2026-03-09 08:00 -04:00 Mon',
      '2026-03-10 08:00 -04:00 Tue',
      '2026-03-11 08:00 -04:00 Wed',
      '2026-03-12 08:00 -04:00 Thu',
      '2026-03-13 08:00 -04:00 Fri',
    ]);
  });

  it('"every other Monday" fires every fourteen days', () => {
    const found = occurrences({ frequency: 'weekly', interval: 2, weekdays: ['MO'] }, '2026-03-02T09:00', NEW_YORK, 4);
    expect(found.map((instant) => local(instant, NEW_YORK).slice(0, 16))).toEqual(['2026-03-02 09:00', '2026-03-16 09:00', '2026-03-30 09:00', '2026-04-13 09:00']);
    // Starting mid-week, the first Monday of the series is in the week after next: rrule counts
    // weeks from the start's own week. (The scheduler agent passes the first Monday as "at".)
    const midWeek = occurrences({ frequency: 'weekly', interval: 2, weekdays: ['MO'] }, '2026-03-04T09:00', NEW_YORK, 2);
    expect(midWeek.map((instant) => local(instant, NEW_YORK).slice(0, 10))).toEqual(['2026-03-16', '2026-03-30']);
  });

  it('"on the 1st of each month"', () => {
    const found = occurrences({ frequency: 'monthly', monthDays: [1] }, '2026-01-15T09:00', NEW_YORK, 4);
    expect(found.map((instant) => local(instant, NEW_YORK).slice(0, 16))).toEqual(['2026-02-01 09:00', '2026-03-01 09:00', '2026-04-01 09:00', '2026-05-01 09:00']);
  });

  it('"on the 31st of each month" skips the months without a 31st (RFC 5545); "the last day" is -1', () => {
    // Documented behaviour: a monthly rule on day 31 fires only in months that have one.
    const thirtyFirst = occurrences({ frequency: 'monthly', monthDays: [31] }, '2026-01-31T09:00', NEW_YORK, 5);
    expect(thirtyFirst.map((instant) => local(instant, NEW_YORK).slice(0, 10))).toEqual(['2026-01-31', '2026-03-31', '2026-05-31', '2026-07-31', '2026-08-31']);
    const lastDay = occurrences({ frequency: 'monthly', monthDays: [-1] }, '2026-01-31T09:00', NEW_YORK, 4);
    expect(lastDay.map((instant) => local(instant, NEW_YORK).slice(0, 10))).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30']);
  });

  it('an end date is inclusive (local) and a count is exact', () => {
    const until = occurrences({ frequency: 'weekly', weekdays: ['MO'], until: '2026-03-16' }, '2026-03-02T23:30', NEW_YORK);
    expect(until.map((instant) => local(instant, NEW_YORK).slice(0, 16))).toEqual(['2026-03-02 23:30', '2026-03-09 23:30', '2026-03-16 23:30']);
    const counted = occurrences({ frequency: 'daily', count: 3 }, '2026-03-02T09:00', NEW_YORK);
    expect(counted).toHaveLength(3);
    expect(nextOccurrence(toRrule({ frequency: 'daily', count: 3 }), '2026-03-02T09:00', NEW_YORK, counted[2]!)).toBeUndefined();
  });

  it('a rule that never fires has no first occurrence', () => {
    expect(firstOccurrence(toRrule({ frequency: 'daily', until: '2026-01-01' }), '2026-03-02T09:00', NEW_YORK)).toBeUndefined();
    expect(firstOccurrence(toRrule({ frequency: 'monthly', interval: 12, monthDays: [30] }), '2026-02-01T09:00', NEW_YORK)).toBeUndefined();
  });

  it('Europe/London and Asia/Jerusalem keep 09:00 local across their own DST dates', () => {
    const london = occurrences({ frequency: 'daily' }, '2026-03-28T09:00', 'Europe/London', 2).concat(occurrences({ frequency: 'daily' }, '2026-10-24T09:00', 'Europe/London', 2));
    expect(london.map((instant) => instant.toISOString())).toEqual(['2026-03-28T09:00:00.000Z', '2026-03-29T08:00:00.000Z', '2026-10-24T08:00:00.000Z', '2026-10-25T09:00:00.000Z']);
    const jerusalem = occurrences({ frequency: 'daily' }, '2026-03-26T09:00', 'Asia/Jerusalem', 2).concat(occurrences({ frequency: 'daily' }, '2026-10-24T09:00', 'Asia/Jerusalem', 2));
    expect(jerusalem.map((instant) => instant.toISOString())).toEqual(['2026-03-26T07:00:00.000Z', '2026-03-27T06:00:00.000Z', '2026-10-24T06:00:00.000Z', '2026-10-25T07:00:00.000Z']);
  });

  it('crosses the year boundary: Thursday Dec 31 to Thursday Jan 7, and a Friday rule lands on Jan 1', () => {
    const thursdays = occurrences({ frequency: 'weekly', weekdays: ['TH'] }, '2026-12-24T09:00', NEW_YORK, 3);
    expect(thursdays.map((instant) => local(instant, NEW_YORK).slice(0, 16))).toEqual(['2026-12-24 09:00', '2026-12-31 09:00', '2027-01-07 09:00']);
    const friday = nextOccurrence(toRrule({ frequency: 'weekly', weekdays: ['FR'] }), '2026-12-25T09:00', NEW_YORK, new Date('2026-12-31T23:00:00Z'));
    expect(local(friday!, NEW_YORK)).toBe('2027-01-01 09:00 -05:00 Fri');
    const yearly = occurrences({ frequency: 'yearly' }, '2026-12-31T23:59', NEW_YORK, 2);
    expect(yearly.map((instant) => local(instant, NEW_YORK).slice(0, 16))).toEqual(['2026-12-31 23:59', '2027-12-31 23:59']);
  });
});
