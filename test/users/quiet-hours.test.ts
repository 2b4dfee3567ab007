import { describe, expect, it } from 'vitest';
import { parseQuietWindow, QuietHours } from '../../src/users/quiet-hours.js';

describe('quiet hours', () => {
  const quiet = new QuietHours('22:00-07:00');
  const newYork = { timezone: 'America/New_York' };

  it('holds from the evening start to the morning end, in the user’s own zone', () => {
    // 23:30 in New York: quiet until 07:00 the next morning there.
    expect(quiet.quietEndsAt(newYork, new Date('2026-11-24T04:30:00Z'))).toEqual(new Date('2026-11-24T12:00:00Z'));
    // 06:59: quiet until 07:00 the same morning.
    expect(quiet.quietEndsAt(newYork, new Date('2026-11-24T11:59:00Z'))).toEqual(new Date('2026-11-24T12:00:00Z'));
    // 07:00 and 21:59: not quiet.
    expect(quiet.isQuiet(newYork, new Date('2026-11-24T12:00:00Z'))).toBe(false);
    expect(quiet.isQuiet(newYork, new Date('2026-11-25T02:59:00Z'))).toBe(false);
    // The same instant is daytime in Tokyo.
    expect(quiet.isQuiet({ timezone: 'Asia/Tokyo' }, new Date('2026-11-24T04:30:00Z'))).toBe(false);
  });

  it('ends at 07:00 local across a DST change', () => {
    // 23:00 on Sat 7 Mar 2026 in New York; clocks go forward that night: 07:00 EDT is 11:00Z.
    expect(quiet.quietEndsAt(newYork, new Date('2026-03-08T04:00:00Z'))).toEqual(new Date('2026-03-08T11:00:00Z'));
  });

  it('uses the user’s own window, and off means never quiet', () => {
    expect(quiet.isQuiet({ ...newYork, quietHours: '21:00-07:00' }, new Date('2026-11-24T02:30:00Z'))).toBe(true);
    expect(quiet.isQuiet({ ...newYork, quietHours: 'off' }, new Date('2026-11-24T04:30:00Z'))).toBe(false);
    // A daytime window (no midnight in it).
    expect(quiet.quietEndsAt({ ...newYork, quietHours: '13:00-14:30' }, new Date('2026-11-24T18:10:00Z'))).toEqual(new Date('2026-11-24T19:30:00Z'));
    expect(new QuietHours('off').isQuiet(newYork, new Date('2026-11-24T04:30:00Z'))).toBe(false);
  });

  it('reads windows strictly', () => {
    expect(parseQuietWindow('22:00-07:00')).toEqual({ start: 1320, end: 420 });
    expect(parseQuietWindow('off')).toBe('off');
    expect(parseQuietWindow('10pm-7am')).toBeUndefined();
    expect(parseQuietWindow('25:00-07:00')).toBeUndefined();
  });
});
