import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../src/logging/logger.js';
import { resolveTimeRangeTool, type ResolvedTimeRange } from '../../../src/orchestrator/utility-tools/resolve-time-range.js';
import { ManualClock } from '../../../src/shared/clock.js';
import type { ToolContext, ToolResult } from '../../../src/tools/tool.js';

/** Runs resolve_time_range with schema-parsed input, a user's zone (and country) and a fixed clock. */
async function resolveRange(expression: string, timezone: string, localNow: string, country?: string): Promise<ToolResult> {
  const instant = DateTime.fromISO(localNow, { zone: timezone });
  const clock = new ManualClock(instant.isValid ? instant.toJSDate() : localNow);
  const context: ToolContext = { userId: 'u1', timezone, clock, logger: createSilentLogger(), country };
  return resolveTimeRangeTool.run(resolveTimeRangeTool.inputSchema.parse({ expression }), context);
}

function outputOf(result: ToolResult): ResolvedTimeRange {
  if (result.isError) throw new Error(`expected success, got error: ${result.error}`);
  return result.output as ResolvedTimeRange;
}

const losAngeles = 'America/Los_Angeles';
const newYork = 'America/New_York';
// Wednesday 2026-01-28, 10:30 in Los Angeles.
const wednesday = '2026-01-28T10:30:00';

describe('resolve_time_range calendar spans', () => {
  it.each([
    ['this week', '2026-01-26', '2026-02-01', 7],
    ['next week', '2026-02-02', '2026-02-08', 7],
    ['last week', '2026-01-19', '2026-01-25', 7],
    ['the week after next', '2026-02-09', '2026-02-15', 7],
    ['this weekend', '2026-01-31', '2026-02-01', 2],
    ['next weekend', '2026-02-07', '2026-02-08', 2],
    ['last weekend', '2026-01-24', '2026-01-25', 2],
    ['this month', '2026-01-01', '2026-01-31', 31],
    ['next month', '2026-02-01', '2026-02-28', 28],
    ['last month', '2025-12-01', '2025-12-31', 31],
    ['this year', '2026-01-01', '2026-12-31', 365],
    ['today', '2026-01-28', '2026-01-28', 1],
    ['tomorrow', '2026-01-29', '2026-01-29', 1],
    ['friday', '2026-01-30', '2026-01-30', 1],
    ['the next 3 days', '2026-01-28', '2026-01-30', 3],
    ['next two weeks', '2026-01-28', '2026-02-10', 14],
    ['the past 7 days', '2026-01-22', '2026-01-28', 7],
    ['january', '2026-01-01', '2026-01-31', 31],
    ['march', '2026-03-01', '2026-03-31', 31],
    ['2026-02-01 to 2026-02-07', '2026-02-01', '2026-02-07', 7],
    ['from friday until monday', '2026-01-30', '2026-02-02', 4],
    ['between dec 28 and jan 3', '2026-12-28', '2027-01-03', 7],
  ])('"%s" on Wednesday 2026-01-28 is %s … %s (%i days)', async (expression, startDate, endDate, days) => {
    const output = outputOf(await resolveRange(expression, losAngeles, wednesday));
    expect(output).toMatchObject({ expression, startDate, endDate, days });
    expect(output.start).toBe(`${startDate}T00:00:00${output.start.slice(-6)}`);
    expect(output.end).toBe(`${endDate}T23:59:59${output.end.slice(-6)}`);
  });

  it('gives full ISO timestamps with offsets, start at local midnight and end at 23:59:59', async () => {
    const output = outputOf(await resolveRange('this week', losAngeles, wednesday));
    expect(output.start).toBe('2026-01-26T00:00:00-08:00');
    expect(output.end).toBe('2026-02-01T23:59:59-08:00');
  });

  it('reads "this weekend" on a Sunday as the weekend in progress', async () => {
    const output = outputOf(await resolveRange('this weekend', losAngeles, '2026-02-01T10:00:00'));
    expect(output).toMatchObject({ startDate: '2026-01-31', endDate: '2026-02-01' });
  });

  it('reads "this week" on a Sunday as the week ending today (weeks start Monday)', async () => {
    const output = outputOf(await resolveRange('this week', losAngeles, '2026-02-01T10:00:00'));
    expect(output).toMatchObject({ startDate: '2026-01-26', endDate: '2026-02-01' });
  });

  it('gives a user in Israel Sunday–Saturday weeks and a Friday–Saturday weekend', async () => {
    const week = outputOf(await resolveRange('this week', 'Asia/Jerusalem', wednesday, 'IL'));
    expect(week).toMatchObject({ startDate: '2026-01-25', endDate: '2026-01-31' });
    const weekend = outputOf(await resolveRange('this weekend', 'Asia/Jerusalem', wednesday, 'IL'));
    expect(weekend).toMatchObject({ startDate: '2026-01-30', endDate: '2026-01-31' });
  });
});

