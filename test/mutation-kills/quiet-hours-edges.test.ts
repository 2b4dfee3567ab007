import { describe, expect, it } from 'vitest';
import { clockTime, formatQuietWindow, parseQuietWindow, QuietHours } from '../../src/users/quiet-hours.js';

/**
 * Quiet hours at their edges (issue 32 item 8): the first quiet minute is quiet, the minute the
 * window ends is not, seconds do not move the end, and a window is read strictly (one digit
 * past a valid time is no window at all).
 */
const zone = 'America/New_York';
/** 2026-11-24 in New York (UTC-5, no DST change near): the instant of a local wall-clock time. */
const local = (time: string) => new Date(`2026-11-24T${time}-05:00`);

describe('quiet hours: boundary minutes', () => {
  const overnight = new QuietHours('22:00-07:00');
  const user = { timezone: zone };

  it('over midnight: 21:59 is not quiet, 22:00 is (until 07:00 tomorrow), midnight and 06:59 are (until 07:00 today), 07:00 is not', () => {
    expect(overnight.quietEndsAt(user, local('21:59:59.999'))).toBeUndefined();
    expect(overnight.quietEndsAt(user, local('22:00:00'))).toEqual(new Date('2026-11-25T07:00:00-05:00'));
    expect(overnight.quietEndsAt(user, local('00:00:00'))).toEqual(local('07:00:00'));
    expect(overnight.quietEndsAt(user, local('06:59:59.999'))).toEqual(local('07:00:00'));
    expect(overnight.quietEndsAt(user, local('07:00:00'))).toBeUndefined();
    expect(overnight.quietEndsAt(user, local('12:00:00'))).toBeUndefined();
  });

  it('ends on the minute: seconds and milliseconds of the instant are not carried to the end', () => {
    expect(overnight.quietEndsAt(user, local('23:30:45.123'))).toEqual(new Date('2026-11-25T07:00:00.000-05:00'));
    expect(overnight.quietEndsAt(user, local('03:17:09.500'))).toEqual(local('07:00:00.000'));
  });

  it('a window inside one day: from its first minute to the minute before its end', () => {
    const lunch = { timezone: zone, quietHours: '13:05-14:30' };
    expect(overnight.quietEndsAt(lunch, local('13:04:59'))).toBeUndefined();
    expect(overnight.quietEndsAt(lunch, local('13:05:00'))).toEqual(local('14:30:00'));
    expect(overnight.quietEndsAt(lunch, local('14:29:59'))).toEqual(local('14:30:00'));
    expect(overnight.quietEndsAt(lunch, local('14:30:00'))).toBeUndefined();
    expect(overnight.isQuiet(lunch, local('23:00:00'))).toBe(false);
  });

  it('ends at the window end’s own minutes, not on the hour', () => {
    const user = { timezone: zone, quietHours: '23:45-06:15' };
    expect(overnight.quietEndsAt(user, local('23:44:00'))).toBeUndefined();
    expect(overnight.quietEndsAt(user, local('23:45:00'))).toEqual(new Date('2026-11-25T06:15:00-05:00'));
    expect(overnight.quietEndsAt(user, local('06:14:00'))).toEqual(local('06:15:00'));
    expect(overnight.quietEndsAt(user, local('06:15:00'))).toBeUndefined();
  });

  it('a stored window that no longer reads falls back to the deployment’s, and an unreadable deployment default is off', () => {
    expect(overnight.windowFor({ timezone: zone, quietHours: '10pm-7am' })).toEqual({ start: 1320, end: 420 });
    expect(overnight.windowFor({ timezone: zone, quietHours: '' })).toEqual({ start: 1320, end: 420 });
    expect(overnight.windowFor({ timezone: zone, quietHours: null })).toEqual({ start: 1320, end: 420 });
    expect(new QuietHours('22:00 to 07:00').windowFor({ timezone: zone })).toBe('off');
    expect(new QuietHours('22:00 to 07:00').isQuiet({ timezone: zone }, local('23:00:00'))).toBe(false);
  });
});

describe('quiet hours: windows are read strictly', () => {
  it.each([
    ['7:05-9:30', { start: 425, end: 570 }],
    ['07:05-09:30', { start: 425, end: 570 }],
    ['19:00-20:00', { start: 1140, end: 1200 }],
    ['23:59-00:00', { start: 1439, end: 0 }],
    ['00:00-23:59', { start: 0, end: 1439 }],
    ['  22:00-07:00  ', { start: 1320, end: 420 }],
    ['OFF', 'off'],
    [' Off ', 'off'],
    ['22:00-22:00', 'off'],
  ] as const)('%j reads as %j', (text, expected) => {
    expect(parseQuietWindow(text)).toEqual(expected);
  });

  it.each(['24:00-07:00', '22:00-24:00', '22:60-07:00', '22:00-07:60', '2:0-07:00', '22:00-7:0', '122:00-07:00', '22:00-07:000', 'x22:00-07:00', '22:00-07:00x', '22:00 07:00', '30:00-07:00', 'offf', ''])('%j is no window', (text) => {
    expect(parseQuietWindow(text)).toBeUndefined();
  });

  it('formats minutes as zero-padded HH:MM', () => {
    expect(clockTime(0)).toBe('00:00');
    expect(clockTime(65)).toBe('01:05');
    expect(clockTime(1439)).toBe('23:59');
    expect(formatQuietWindow({ start: 1320, end: 425 })).toBe('22:00-07:05');
  });
});
