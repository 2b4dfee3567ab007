import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../src/logging/logger.js';
import { resolveDateTool, type ResolvedDate } from '../../../src/orchestrator/utility-tools/resolve-date.js';
import { ManualClock } from '../../../src/shared/clock.js';
import type { ToolContext, ToolResult } from '../../../src/tools/tool.js';

/** Runs resolve_date as the orchestrator would: schema-parsed input, a user's zone, a fixed clock. */
async function resolveDate(expression: string, timezone: string, localNow: string): Promise<ToolResult> {
  const instant = DateTime.fromISO(localNow, { zone: timezone });
  const clock = new ManualClock(instant.isValid ? instant.toJSDate() : localNow);
  const context: ToolContext = { userId: 'u1', timezone, clock, logger: createSilentLogger() };
  return resolveDateTool.run(resolveDateTool.inputSchema.parse({ expression }), context);
}

/** The output of a result that must have succeeded. */
function outputOf(result: ToolResult): ResolvedDate {
  if (result.isError) throw new Error(`expected success, got error: ${result.error}`);
  return result.output as ResolvedDate;
}

const losAngeles = 'America/Los_Angeles';
const newYork = 'America/New_York';

describe('resolve_date weekday rule', () => {
  // The week of Monday 2026-01-26 … Sunday 2026-02-01, each at 10:30 in Los Angeles.
  const week = [
    { today: '2026-01-26', name: 'Monday' },
    { today: '2026-01-27', name: 'Tuesday' },
    { today: '2026-01-28', name: 'Wednesday' },
    { today: '2026-01-29', name: 'Thursday' },
    { today: '2026-01-30', name: 'Friday' },
    { today: '2026-01-31', name: 'Saturday' },
    { today: '2026-02-01', name: 'Sunday' },
  ];
  const expectations: Record<string, Record<string, string>> = {
    friday: {
      Monday: '2026-01-30', Tuesday: '2026-01-30', Wednesday: '2026-01-30', Thursday: '2026-01-30',
      Friday: '2026-01-30', Saturday: '2026-02-06', Sunday: '2026-02-06',
    },
    'next friday': {
      Monday: '2026-02-06', Tuesday: '2026-02-06', Wednesday: '2026-02-06', Thursday: '2026-02-06',
      Friday: '2026-02-06', Saturday: '2026-02-13', Sunday: '2026-02-13',
    },
    'last friday': {
      Monday: '2026-01-23', Tuesday: '2026-01-23', Wednesday: '2026-01-23', Thursday: '2026-01-23',
      Friday: '2026-01-23', Saturday: '2026-01-30', Sunday: '2026-01-30',
    },
    monday: {
      Monday: '2026-01-26', Tuesday: '2026-02-02', Wednesday: '2026-02-02', Thursday: '2026-02-02',
      Friday: '2026-02-02', Saturday: '2026-02-02', Sunday: '2026-02-02',
    },
    'next monday': {
      Monday: '2026-02-02', Tuesday: '2026-02-09', Wednesday: '2026-02-09', Thursday: '2026-02-09',
      Friday: '2026-02-09', Saturday: '2026-02-09', Sunday: '2026-02-09',
    },
  };

  for (const [expression, byWeekday] of Object.entries(expectations)) {
    for (const { today, name } of week) {
      it(`"${expression}" on ${name} ${today} is ${byWeekday[name]}`, async () => {
        const output = outputOf(await resolveDate(expression, losAngeles, `${today}T10:30:00`));
        expect(output.date).toBe(byWeekday[name]);
      });
    }
  }

  it('"friday" on a Friday is today and says so', async () => {
    const output = outputOf(await resolveDate('friday', losAngeles, '2026-01-30T10:30:00'));
    expect(output).toMatchObject({ date: '2026-01-30', weekday: 'Friday', isToday: true, isPast: false });
    expect(output.note).toContain('2026-02-06');
  });

  it('"this friday" on a Friday is today too', async () => {
    const output = outputOf(await resolveDate('this friday', losAngeles, '2026-01-30T10:30:00'));
    expect(output).toMatchObject({ date: '2026-01-30', isToday: true });
  });

  it('"this friday" on Wednesday is the coming Friday', async () => {
    const output = outputOf(await resolveDate('this friday', losAngeles, '2026-01-28T10:30:00'));
    expect(output).toMatchObject({ date: '2026-01-30', weekday: 'Friday', isToday: false });
  });

  it('"next friday" on Wednesday 2026-01-28 is 2026-02-06 and names the coming Friday in the note', async () => {
    const output = outputOf(await resolveDate('next friday', losAngeles, '2026-01-28T10:30:00'));
    expect(output).toMatchObject({ date: '2026-02-06', weekday: 'Friday', isPast: false });
    expect(output.note).toContain('2026-01-30');
  });

  it('"next friday" on Friday is a week later', async () => {
    const output = outputOf(await resolveDate('next friday', losAngeles, '2026-01-30T10:30:00'));
    expect(output.date).toBe('2026-02-06');
  });

  it('corrects chrono-node: "next tuesday" on Wednesday is 13 days ahead, not the coming Tuesday', async () => {
    const output = outputOf(await resolveDate('next tuesday', losAngeles, '2026-01-28T10:30:00'));
    expect(output.date).toBe('2026-02-10');
  });

  it('corrects chrono-node: "last friday" is in the past, even with forward dating', async () => {
    const output = outputOf(await resolveDate('last friday', losAngeles, '2026-01-28T10:30:00'));
    expect(output).toMatchObject({ date: '2026-01-23', isPast: true });
  });

  it('holds for every weekday on every day of the week: bare 0–6 days ahead, next 7–13, last 1–7 back', async () => {
    const names = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
    for (const { today } of week) {
      const todayDate = DateTime.fromISO(today, { zone: 'utc' });
      for (const name of names) {
        const daysAhead = async (expression: string): Promise<number> => {
          const output = outputOf(await resolveDate(expression, losAngeles, `${today}T10:30:00`));
          expect(output.weekday.toLowerCase()).toBe(name);
          return DateTime.fromISO(output.date, { zone: 'utc' }).diff(todayDate, 'days').days;
        };
        const bare = await daysAhead(name);
        expect(bare).toBeGreaterThanOrEqual(0);
        expect(bare).toBeLessThanOrEqual(6);
        expect(await daysAhead(`this ${name}`)).toBe(bare);
        expect(await daysAhead(`next ${name}`)).toBe(bare + 7);
        const last = await daysAhead(`last ${name}`);
        expect(last).toBeGreaterThanOrEqual(-7);
        expect(last).toBeLessThanOrEqual(-1);
      }
    }
  });

  it('reads "friday next week" as the Friday of next calendar week (Monday start)', async () => {
    // Saturday 2026-01-31: the coming Friday (02-06) is already in next week.
    expect(outputOf(await resolveDate('friday next week', losAngeles, '2026-01-31T10:30:00')).date).toBe('2026-02-06');
    expect(outputOf(await resolveDate('next week friday', losAngeles, '2026-01-28T10:30:00')).date).toBe('2026-02-06');
  });

  it('keeps a time given with a weekday', async () => {
    const output = outputOf(await resolveDate('friday at 3pm', losAngeles, '2026-01-28T10:30:00'));
    expect(output).toMatchObject({ date: '2026-01-30', time: '15:00', iso: '2026-01-30T15:00:00-08:00' });
  });

  it('reads an hour without am/pm with a day as daytime (1–6 afternoon, 7–11 morning) and names the other reading', async () => {
    const afternoon = outputOf(await resolveDate('friday at 3', losAngeles, '2026-01-28T10:30:00'));
    expect(afternoon.time).toBe('15:00');
    expect(afternoon.note).toContain('03:00');
    const morning = outputOf(await resolveDate('friday at 9', losAngeles, '2026-01-28T10:30:00'));
    expect(morning.time).toBe('09:00');
    expect(morning.note).toContain('21:00');
  });

  it('reads an hour without am/pm and no day as the next time the clock shows it', async () => {
    const output = outputOf(await resolveDate('at 5', losAngeles, '2026-01-28T10:30:00'));
    expect(output).toMatchObject({ date: '2026-01-28', time: '17:00' });
    expect(output.note).toContain('05:00');
  });
});

