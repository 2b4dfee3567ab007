import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSilentLogger } from '../../../src/logging/logger.js';
import { getCurrentTimeTool } from '../../../src/orchestrator/utility-tools/get-current-time.js';
import {
  describeNow,
  formatTimeContextLine,
  utilityTools,
} from '../../../src/orchestrator/utility-tools/index.js';
import { ManualClock } from '../../../src/shared/clock.js';
import type { ToolContext, ToolResult } from '../../../src/tools/tool.js';

async function getCurrentTime(timezone: string, instant: string, input: unknown = {}): Promise<ToolResult> {
  const context: ToolContext = { userId: 'u1', timezone, clock: new ManualClock(instant), logger: createSilentLogger() };
  return getCurrentTimeTool.run(getCurrentTimeTool.inputSchema.parse(input), context);
}

describe('describeNow', () => {
  it('describes the moment in the user zone', () => {
    expect(describeNow(new Date('2026-01-28T18:30:00Z'), 'America/Los_Angeles')).toEqual({
      iso: '2026-01-28T10:30:00-08:00',
      date: '2026-01-28',
      time: '10:30',
      weekday: 'Wednesday',
      weekdayIndex: 3,
      timezone: 'America/Los_Angeles',
      utcOffset: '-08:00',
      humanReadable: 'Wednesday, January 28, 2026 at 10:30 AM',
    });
  });

  it('drops milliseconds and writes UTC as +00:00', () => {
    const context = describeNow(new Date('2026-01-04T00:05:09.999Z'), 'UTC');
    expect(context).toMatchObject({ iso: '2026-01-04T00:05:09+00:00', utcOffset: '+00:00', weekday: 'Sunday', weekdayIndex: 0 });
    expect(context.humanReadable).toBe('Sunday, January 4, 2026 at 12:05 AM');
  });

  it('throws on an invalid zone (callers check first)', () => {
    expect(() => describeNow(new Date(), 'Nowhere/Special')).toThrow(RangeError);
  });

  it('formats a single system-prompt line', () => {
    const line = formatTimeContextLine(describeNow(new Date('2026-01-28T18:30:00Z'), 'America/Los_Angeles'));
    expect(line).toBe(
      'Wednesday, January 28, 2026 at 10:30 AM (2026-01-28T10:30:00-08:00), weekday Wednesday (3), time zone America/Los_Angeles, UTC-08:00',
    );
  });

  it('describes the same second alike, the next second anew, and hands out copies', () => {
    const first = describeNow(new Date('2026-03-29T00:59:59.100Z'), 'Europe/London');
    first.time = 'changed by a caller';
    expect(describeNow(new Date('2026-03-29T00:59:59.900Z'), 'Europe/London')).toMatchObject({ iso: '2026-03-29T00:59:59+00:00', time: '00:59' });
    // The clocks go forward at 01:00 UTC: the next second is another hour and offset.
    expect(describeNow(new Date('2026-03-29T01:00:00.000Z'), 'Europe/London')).toMatchObject({ iso: '2026-03-29T02:00:00+01:00', time: '02:00', utcOffset: '+01:00' });
    expect(describeNow(new Date('2026-03-29T01:00:00.000Z'), 'UTC')).toMatchObject({ iso: '2026-03-29T01:00:00+00:00', timezone: 'UTC' });
  });
});

describe('get_current_time', () => {
  it('returns the offset and weekday for the user zone', async () => {
    const result = await getCurrentTime('Asia/Jerusalem', '2026-01-28T22:30:00Z');
    expect(result).toEqual({
      isError: false,
      output: {
        iso: '2026-01-29T00:30:00+02:00',
        date: '2026-01-29',
        time: '00:30',
        weekday: 'Thursday',
        weekdayIndex: 4,
        timezone: 'Asia/Jerusalem',
        utcOffset: '+02:00',
        humanReadable: 'Thursday, January 29, 2026 at 12:30 AM',
      },
    });
  });

  it('follows DST in the user zone', async () => {
    const winter = await getCurrentTime('America/New_York', '2026-03-08T06:59:00Z');
    const summer = await getCurrentTime('America/New_York', '2026-03-08T07:00:00Z');
    expect(winter).toMatchObject({ output: { time: '01:59', utcOffset: '-05:00' } });
    expect(summer).toMatchObject({ output: { time: '03:00', utcOffset: '-04:00' } });
  });

  it('handles a half-hour offset', async () => {
    const result = await getCurrentTime('Asia/Kolkata', '2026-01-28T18:30:00Z');
    expect(result).toMatchObject({ output: { iso: '2026-01-29T00:00:00+05:30', weekday: 'Thursday', utcOffset: '+05:30' } });
  });

  it('accepts an empty object and ignores stray arguments', async () => {
    expect((await getCurrentTime('UTC', '2026-01-28T18:30:00Z', {})).isError).toBe(false);
    expect((await getCurrentTime('UTC', '2026-01-28T18:30:00Z', { timezone: 'Asia/Tokyo' })).isError).toBe(false);
  });

  it('returns an error result for an invalid zone', async () => {
    const result = await getCurrentTime('Europe/Atlantis', '2026-01-28T18:30:00Z');
    expect(result.isError).toBe(true);
    if (result.isError) expect(result.error).toContain('Europe/Atlantis');
  });
});

describe('utilityTools', () => {
  it('lists the three read-only tools by name', () => {
    expect(utilityTools.map((tool) => tool.name)).toEqual(['resolve_date', 'resolve_time_range', 'get_current_time']);
    expect(utilityTools.every((tool) => !tool.mutates)).toBe(true);
  });

  it('have input schemas that convert to JSON Schema for the model', () => {
    for (const tool of utilityTools) {
      const schema = z.toJSONSchema(tool.inputSchema, { io: 'input' });
      expect(schema.type).toBe('object');
    }
  });
});
