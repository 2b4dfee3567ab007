import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { mentionsTime } from '../../src/time/mentions-time.js';
import { resolvePhrase, resolveRangePhrase } from '../../src/time/resolve.js';
import type { TimeResolution } from '../../src/time/resolution.js';

/** Wednesday 2026-11-25, 10:30 in New York, unless a test says otherwise. */
const newYork = 'America/New_York';
const wednesday = DateTime.fromISO('2026-11-25T10:30:00', { zone: newYork });

function read(phrase: string, options: { now?: DateTime; language?: string; country?: string } = {}): TimeResolution {
  return resolvePhrase(phrase, { now: options.now ?? wednesday, language: options.language ?? 'en', country: options.country ?? 'US' });
}

/** "2026-11-25 15:15" for a moment, "2026-11-25" for a day, the kind otherwise. */
function shown(resolution: TimeResolution): string {
  switch (resolution.kind) {
    case 'moment':
      return resolution.moment.toFormat('yyyy-MM-dd HH:mm');
    case 'day':
      return resolution.day.toFormat('yyyy-MM-dd') + (resolution.part ? ` ${resolution.part}` : '');
    case 'range':
      return `${resolution.start.toFormat('yyyy-MM-dd HH:mm')}/${resolution.end.toFormat('yyyy-MM-dd HH:mm')}`;
    default:
      return resolution.kind;
  }
}

describe('what issue 30 found confidently wrong, in English', () => {
  it.each([
    ['a quarter past 3pm', '2026-11-25 15:15'],
    ['15 minutes past 3pm', '2026-11-25 15:15'],
    ['20 minutes to 2pm tomorrow', '2026-11-26 13:40'],
    ['at 8 in the evening', '2026-11-25 20:00'],
    ["3 o'clock in the afternoon", '2026-11-25 15:00'],
    ['in 1/2 hour', '2026-11-25 11:00'],
    ['15h', '2026-11-25 15:00'],
    ['first tuesday of october', '2027-10-05'],
    ['friday after next', '2026-12-11'],
    ['20th of next month', '2026-12-20'],
    ['3 fridays from now', '2026-12-11'],
    ['in a fortnight', '2026-12-09'],
    ['by EOD', '2026-11-25 23:59'],
    ['christmas', '2026-12-25'],
    ['thanksgiving', '2026-11-26'],
    ['in an hour and a half', '2026-11-25 12:00'],
    ['last friday of the month', '2026-11-27'],
    ['the day after tomorrow at 8pm', '2026-11-27 20:00'],
  ])('"%s" is %s', (phrase, expected) => {
    expect(shown(read(phrase))).toBe(expected);
  });
});

describe('every language Herald speaks', () => {
  it.each([
    ['es', 'mañana a las 5 de la tarde', '2026-11-26 17:00'],
    ['es', 'el viernes que viene', '2026-12-04'],
    ['es', 'dentro de media hora', '2026-11-25 11:00'],
    ['fr', 'dans une demi-heure', '2026-11-25 11:00'],
    ['fr', 'demain à 15h30', '2026-11-26 15:30'],
    ['fr', 'vendredi prochain', '2026-12-04'],
    ['de', 'morgen um 15:30 Uhr', '2026-11-26 15:30'],
    ['de', 'in zwei Stunden', '2026-11-25 12:30'],
    ['de', 'übermorgen', '2026-11-27'],
    ['pt', 'amanhã às 5 da tarde', '2026-11-26 17:00'],
    ['pt', 'daqui a meia hora', '2026-11-25 11:00'],
    ['ru', 'завтра в 5 вечера', '2026-11-26 17:00'],
    ['ru', 'через полчаса', '2026-11-25 11:00'],
    ['ar', 'غدا الساعة 5 مساء', '2026-11-26 17:00'],
    ['ar', 'بعد ساعتين', '2026-11-25 12:30'],
    ['he', 'מחר ב-5 בערב', '2026-11-26 17:00'],
    ['he', 'בעוד רבע שעה', '2026-11-25 10:45'],
    ['he', 'שישי הבא', '2026-12-04'],
  ])('%s: "%s" is %s', (language, phrase, expected) => {
    expect(shown(read(phrase, { language }))).toBe(expected);
  });

  it('reads a phrase mixing two languages: the user\'s, with English words in it', () => {
    expect(shown(read('mañana at 5pm', { language: 'es' }))).toBe('2026-11-26 17:00');
    expect(shown(read('demain at noon', { language: 'fr' }))).toBe('2026-11-26 12:00');
  });

  it('reads a phrase in another of Herald\'s languages than the user\'s, by its script or its words', () => {
    expect(shown(read('מחר', { language: 'en' }))).toBe('2026-11-26');
    expect(shown(read('завтра', { language: 'es' }))).toBe('2026-11-26');
  });
});