describe('resolve_date other expressions', () => {
  const wednesday = '2026-01-28T10:30:00';

  it.each([
    ['tomorrow', '2026-01-29'],
    ['today', '2026-01-28'],
    ['yesterday', '2026-01-27'],
    ['day after tomorrow', '2026-01-30'],
    ['in 3 days', '2026-01-31'],
    ['in 2 weeks', '2026-02-11'],
    ['the 1st', '2026-02-01'],
    ['the 28th', '2026-01-28'],
    ['the 31st', '2026-01-31'],
    ['Dec 25', '2026-12-25'],
    ['2026-02-03', '2026-02-03'],
    ['the 3rd of february', '2026-02-03'],
    ['friday the 13th', '2026-02-13'],
    ['Friday.', '2026-01-30'],
  ])('"%s" on Wednesday 2026-01-28 is %s', async (expression, date) => {
    expect(outputOf(await resolveDate(expression, losAngeles, wednesday)).date).toBe(date);
  });

  it('reads a date without a year as the next one, skipping months that lack the day', async () => {
    expect(outputOf(await resolveDate('the 30th', losAngeles, '2026-02-10T10:00:00')).date).toBe('2026-03-30');
    expect(outputOf(await resolveDate('jan 5', losAngeles, wednesday)).date).toBe('2027-01-05');
  });

  it('marks today and the past', async () => {
    expect(outputOf(await resolveDate('today', losAngeles, wednesday))).toMatchObject({ isToday: true, isPast: false });
    expect(outputOf(await resolveDate('yesterday', losAngeles, wednesday))).toMatchObject({ isToday: false, isPast: true });
    const earlierToday = outputOf(await resolveDate('today at 9am', losAngeles, wednesday));
    expect(earlierToday).toMatchObject({ isToday: true, isPast: true, time: '09:00' });
    expect(earlierToday.note).toContain('passed');
  });

  it('reads a time alone as the next time the clock shows it', async () => {
    expect(outputOf(await resolveDate('3pm', losAngeles, wednesday))).toMatchObject({ date: '2026-01-28', time: '15:00' });
    expect(outputOf(await resolveDate('at 9am', losAngeles, wednesday))).toMatchObject({ date: '2026-01-29', time: '09:00' });
  });

  it('omits time and iso when no time was given', async () => {
    const output = outputOf(await resolveDate('tomorrow', losAngeles, wednesday));
    expect(output.time).toBeUndefined();
    expect(output.iso).toBeUndefined();
    expect(output.expression).toBe('tomorrow');
  });

  it('re-expresses a moment with its own zone in the user zone', async () => {
    const output = outputOf(await resolveDate('2026-02-03T10:00:00Z', losAngeles, wednesday));
    expect(output).toMatchObject({ date: '2026-02-03', time: '02:00', iso: '2026-02-03T02:00:00-08:00' });
    expect(output.note).toBeUndefined();
    const previousDay = outputOf(await resolveDate('2026-02-03T02:00:00Z', losAngeles, wednesday));
    expect(previousDay).toMatchObject({ date: '2026-02-02', iso: '2026-02-02T18:00:00-08:00' });
  });

  it('applies the weekday rule to a time in another zone, then converts it', async () => {
    const output = outputOf(await resolveDate('next friday at 3pm est', losAngeles, wednesday));
    expect(output).toMatchObject({ date: '2026-02-06', iso: '2026-02-06T12:00:00-08:00' });
    // Friday 23:00 in New York is Saturday morning in Jerusalem.
    const jerusalem = outputOf(await resolveDate('friday 11pm est', 'Asia/Jerusalem', wednesday));
    expect(jerusalem).toMatchObject({ date: '2026-01-31', weekday: 'Saturday', iso: '2026-01-31T06:00:00+02:00' });
  });

  it('reads relative months and years from today', async () => {
    expect(outputOf(await resolveDate('in a month', losAngeles, wednesday)).date).toBe('2026-02-28');
    expect(outputOf(await resolveDate('in a year', losAngeles, wednesday)).date).toBe('2027-01-28');
  });
});

