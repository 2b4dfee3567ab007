import { describe, expect, it } from 'vitest';
import { capSmsSegments, isGsm7, plainSmsPunctuation, smsSegments } from '../../src/channels/sms-encoding.js';
import { outboundBodies } from '../../src/outbox/outbound-draft.js';

describe('SMS encoding', () => {
  it('counts segments as carriers do: 160/153 in GSM-7 (extension characters count twice), 70/67 in UCS-2', () => {
    expect(smsSegments('a'.repeat(160))).toBe(1);
    expect(smsSegments('a'.repeat(161))).toBe(2);
    expect(smsSegments('€'.repeat(80))).toBe(1);
    expect(smsSegments('€'.repeat(81))).toBe(2);
    expect(smsSegments('a'.repeat(69) + '’')).toBe(1);
    expect(smsSegments('a'.repeat(150) + '’')).toBe(3);
    expect(smsSegments('')).toBe(0);
  });

  it('makes typographic punctuation plain', () => {
    const text = 'It’s “done” — see ‘below’… • ok';
    expect(plainSmsPunctuation(text)).toBe('It\'s "done" - see \'below\'... - ok');
    expect(isGsm7(plainSmsPunctuation(text))).toBe(true);
  });

  it('sends SMS with plain punctuation only when that makes it GSM-7, and WhatsApp unchanged', () => {
    const oneQuote = `${'a'.repeat(140)} it’s fine`;
    expect(smsSegments(oneQuote)).toBe(3);
    const [sms] = outboundBodies({ text: oneQuote, channel: 'sms' });
    expect(sms).toBe(`${'a'.repeat(140)} it's fine`);
    expect(smsSegments(sms!)).toBe(1);
    // Unicode anyway (Hebrew, ✓): the dash is kept, "…" is not lengthened.
    expect(outboundBodies({ text: 'שלום — מה נשמע…', channel: 'sms' })).toEqual(['שלום — מה נשמע…']);
    expect(outboundBodies({ text: 'It’s — done', channel: 'whatsapp' })).toEqual(['It’s — done']);
  });

  it('caps a text at a number of segments, at a word, ending with "..."', () => {
    const text = Array.from({ length: 200 }, (_, index) => `word${index}`).join(' ');
    const capped = capSmsSegments(text, 2);
    expect(smsSegments(capped)).toBeLessThanOrEqual(2);
    expect(capped.endsWith('...')).toBe(true);
    expect(text.startsWith(capped.slice(0, -3))).toBe(true);
    expect(capSmsSegments('short', 1)).toBe('short');
    const hebrew = 'שלום '.repeat(100);
    expect(smsSegments(capSmsSegments(hebrew, 2))).toBeLessThanOrEqual(2);
  });
});