describe('never confidently wrong', () => {
  it('refuses a phrase with words it did not read, naming them', () => {
    const resolution = read('tomorrow at 9 to pay rent');
    expect(resolution).toMatchObject({ kind: 'error', reason: 'unread' });
    if (resolution.kind === 'error') expect(resolution.message).toContain('pay rent');
  });

  it('refuses 200 characters of noise quickly', () => {
    const noise = 'lorem ipsum dolor sit amet qwerty zxcv '.repeat(6).slice(0, 200);
    expect(read(noise)).toMatchObject({ kind: 'error', reason: 'unread' });
  });

  it('refuses dates and times that do not exist', () => {
    expect(read('31 February')).toMatchObject({ kind: 'error', reason: 'invalid' });
    expect(read('25:00')).toMatchObject({ kind: 'error', reason: 'invalid' });
    expect(read('the 45th')).toMatchObject({ kind: 'error' });
    expect(read('in 100000 years')).toMatchObject({ kind: 'error', reason: 'invalid' });
  });

  it('names both readings when a numeric date could be either, for an English speaker of unknown country', () => {
    const resolution = resolvePhrase('3/12', { now: wednesday, language: 'en', country: undefined });
    expect(resolution.kind).toBe('ambiguous');
    if (resolution.kind === 'ambiguous') expect(resolution.readings.map(shown).sort()).toEqual(['2026-12-03', '2027-03-12']);
    expect(shown(read('3/12', { country: 'US' }))).toBe('2027-03-12');
    expect(shown(read('3/12', { country: 'GB' }))).toBe('2026-12-03');
  });

  it('names both readings when a weekday and a date disagree', () => {
    expect(read('friday december 3 2026').kind).toBe('ambiguous');
  });

  it('reads "yesterday" as a day in the past, which a reminder refuses', () => {
    const resolution = read('yesterday at 5pm');
    expect(shown(resolution)).toBe('2026-11-24 17:00');
  });

  it('never throws and always answers, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.constantFrom('en', 'he', 'es', 'fr', 'de', 'pt', 'ru', 'ar'), (text, language) => {
        const resolution = read(text, { language });
        expect(['moment', 'day', 'range', 'ambiguous', 'error']).toContain(resolution.kind);
        expect(['moment', 'day', 'range', 'ambiguous', 'error']).toContain(resolveRangePhrase(text, { now: wednesday, language }).kind);
      }),
      { numRuns: 300 },
    );
  });
});

describe('daylight saving time', () => {
  it('moves a time the clocks skip forward by the gap, and says so (New York, 2027-03-14)', () => {
    const resolution = read('2:30 am', { now: DateTime.fromISO('2027-03-13T20:00:00', { zone: newYork }) });
    expect(resolution.kind).toBe('moment');
    if (resolution.kind !== 'moment') return;
    expect(resolution.moment.toISO()).toBe('2027-03-14T03:30:00.000-04:00');
    expect(resolution.notes.join(' ')).toContain('does not exist');
  });

  it('takes the first of a time that happens twice, and names the second (New York, 2026-11-01)', () => {
    const resolution = read('1:30 am', { now: DateTime.fromISO('2026-10-31T20:00:00', { zone: newYork }) });
    expect(resolution.kind).toBe('moment');
    if (resolution.kind !== 'moment') return;
    expect(resolution.moment.toISO()).toBe('2026-11-01T01:30:00.000-04:00');
    expect(resolution.notes.join(' ')).toContain('happens twice');
    expect(resolution.notes.join(' ')).toContain('-05:00');
  });
});

describe('mentionsTime (does a message need a time zone?)', () => {
  it.each([
    ['remind me at 5pm to leave', 'en', true],
    ['remind me in 20 minutes', 'en', true],
    ['call mom tomorrow', 'en', true],
    ['recuérdame mañana', 'es', true],
    ['תזכיר לי ביום שישי', 'he', true],
    ['what is the capital of France?', 'en', false],
    ['May I ask you something?', 'en', false],
    ['add milk to my list', 'en', false],
  ])('"%s" (%s): %s', (text, language, expected) => {
    expect(mentionsTime(text, language)).toBe(expected);
  });
});