describe('resolve_date time zones', () => {
  it('uses the local date in Los Angeles at 23:30, when UTC is already the next day', async () => {
    // 2026-01-28T23:30-08:00 is 2026-01-29T07:30Z.
    const now = '2026-01-28T23:30:00';
    expect(outputOf(await resolveDate('tomorrow', losAngeles, now)).date).toBe('2026-01-29');
    expect(outputOf(await resolveDate('today', losAngeles, now))).toMatchObject({ date: '2026-01-28', weekday: 'Wednesday' });
    expect(outputOf(await resolveDate('friday', losAngeles, now)).date).toBe('2026-01-30');
  });

  it('uses the local date in Jerusalem at 00:30, when UTC is still the previous day', async () => {
    // 2026-01-29T00:30+02:00 is 2026-01-28T22:30Z.
    const now = '2026-01-29T00:30:00';
    expect(outputOf(await resolveDate('today', 'Asia/Jerusalem', now))).toMatchObject({ date: '2026-01-29', weekday: 'Thursday', isToday: true });
    expect(outputOf(await resolveDate('tomorrow', 'Asia/Jerusalem', now)).date).toBe('2026-01-30');
    expect(outputOf(await resolveDate('yesterday', 'Asia/Jerusalem', now)).date).toBe('2026-01-28');
    expect(outputOf(await resolveDate('thursday', 'Asia/Jerusalem', now))).toMatchObject({ date: '2026-01-29', isToday: true });
  });

  it('handles a half-hour zone', async () => {
    // 2026-01-28T23:45+05:30 is 18:15Z.
    const output = outputOf(await resolveDate('tomorrow at 9am', 'Asia/Kolkata', '2026-01-28T23:45:00'));
    expect(output).toMatchObject({ date: '2026-01-29', iso: '2026-01-29T09:00:00+05:30' });
  });
});

