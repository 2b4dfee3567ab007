import { describe, it, expect } from 'vitest';
import {
  detectKeyword,
  HELP_KEYWORDS,
  OPT_IN_KEYWORDS,
  OPT_OUT_KEYWORDS,
  OPTED_OUT_ONLY_OPT_IN_KEYWORDS,
  WHATSAPP_OPT_OUT_KEYWORDS,
} from '../../src/channels/keywords.js';

const subscribed = { optedOut: false };
const optedOut = { optedOut: true };

describe('keyword lists', () => {
  it('lists Twilio’s opt-out words for SMS (and Hebrew הסר)', () => {
    expect([...OPT_OUT_KEYWORDS].sort()).toEqual(
      ['CANCEL', 'END', 'OPT OUT', 'OPTOUT', 'QUIT', 'REVOKE', 'STOP', 'STOP ALL', 'STOPALL', 'UNSUBSCRIBE', 'הסר'].sort(),
    );
  });

  it('lists only the unambiguous opt-out words for WhatsApp', () => {
    expect([...WHATSAPP_OPT_OUT_KEYWORDS].sort()).toEqual(['STOP', 'UNSUBSCRIBE', 'הסר'].sort());
  });

  it('lists the opt-in and help words', () => {
    expect(OPT_IN_KEYWORDS).toEqual(['START', 'UNSTOP']);
    expect(OPTED_OUT_ONLY_OPT_IN_KEYWORDS).toEqual(['YES']);
    expect(HELP_KEYWORDS).toEqual(['HELP', 'INFO']);
  });
});

describe('detectKeyword', () => {
  it.each(OPT_OUT_KEYWORDS)('treats %s as stop, whether or not already opted out', (word) => {
    expect(detectKeyword(word, subscribed)).toBe('stop');
    expect(detectKeyword(word, optedOut)).toBe('stop');
    expect(detectKeyword(word.toLowerCase(), subscribed)).toBe('stop');
  });

  it.each(OPT_IN_KEYWORDS)('treats %s as start, whether or not opted out', (word) => {
    expect(detectKeyword(word, subscribed)).toBe('start');
    expect(detectKeyword(word, optedOut)).toBe('start');
    expect(detectKeyword(word.toLowerCase(), optedOut)).toBe('start');
  });

  it.each(HELP_KEYWORDS)('treats %s as help', (word) => {
    expect(detectKeyword(word, subscribed)).toBe('help');
    expect(detectKeyword(word, optedOut)).toBe('help');
    expect(detectKeyword(word.toLowerCase(), subscribed)).toBe('help');
  });

  it('treats yes as start only while opted out', () => {
    expect(detectKeyword('YES', optedOut)).toBe('start');
    expect(detectKeyword('yes', optedOut)).toBe('start');
    expect(detectKeyword(' Yes! ', optedOut)).toBe('start');
    expect(detectKeyword('yes', subscribed)).toBeUndefined();
    expect(detectKeyword('YES', subscribed)).toBeUndefined();
  });

  it.each([
    ['Stop', 'stop'],
    ['sToP', 'stop'],
    [' stop. ', 'stop'],
    ['STOP!', 'stop'],
    ['stop!!!', 'stop'],
    ['stop...', 'stop'],
    ['stop .', 'stop'],
    ['\tstop\n', 'stop'],
    ['stop   all', 'stop'],
    ['Stop\nAll', 'stop'],
    ['opt  out', 'stop'],
    ['Opt Out.', 'stop'],
    ['Unsubscribe!', 'stop'],
    ['Help.', 'help'],
    ['  info  ', 'help'],
    ['Start!', 'start'],
  ] as const)('normalises %j to %s', (body, command) => {
    expect(detectKeyword(body, subscribed)).toBe(command);
  });

  it.each([
    'stop the reminder',
    'please stop',
    'stopping',
    'stop?',
    'STOP NOW',
    'stop, please',
    'end of the day',
    'cancel my 3pm meeting',
    'quit smoking reminder',
    'help me with my calendar',
    'info about tomorrow',
    'start a timer',
    'yesterday',
    'yes please',
    'opt-out',
    'optout now',
    '',
    '   ',
    '.',
    '!',
  ])('does not treat %j as a keyword', (body) => {
    expect(detectKeyword(body, subscribed)).toBeUndefined();
    expect(detectKeyword(body, optedOut)).toBeUndefined();
  });

  it('on WhatsApp, CANCEL, END and QUIT are ordinary words; STOP, UNSUBSCRIBE and הסר still opt out', () => {
    const whatsapp = { optedOut: false, channel: 'whatsapp' as const };
    for (const word of ['cancel', 'CANCEL', 'End.', 'quit', 'STOPALL', 'opt out', 'revoke']) expect(detectKeyword(word, whatsapp)).toBeUndefined();
    for (const word of ['stop', 'Unsubscribe!', 'הסר']) expect(detectKeyword(word, whatsapp)).toBe('stop');
    expect(detectKeyword('START', whatsapp)).toBe('start');
    expect(detectKeyword('help', whatsapp)).toBe('help');
    // Without a channel, the strictest rules (SMS's carrier words) apply.
    expect(detectKeyword('cancel', subscribed)).toBe('stop');
    expect(detectKeyword('cancel', { optedOut: false, channel: 'sms' })).toBe('stop');
  });

  it('does not match Hebrew text, including Hebrew for stop and help', () => {
    for (const body of ['עצור', 'הפסק', 'עזרה', 'כן', 'תפסיק לשלוח לי הודעות']) {
      expect(detectKeyword(body, subscribed)).toBeUndefined();
      expect(detectKeyword(body, optedOut)).toBeUndefined();
    }
  });
});
