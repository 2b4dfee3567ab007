import { describe, it, expect } from 'vitest';
import { splitMessage, TWILIO_MAX_BODY_LENGTH } from '../../src/channels/split-message.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Collapses all whitespace runs, so texts can be compared word for word. */
function words(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The graphemes of a text, as the splitter must never break them. */
function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), ({ segment }) => segment);
}

/** A sentence of exactly `length` characters ending in a full stop. */
function sentence(length: number, letter = 'a'): string {
  return `${letter.repeat(length - 1)}.`;
}

/** Checks the invariants every split must keep. */
function expectWellFormed(parts: string[], maxLength: number): void {
  for (const part of parts) {
    expect(part.length).toBeGreaterThan(0);
    expect(part.length).toBeLessThanOrEqual(maxLength);
    expect(part).toBe(part.trim());
  }
}

describe('splitMessage', () => {
  it('uses Twilio’s 1600-character limit by default', () => {
    expect(TWILIO_MAX_BODY_LENGTH).toBe(1600);
  });

  it('returns no parts for an empty or whitespace-only body', () => {
    expect(splitMessage('')).toEqual([]);
    expect(splitMessage('   \n\t  ')).toEqual([]);
  });

  it('returns a short body as one trimmed part', () => {
    expect(splitMessage('  Hello there!  \n')).toEqual(['Hello there!']);
  });

  it('keeps a body of exactly the limit as one part', () => {
    const body = 'word '.repeat(320).trim().padEnd(1600, 'x');
    expect(body.length).toBe(1600);
    expect(splitMessage(body)).toEqual([body]);
  });

  it('splits a body one character over the limit', () => {
    const body = `${'word '.repeat(320)}x`;
    expect(body.length).toBe(1601);
    const parts = splitMessage(body);
    expect(parts.length).toBe(2);
    expectWellFormed(parts, 1600);
    expect(words(parts.join(' '))).toBe(words(body));
  });

  it('prefers the last sentence end over a later word boundary', () => {
    const first = 'This is the first sentence. '.repeat(50).trim();
    const body = `${first} And this one runs on past the limit with many words ${'more '.repeat(40)}`;
    const parts = splitMessage(body);
    expectWellFormed(parts, 1600);
    expect(parts[0]).toBe(first);
    expect(parts[0]?.endsWith('.')).toBe(true);
  });

  it('treats ! ? … and closing quotes as sentence ends', () => {
    const body = `${'Wow! Really? Indeed… '.repeat(3)}He said “stop.” and left ${'on and on '.repeat(5)}`;
    const parts = splitMessage(body, 90);
    expectWellFormed(parts, 90);
    expect(parts[0]).toMatch(/[!?…”]$/);
    expect(words(parts.join(' '))).toBe(words(body));
  });

  it('does not treat a decimal point as a sentence end', () => {
    const body = 'The value is 3.14159 and the rest follows here';
    const parts = splitMessage(body, 20);
    expectWellFormed(parts, 20);
    expect(parts.some((part) => part.endsWith('3.'))).toBe(false);
    expect(words(parts.join(' '))).toBe(words(body));
  });

  it('prefers a paragraph break over a later sentence end', () => {
    const paragraph = `${'First paragraph sentence. '.repeat(40).trim()}`;
    const body = `${paragraph}\n\nSecond paragraph starts. ${'It keeps going. '.repeat(50)}`;
    expect(paragraph.length).toBeGreaterThan(800);
    const parts = splitMessage(body);
    expect(parts[0]).toBe(paragraph);
    expect(parts[1]?.startsWith('Second paragraph starts.')).toBe(true);
  });

  it('prefers a line break over a later sentence end', () => {
    const line = `- ${'item text. '.repeat(100).trim()}`;
    const body = `${line}\n- ${'next item. '.repeat(100)}`;
    const parts = splitMessage(body);
    expect(parts[0]).toBe(line);
  });

  it('splits at Windows line breaks too', () => {
    const paragraph = 'Sentence one here. '.repeat(5).trim();
    const body = `${paragraph}\r\n\r\n${paragraph}`;
    expect(splitMessage(body, 120)).toEqual([paragraph, paragraph]);
  });

  it('ignores a boundary that would leave a tiny part when a later one exists', () => {
    const body = `Hi.\n${'lorem ipsum '.repeat(200)}`;
    const parts = splitMessage(body);
    expect(parts[0]?.length).toBeGreaterThan(800);
    expect(parts[0]?.startsWith('Hi.\nlorem')).toBe(true);
  });

  it('falls back to a word boundary when no sentence end fits', () => {
    const body = 'lorem ipsum dolor '.repeat(120).trim();
    const parts = splitMessage(body);
    expectWellFormed(parts, 1600);
    expect(parts.length).toBe(2);
    // Every part ends on a whole word.
    for (const part of parts) expect(part).toMatch(/(lorem|ipsum|dolor)$/);
    expect(words(parts.join(' '))).toBe(words(body));
  });

  it('does not split at a no-break space', () => {
    const body = `${'word '.repeat(10)}100\u00A0km`;
    const parts = splitMessage(body, 53);
    expect(parts.at(-1)).toBe('100\u00A0km');
  });

  it('keeps a URL whole by moving it to its own part when it fits', () => {
    const url = `https://example.com/${'a'.repeat(1578)}`;
    expect(url.length).toBe(1598);
    const body = `Here: ${url} done`;
    const parts = splitMessage(body);
    expect(parts).toEqual(['Here:', url, 'done']);
  });

  it('hard-cuts a single word longer than the limit', () => {
    const url = `https://example.com/${'x'.repeat(1980)}`;
    expect(url.length).toBe(2000);
    const parts = splitMessage(url);
    expect(parts.map((part) => part.length)).toEqual([1600, 400]);
    expect(parts.join('')).toBe(url);
  });

  it('never splits an emoji ZWJ sequence when hard-cutting', () => {
    const family = '👨‍👩‍👧‍👦';
    const body = family.repeat(400);
    const parts = splitMessage(body, 1600);
    expectWellFormed(parts, 1600);
    expect(parts.join('')).toBe(body);
    for (const part of parts) {
      expect(graphemes(part).every((grapheme) => grapheme === family)).toBe(true);
    }
  });

  it('never splits a flag or a surrogate pair, whatever the alignment', () => {
    for (const prefix of ['', 'a', 'ab', 'abc']) {
      const body = prefix + '🇮🇱🇬🇧😀'.repeat(60);
      const parts = splitMessage(body, 37);
      expectWellFormed(parts, 37);
      expect(parts.join('')).toBe(body);
      const joinedGraphemes = parts.flatMap(graphemes);
      expect(joinedGraphemes).toEqual(graphemes(body));
    }
  });

  it('never leaves a skin-tone modifier apart from its emoji', () => {
    const wave = '👋🏽';
    const body = `${wave} `.repeat(10) + wave.repeat(50);
    const parts = splitMessage(body, 25);
    expectWellFormed(parts, 25);
    for (const part of parts) expect(graphemes(part).every((grapheme) => grapheme === wave || grapheme === ' ')).toBe(true);
  });

  it('breaks a grapheme only when it alone exceeds the limit, and never a surrogate pair', () => {
    const body = `😀${'\u0301'.repeat(20)}`;
    const parts = splitMessage(body, 7);
    expect(parts.join('')).toBe(body);
    expect(parts[0]).toBe(`😀${'\u0301'.repeat(5)}`);
    expect(splitMessage('a😀', 2)).toEqual(['a', '😀']);
  });

  it('splits Hebrew text at its sentence ends', () => {
    const hebrewSentence = 'שלום, זה משפט בעברית שמסתיים בנקודה. ';
    const body = hebrewSentence.repeat(60);
    const parts = splitMessage(body);
    expectWellFormed(parts, 1600);
    expect(parts.length).toBe(2);
    expect(parts[0]?.endsWith('בנקודה.')).toBe(true);
    expect(words(parts.join(' '))).toBe(words(body));
  });

  it('splits at Hebrew sof pasuq and CJK full stops', () => {
    const hebrew = `${'בראשית ברא אלהים׃ '.repeat(4)}`;
    const hebrewParts = splitMessage(hebrew, 40);
    expect(hebrewParts.every((part) => part.endsWith('׃'))).toBe(true);

    const chinese = '今天天气很好。我们去公园吧！你觉得怎么样？'.repeat(4);
    const chineseParts = splitMessage(chinese, 25);
    expectWellFormed(chineseParts, 25);
    expect(chineseParts.every((part) => /[。！？]$/.test(part))).toBe(true);
    expect(chineseParts.join('')).toBe(chinese);
  });

  it('preserves order: rejoined parts equal the original modulo whitespace', () => {
    const body = Array.from({ length: 400 }, (_, index) => `Sentence number ${index}.`).join(' ');
    const parts = splitMessage(body, 500);
    expectWellFormed(parts, 500);
    expect(words(parts.join(' '))).toBe(words(body));
  });

  it('splits a 10,000-character text into parts all within the limit', () => {
    const vocabulary = ['alpha', 'beta', 'gamma.', 'delta!', 'epsilon\n', 'zeta?', '🙂', 'שלום', 'https://x.io/a_b'];
    let body = '';
    for (let index = 0; body.length < 10_000; index++) {
      body += `${vocabulary[(index * 7) % vocabulary.length]} `;
    }
    const parts = splitMessage(body);
    expectWellFormed(parts, 1600);
    expect(parts.length).toBeGreaterThanOrEqual(7);
    expect(words(parts.join(' '))).toBe(words(body));
  });

  it('rejects a limit too small to hold any character', () => {
    expect(() => splitMessage('hello', 1)).toThrow(RangeError);
    expect(() => splitMessage('hello', 2.5)).toThrow(RangeError);
  });
});
