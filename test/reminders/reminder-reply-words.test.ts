import { describe, expect, it } from 'vitest';
import { readReminderReply } from '../../src/reminders/reminder-reply-words.js';

const now = new Date('2030-03-04T14:00:00Z'); // 09:00 in New York
const ZONE = 'America/New_York';
const read = (text: string) => readReminderReply(text, now, ZONE, 10);
const inMinutes = (minutes: number) => ({ kind: 'snooze', at: new Date(now.getTime() + minutes * 60_000) });

describe('readReminderReply', () => {
  it.each([
    ['snooze', 10], ['Snooze!', 10], ['snooze 5', 5], ['snooze 20 min', 20], ['snooze 20min', 20], ['snooze 45 minutes', 45], ['snooze for 10 minutes', 10],
    ['snooze 1 hour', 60], ['snooze 2 hours', 120], ['later', 10], ['Later.', 10], ['in 15 minutes', 15], ['in an hour', 60], ['remind me in 10 minutes', 10], ['snooze half an hour', 30], ['in a minute', 1], ['snooze one hour', 60],
    ['נודניק', 10], ['נודניק 5', 5], ['עוד 10 דקות', 10], ['עוד שעה', 60], ['בעוד 20 דקות', 20], ['más tarde', 10], ['plus tard', 10], ['später', 10],
  ])('"%s" snoozes %i minutes', (text, minutes) => {
    expect(read(text)).toEqual(inMinutes(minutes));
  });

  it('"snooze until 6" is the next 6 o\'clock; "until 8am" tomorrow when 8 has passed', () => {
    expect(read('snooze until 6')).toEqual({ kind: 'snooze', at: new Date('2030-03-04T23:00:00Z') });
    expect(read('until 8am')).toEqual({ kind: 'snooze', at: new Date('2030-03-05T13:00:00Z') });
    expect(read('snooze until 18:30')).toEqual({ kind: 'snooze', at: new Date('2030-03-04T23:30:00Z') });
  });

  it.each(['done', 'Done!', '✓', '✅', 'did it', 'בוצע', 'סיימתי', 'hecho', 'erledigt', 'готово'])('"%s" is done', (text) => {
    expect(read(text)).toEqual({ kind: 'done' });
  });

  it.each(['snooze 0', 'snooze 99999', 'snooze -5', 'snooze 8 days', 'snooze until 25'])('"%s" is a snooze Herald will not set', (text) => {
    expect(read(text)).toEqual({ kind: 'snooze_out_of_range' });
  });

  it.each(['move it to 6', 'what was that?', 'remind me again tomorrow', 'in 15', 'snooze the dentist', 'done with the report?', 'later today at 5'])('"%s" is for the planner', (text) => {
    expect(read(text)).toBeUndefined();
  });
});