describe('resolve_time_range parts of the day', () => {
  it.each([
    ['tonight', '2026-01-28T18:00:00-08:00', '2026-01-28T23:59:59-08:00'],
    ['this morning', '2026-01-28T06:00:00-08:00', '2026-01-28T11:59:59-08:00'],
    ['this afternoon', '2026-01-28T12:00:00-08:00', '2026-01-28T17:59:59-08:00'],
    ['tomorrow evening', '2026-01-29T18:00:00-08:00', '2026-01-29T23:59:59-08:00'],
    ['friday morning', '2026-01-30T06:00:00-08:00', '2026-01-30T11:59:59-08:00'],
  ])('"%s" is %s … %s', async (expression, start, end) => {
    const output = outputOf(await resolveRange(expression, losAngeles, wednesday));
    expect(output).toMatchObject({ start, end, days: 1 });
  });

  it('starts "rest of the week" now', async () => {
    const output = outputOf(await resolveRange('rest of the week', losAngeles, wednesday));
    expect(output).toMatchObject({ start: '2026-01-28T10:30:00-08:00', end: '2026-02-01T23:59:59-08:00', days: 5 });
  });

  it('keeps exact times in an explicit range', async () => {
    const output = outputOf(await resolveRange('friday 3pm to 5pm', losAngeles, wednesday));
    expect(output).toMatchObject({ start: '2026-01-30T15:00:00-08:00', end: '2026-01-30T17:00:00-08:00', days: 1 });
  });
});

describe('resolve_time_range across DST changes', () => {
  it('New York spring forward: "this week" starts at midnight EST and ends at 23:59:59 EDT', async () => {
    const output = outputOf(await resolveRange('this week', newYork, '2026-03-04T12:00:00'));
    expect(output).toMatchObject({
      start: '2026-03-02T00:00:00-05:00',
      end: '2026-03-08T23:59:59-04:00',
      startDate: '2026-03-02',
      endDate: '2026-03-08',
      days: 7,
    });
  });

  it('New York fall back: "this week" starts at midnight EDT and ends at 23:59:59 EST', async () => {
    const output = outputOf(await resolveRange('this week', newYork, '2026-10-28T12:00:00'));
    expect(output).toMatchObject({ start: '2026-10-26T00:00:00-04:00', end: '2026-11-01T23:59:59-05:00', days: 7 });
  });

  it('London: the week containing 2026-03-29 runs from GMT midnight to BST 23:59:59', async () => {
    const output = outputOf(await resolveRange('this week', 'Europe/London', '2026-03-25T12:00:00'));
    expect(output).toMatchObject({ start: '2026-03-23T00:00:00+00:00', end: '2026-03-29T23:59:59+01:00', days: 7 });
  });

  it('a DST day is still one day', async () => {
    const output = outputOf(await resolveRange('tomorrow', newYork, '2026-03-07T20:00:00'));
    expect(output).toMatchObject({ start: '2026-03-08T00:00:00-05:00', end: '2026-03-08T23:59:59-04:00', days: 1 });
  });
});

