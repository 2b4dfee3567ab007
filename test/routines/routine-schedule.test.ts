import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { firstOccurrence, nextOccurrence } from '../../src/reminders/reminder-schedule.js';
import { routineRule, tooFrequent } from '../../src/routines/routine-schedule.js';
import { isNothingToSend, NOTHING_TO_SEND, routineRequest } from '../../src/routines/routine-request.js';

const ZONE = 'America/New_York';

describe('routine schedules', () => {
  it('daily at 7 stays at 7:00 local across the DST change (the reminders\' wall-clock rules)', () => {
    const rule = routineRule({ frequency: 'daily' });
    expect(rule).toEqual({ ok: true, rule: 'FREQ=DAILY' });
    if (!rule.ok) return;
    // 2026-11-01: the clocks go back in New York.
    let at = firstOccurrence(rule.rule, '2026-10-30T07:00', ZONE)!;
    const seen: string[] = [];
    for (let day = 0; day < 4; day += 1) {
      seen.push(DateTime.fromJSDate(at, { zone: ZONE }).toFormat('yyyy-MM-dd HH:mm ZZ'));
      at = nextOccurrence(rule.rule, '2026-10-30T07:00', ZONE, at)!;
    }
    expect(seen).toEqual(['2026-10-30 07:00 -04:00', '2026-10-31 07:00 -04:00', '2026-11-01 07:00 -05:00', '2026-11-02 07:00 -05:00']);
  });

  it('weekdays, weekly on days and monthly on a day are the reminders\' rules', () => {
    expect(routineRule({ frequency: 'weekly', weekdays: ['MO', 'TU', 'WE', 'TH', 'FR'] })).toEqual({ ok: true, rule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR' });
    expect(routineRule({ frequency: 'weekly', weekdays: ['SU'] })).toEqual({ ok: true, rule: 'FREQ=WEEKLY;BYDAY=SU' });
    expect(routineRule({ frequency: 'monthly', monthDays: [1] })).toEqual({ ok: true, rule: 'FREQ=MONTHLY;BYMONTHDAY=1' });
  });

  it('refuses anything more often than hourly, and allows hourly', () => {
    const everyFive = routineRule({ frequency: 'minutely', interval: 5 });
    expect(everyFive.ok).toBe(false);
    if (!everyFive.ok) expect(everyFive.error).toContain('at most once an hour');
    expect(routineRule({ frequency: 'minutely', interval: 59 }).ok).toBe(false);
    expect(routineRule({ frequency: 'minutely', interval: 60 })).toEqual({ ok: true, rule: 'FREQ=MINUTELY;INTERVAL=60' });
    expect(routineRule({ frequency: 'hourly' })).toEqual({ ok: true, rule: 'FREQ=HOURLY' });
    const base = Date.UTC(2026, 0, 1);
    expect(tooFrequent([new Date(base), new Date(base + 30 * 60_000)])).toBe(true);
    expect(tooFrequent([new Date(base), new Date(base + 60 * 60_000)])).toBe(false);
  });
});

describe('the run\'s request', () => {
  it('carries the instruction, the condition and the one answer that sends nothing', () => {
    const text = routineRequest({ name: 'morning brief', instruction: 'send me my day', condition: 'only if I have meetings' }, 'Mon, Mar 2, 7:00 AM');
    expect(text).toContain('Routine "morning brief", due Mon, Mar 2, 7:00 AM');
    expect(text).toContain('\nsend me my day\n');
    expect(text).toContain(`[Condition: only if I have meetings. Check it first: if it is not met, reply exactly ${NOTHING_TO_SEND}`);
    expect(routineRequest({ name: 'resumen', instruction: 'mi día', condition: null }, 'lun 2 mar 7:00', 'es')).toContain('write the one message to send them, in Spanish.]');
  });

  it('reads NOTHING_TO_SEND (bare, quoted or with a full stop) and an empty reply as nothing to send', () => {
    for (const reply of [NOTHING_TO_SEND, ` ${NOTHING_TO_SEND}. `, `"${NOTHING_TO_SEND}"`, '`NOTHING_TO_SEND`', '']) expect(isNothingToSend(reply), reply).toBe(true);
    expect(isNothingToSend('You have NOTHING_TO_SEND today? No: two meetings.')).toBe(false);
  });
});
