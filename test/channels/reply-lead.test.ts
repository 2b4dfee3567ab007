import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitsOneMessage } from '../../src/channels/message-fit.js';
import { leadThatFits } from '../../src/channels/reply-lead.js';

const graphemes = (text: string) => [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((part) => part.segment);
const within = (limit: number) => (lead: string) => lead.length <= limit;

describe('leadThatFits', () => {
  it('ends at the last sentence that fits', () => {
    const text = 'One short sentence. Another one here! And a question? Then a long tail without end';
    expect(leadThatFits(text, within(60))).toBe('One short sentence. Another one here! And a question?');
    expect(leadThatFits(text, within(30))).toBe('One short sentence.');
  });

  it('prefers a sentence to a longer cut between words, and falls back to words when no sentence fits', () => {
    expect(leadThatFits('Short. Then many more words that go on and on', within(30))).toBe('Short.');
    expect(leadThatFits('No sentence end at all in this text here', within(20))).toBe('No sentence end at');
  });

  it('takes line and paragraph ends as boundaries, keeping list items whole', () => {
    const text = 'Your list:\n- milk\n- eggs and flour\n- the very long last item of the list';
    expect(leadThatFits(text, within(36))).toBe('Your list:\n- milk\n- eggs and flour');
  });

  it('never cuts a URL, and gives nothing when not even the first word fits', () => {
    const url = `https://example.com/${'x'.repeat(2_000)}`;
    expect(leadThatFits(url, within(1_600))).toBe('');
    expect(leadThatFits(`See ${url} for more.`, within(1_600))).toBe('See');
  });

  it('never cuts inside an emoji sequence or a combining sequence', () => {
    const family = '👨‍👩‍👧‍👦';
    const text = `Hi ${family}${family}. Cafe\u0301 time. ${'e\u0301'.repeat(5)} done.`;
    for (let limit = 1; limit <= text.length; limit += 1) {
      const lead = leadThatFits(text, within(limit));
      expect(text.startsWith(lead)).toBe(true);
      const shown = graphemes(lead);
      expect(graphemes(text).slice(0, shown.length)).toEqual(shown);
    }
  });

  it('a prefix that fits, ends at a word boundary and on a grapheme, for any text (property)', () => {
    const word = fc.oneof(
      fc.stringMatching(/^[a-zA-Z\u05D0-\u05EA]{1,12}$/),
      fc.constantFrom('👍🏽', '🇮🇱', 'e\u0301', 'https://x.example/a?b=c', '1.5', 'שָׁלוֹם'),
    );
    const separator = fc.constantFrom(' ', '. ', '! ', '\n', '\n\n', '? ', ', ');
    const text = fc.array(fc.tuple(word, separator), { minLength: 1, maxLength: 80 }).map((pairs) => pairs.map(([w, s]) => w + s).join('').trim());
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 400 }), (body, limit) => {
        const lead = leadThatFits(body, within(limit));
        if (lead === '') return;
        expect(lead.length).toBeLessThanOrEqual(limit);
        expect(body.startsWith(lead)).toBe(true);
        const next = body.slice(lead.length);
        expect(next === '' || /^\s/.test(next)).toBe(true);
        const shown = graphemes(lead);
        expect(graphemes(body).slice(0, shown.length)).toEqual(shown);
      }),
    );
  });
});

describe('fitsOneMessage', () => {
  it('measures SMS in segments after plain punctuation, and WhatsApp in characters after its markup', () => {
    expect(fitsOneMessage('a'.repeat(1_530), 'sms', 10)).toBe(true);
    expect(fitsOneMessage('a'.repeat(1_531), 'sms', 10)).toBe(false);
    // Curly quotes become plain, so the text stays GSM-7.
    expect(fitsOneMessage(`\u201c${'a'.repeat(1_528)}\u201d`, 'sms', 10)).toBe(true);
    expect(fitsOneMessage('א'.repeat(670), 'sms', 10)).toBe(true);
    expect(fitsOneMessage('א'.repeat(671), 'sms', 10)).toBe(false);
    expect(fitsOneMessage('a'.repeat(1_600), 'whatsapp', 10)).toBe(true);
    expect(fitsOneMessage('a'.repeat(1_601), 'whatsapp', 10)).toBe(false);
    // **bold** is *bold* on WhatsApp: two characters fewer.
    expect(fitsOneMessage(`**${'a'.repeat(1_598)}**`, 'whatsapp', 10)).toBe(true);
  });
});