describe('resolve_time_range across the year boundary', () => {
  const december30 = '2026-12-30T12:00:00';

  it.each([
    ['next week', '2027-01-04', '2027-01-10'],
    ['this week', '2026-12-28', '2027-01-03'],
    ['january', '2027-01-01', '2027-01-31'],
    ['next month', '2027-01-01', '2027-01-31'],
    ['next year', '2027-01-01', '2027-12-31'],
    ['this weekend', '2027-01-02', '2027-01-03'],
    ['the next 5 days', '2026-12-30', '2027-01-03'],
  ])('"%s" on 2026-12-30 is %s … %s', async (expression, startDate, endDate) => {
    const output = outputOf(await resolveRange(expression, newYork, december30));
    expect(output).toMatchObject({ startDate, endDate });
  });
});

describe('resolve_time_range time zones', () => {
  it('uses the local day in Los Angeles at 23:30 (07:30Z the next day)', async () => {
    const output = outputOf(await resolveRange('today', losAngeles, '2026-01-28T23:30:00'));
    expect(output).toMatchObject({ start: '2026-01-28T00:00:00-08:00', end: '2026-01-28T23:59:59-08:00' });
  });

  it('uses the local day in Jerusalem at 00:30 (22:30Z the previous day)', async () => {
    const output = outputOf(await resolveRange('tomorrow', 'Asia/Jerusalem', '2026-01-29T00:30:00'));
    expect(output).toMatchObject({ start: '2026-01-30T00:00:00+02:00', end: '2026-01-30T23:59:59+02:00' });
  });
});

describe('resolve_time_range Hebrew', () => {
  it.each([
    // A Hebrew speaker's week runs Sunday–Saturday, and the weekend is Friday–Saturday (src/time/README.md).
    ['השבוע', '2026-01-25', '2026-01-31'],
    ['בשבוע הבא', '2026-02-01', '2026-02-07'],
    ['סוף השבוע', '2026-01-30', '2026-01-31'],
    ['החודש הבא', '2026-02-01', '2026-02-28'],
    ['היום', '2026-01-28', '2026-01-28'],
    ['ממחר עד יום שישי', '2026-01-29', '2026-01-30'],
  ])('"%s" is %s … %s', async (expression, startDate, endDate) => {
    const output = outputOf(await resolveRange(expression, 'Asia/Jerusalem', wednesday));
    expect(output).toMatchObject({ startDate, endDate });
  });

  it('"הערב" is this evening', async () => {
    const output = outputOf(await resolveRange('הערב', 'Asia/Jerusalem', wednesday));
    expect(output).toMatchObject({ start: '2026-01-28T18:00:00+02:00', end: '2026-01-28T23:59:59+02:00' });
  });
});

describe('resolve_time_range failures', () => {
  it.each(['sometime', 'blah', 'whenever works', 'next week with mom'])('"%s" is an error result that says to ask or use words', async (expression) => {
    const result = await resolveRange(expression, losAngeles, wednesday);
    expect(result.isError).toBe(true);
    if (result.isError) expect(result.error).toMatch(/Ask the user, or describe the time in words in the plan; never guess\.$/);
  });

  it('rejects a range that ends before it starts', async () => {
    const result = await resolveRange('2026-02-07 to 2026-02-01', losAngeles, wednesday);
    expect(result.isError).toBe(true);
    if (result.isError) expect(result.error).toContain('ends before it starts');
  });

  it('returns an error, not a throw, for an invalid time zone', async () => {
    const result = await resolveRange('this week', 'Not/A_Zone', '2026-01-28T18:30:00Z');
    expect(result.isError).toBe(true);
    if (result.isError) expect(result.error).toContain('Not/A_Zone');
  });
});