describe('resolve_date across DST changes', () => {
  it('New York spring forward: "tomorrow at 9am" from the evening before is 09:00 at -04:00', async () => {
    const output = outputOf(await resolveDate('tomorrow at 9am', newYork, '2026-03-07T20:00:00'));
    expect(output).toMatchObject({ date: '2026-03-08', weekday: 'Sunday', time: '09:00', iso: '2026-03-08T09:00:00-04:00' });
  });

  it('New York fall back: "tomorrow at 9am" from the evening before is 09:00 at -05:00', async () => {
    const output = outputOf(await resolveDate('tomorrow at 9am', newYork, '2026-10-31T20:00:00'));
    expect(output).toMatchObject({ date: '2026-11-01', time: '09:00', iso: '2026-11-01T09:00:00-05:00' });
  });

  it('London spring forward: "tomorrow at 9am" on 2026-03-28 is 09:00 BST', async () => {
    const output = outputOf(await resolveDate('tomorrow at 9am', 'Europe/London', '2026-03-28T20:00:00'));
    expect(output).toMatchObject({ date: '2026-03-29', iso: '2026-03-29T09:00:00+01:00' });
  });

  it('moves a time that DST skips and says so', async () => {
    const output = outputOf(await resolveDate('tomorrow at 2:30am', newYork, '2026-03-07T20:00:00'));
    expect(output.iso).toBe('2026-03-08T03:30:00-04:00');
    expect(output.note).toContain('does not exist');
  });

  it('counts "in 3 hours" in real time across the change', async () => {
    // 00:30 EST + 3 h = 04:30 EDT (02:00–03:00 does not exist).
    const output = outputOf(await resolveDate('in 3 hours', newYork, '2026-03-08T00:30:00'));
    expect(output.iso).toBe('2026-03-08T04:30:00-04:00');
  });

  it('"friday at 9am" after a DST change carries the new offset', async () => {
    const output = outputOf(await resolveDate('friday at 9am', newYork, '2026-03-04T12:00:00'));
    expect(output.iso).toBe('2026-03-06T09:00:00-05:00');
    const after = outputOf(await resolveDate('next monday at 9am', newYork, '2026-03-04T12:00:00'));
    expect(after.iso).toBe('2026-03-16T09:00:00-04:00');
  });
});

describe('resolve_date across the year boundary', () => {
  const december30 = '2026-12-30T12:00:00';

  it.each([
    ['jan 2', '2027-01-02'],
    ['the 1st', '2027-01-01'],
    ['tomorrow', '2026-12-31'],
    ['day after tomorrow', '2027-01-01'],
    ['monday', '2027-01-04'],
    ['next wednesday', '2027-01-06'],
    ['in 5 days', '2027-01-04'],
  ])('"%s" on 2026-12-30 is %s', async (expression, date) => {
    expect(outputOf(await resolveDate(expression, newYork, december30)).date).toBe(date);
  });

  it('"friday" on Thursday 2026-12-31 is 2027-01-01', async () => {
    expect(outputOf(await resolveDate('friday', newYork, '2026-12-31T12:00:00'))).toMatchObject({ date: '2027-01-01', weekday: 'Friday' });
  });
});

describe('resolve_date Hebrew', () => {
  const wednesday = '2026-01-28T10:30:00';

  it.each([
    ['מחר', '2026-01-29'],
    ['מחרתיים', '2026-01-30'],
    ['היום', '2026-01-28'],
    ['אתמול', '2026-01-27'],
    ['יום שישי', '2026-01-30'],
    ['ביום שישי', '2026-01-30'],
    ['יום שישי הבא', '2026-02-06'],
    ['שבת', '2026-01-31'],
    ['בעוד 3 ימים', '2026-01-31'],
    ['3 בפברואר', '2026-02-03'],
  ])('"%s" on Wednesday 2026-01-28 is %s', async (expression, date) => {
    const output = outputOf(await resolveDate(expression, 'Asia/Jerusalem', wednesday));
    expect(output.date).toBe(date);
    expect(output.expression).toBe(expression);
  });

  it('reads a Hebrew time', async () => {
    const output = outputOf(await resolveDate('מחר בשעה 15:00', 'Asia/Jerusalem', wednesday));
    expect(output).toMatchObject({ date: '2026-01-29', time: '15:00', iso: '2026-01-29T15:00:00+02:00' });
  });
});

describe('resolve_date failures', () => {
  it.each(['sometime', 'blah', 'asap-ish', '🙂', 'feb 30', '31st of february', 'the 45th', 'tomorrow at 9 to pay rent'])('"%s" is an error result that says to ask or use words', async (expression) => {
    const result = await resolveDate(expression, losAngeles, '2026-01-28T10:30:00');
    expect(result.isError).toBe(true);
    if (result.isError) expect(result.error).toMatch(/Ask the user, or describe the time in words in the plan; never guess\.$/);
  });

  it('points spans to resolve_time_range', async () => {
    for (const expression of ['next week', 'this weekend', 'january']) {
      const result = await resolveDate(expression, losAngeles, '2026-01-28T10:30:00');
      expect(result.isError).toBe(true);
      if (result.isError) expect(result.error).toContain('resolve_time_range');
    }
  });

  it('refuses dates centuries away', async () => {
    const result = await resolveDate('in 100000 years', losAngeles, '2026-01-28T10:30:00');
    expect(result.isError).toBe(true);
  });

  it('returns an error, not a throw, for an invalid time zone', async () => {
    for (const timezone of ['Mars/Olympus_Mons', '', 'not a zone']) {
      const result = await resolveDate('tomorrow', timezone, '2026-01-28T18:30:00Z');
      expect(result.isError).toBe(true);
      if (result.isError) expect(result.error).toMatch(/time zone.*IANA.*words/);
    }
  });

  it('rejects an empty expression at the schema', () => {
    expect(resolveDateTool.inputSchema.safeParse({ expression: '   ' }).success).toBe(false);
    expect(resolveDateTool.inputSchema.safeParse({}).success).toBe(false);
  });

  it('never throws on odd input', async () => {
    const odd = ['feb 30', '31st of february', '25:00', '-1 days', '99999999', 'in 100000 years', 'the 0th', 'the 45th', 'next next friday', 'between', 'מ', 'יום', '2026-13-45', 'friday to', '..', 'at'];
    for (const expression of odd) {
      const result = await resolveDate(expression, losAngeles, '2026-01-28T10:30:00');
      expect(typeof result.isError).toBe('boolean');
      if (!result.isError) expect(outputOf(result).date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });
});
