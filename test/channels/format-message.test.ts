import { describe, it, expect } from 'vitest';
import { formatForChannel } from '../../src/channels/format-message.js';

const whatsapp = (markdown: string): string => formatForChannel(markdown, 'whatsapp');
const sms = (markdown: string): string => formatForChannel(markdown, 'sms');

describe('formatForChannel: emphasis', () => {
  it('turns **bold** and __bold__ into WhatsApp bold, and plain words for SMS', () => {
    expect(whatsapp('a **bold** move')).toBe('a *bold* move');
    expect(whatsapp('a __bold__ move')).toBe('a *bold* move');
    expect(sms('a **bold** move')).toBe('a bold move');
    expect(sms('a __bold__ move')).toBe('a bold move');
  });

  it('turns *italic* and _italic_ into WhatsApp italic, and plain words for SMS', () => {
    expect(whatsapp('an *italic* word')).toBe('an _italic_ word');
    expect(whatsapp('an _italic_ word')).toBe('an _italic_ word');
    expect(sms('an *italic* word')).toBe('an italic word');
    expect(sms('an _italic_ word')).toBe('an italic word');
  });

  it('turns ~~strike~~ into WhatsApp strike, and plain words for SMS', () => {
    expect(whatsapp('~~old~~ new')).toBe('~old~ new');
    expect(sms('~~old~~ new')).toBe('old new');
  });

  it('handles bold italic and nesting', () => {
    expect(whatsapp('***both***')).toBe('*_both_*');
    expect(sms('***both***')).toBe('both');
    expect(whatsapp('**bold with *italic* inside**')).toBe('*bold with _italic_ inside*');
    expect(sms('**bold with *italic* inside**')).toBe('bold with italic inside');
  });

  it('handles several spans on a line and emphasis next to punctuation', () => {
    expect(whatsapp('**Note:** see (*this*) and **that**.')).toBe('*Note:* see (_this_) and *that*.');
    expect(sms('**Note:** see (*this*) and **that**.')).toBe('Note: see (this) and that.');
  });

  it('keeps Hebrew words when converting bold', () => {
    expect(whatsapp('**שלום** עולם, _זה_ טקסט')).toBe('*שלום* עולם, _זה_ טקסט');
    expect(sms('**שלום** עולם, _זה_ טקסט')).toBe('שלום עולם, זה טקסט');
    expect(whatsapp('הפגישה **מחר בשעה 10:00**.')).toBe('הפגישה *מחר בשעה 10:00*.');
  });

  it('keeps backslash-escaped markers as literal characters', () => {
    expect(sms('a \\*literal\\* star')).toBe('a *literal* star');
    expect(sms('2 \\_ 3')).toBe('2 _ 3');
  });
});

describe('formatForChannel: look-alikes stay untouched', () => {
  it.each([
    ['arithmetic', '2*3*4'],
    ['spaced arithmetic', '5 * 3 * 2 = 30'],
    ['a power', '2**10 is 1024'],
    ['snake case', 'use snake_case_words here'],
    ['a file name', 'open file_names.txt now'],
    ['a dunder file', 'edit __init__.py first'],
    ['a URL with underscores and asterisks', 'go to https://example.com/a_b_c/*star*/d_e'],
    ['a www URL', 'www.example.com/some_path_here'],
    ['an email with underscores', 'mail first_last_name@example.co.uk today'],
    ['a lone asterisk', '*'],
    ['a lone asterisk mid-sentence', 'rated 5* by guests'],
    ['a hashtag', '#blessed and C# code'],
    ['a negative number at line start', '-5 degrees outside'],
    ['single tildes', '~5 minutes away, ~10 tops'],
    ['an unclosed bold', '**not closed'],
    ['a greater-than mid-line', 'if 5 > 3 then'],
  ])('leaves %s alone', (_description, text) => {
    expect(whatsapp(text)).toBe(text);
    expect(sms(text)).toBe(text);
  });

  it('keeps a URL’s own characters when emphasis surrounds it', () => {
    expect(whatsapp('**https://example.com/a_b**')).toBe('*https://example.com/a_b*');
    expect(sms('**https://example.com/a_b**')).toBe('https://example.com/a_b');
  });

  it('leaves sentence punctuation and unmatched brackets out of bare URLs', () => {
    const text = 'See https://en.wikipedia.org/wiki/Foo_(bar). Or (https://example.com/x_y).';
    expect(sms(text)).toBe(text);
    expect(whatsapp(text)).toBe(text);
  });
});

describe('formatForChannel: headings', () => {
  it('makes headings bold on WhatsApp and plain lines on SMS', () => {
    expect(whatsapp('# Title\nText')).toBe('*Title*\nText');
    expect(whatsapp('### Small heading ###')).toBe('*Small heading*');
    expect(sms('# Title\nText')).toBe('Title\nText');
    expect(sms('## Sub')).toBe('Sub');
  });

  it('does not nest bold inside a bold heading', () => {
    expect(whatsapp('## The **big** day')).toBe('*The big day*');
    expect(whatsapp('## The *small* day')).toBe('*The _small_ day*');
    expect(sms('## The **big** day')).toBe('The big day');
  });

  it('drops an empty heading', () => {
    expect(sms('#\ntext')).toBe('text');
  });
});

describe('formatForChannel: links and images', () => {
  it('writes links as text (url)', () => {
    const markdown = 'Read [the docs](https://example.com/docs) first.';
    expect(whatsapp(markdown)).toBe('Read the docs (https://example.com/docs) first.');
    expect(sms(markdown)).toBe('Read the docs (https://example.com/docs) first.');
  });

  it('writes just the URL when the text is the URL', () => {
    expect(whatsapp('[https://example.com](https://example.com)')).toBe('https://example.com');
    expect(sms('[example.com](https://example.com/)')).toBe('https://example.com/');
  });

  it('keeps URLs with underscores, asterisks and parentheses intact', () => {
    expect(sms('[wiki](https://en.wikipedia.org/wiki/Foo_(bar)) and [q](https://x.io/a*b*c)')).toBe(
      'wiki (https://en.wikipedia.org/wiki/Foo_(bar)) and q (https://x.io/a*b*c)',
    );
  });

  it('formats emphasis inside link text', () => {
    expect(whatsapp('[**big** sale](https://shop.example)')).toBe('*big* sale (https://shop.example)');
    expect(sms('[**big** sale](https://shop.example)')).toBe('big sale (https://shop.example)');
  });

  it('handles link titles, autolinks and mailto links', () => {
    expect(sms('[home](https://example.com "Home page")')).toBe('home (https://example.com)');
    expect(sms('see <https://example.com/a_b>')).toBe('see https://example.com/a_b');
    expect(sms('write to [me](mailto:me@example.com) or <you@example.com>')).toBe(
      'write to me (me@example.com) or you@example.com',
    );
  });

  it('writes images as alt: url, or the URL alone without alt text', () => {
    expect(whatsapp('![A cat](https://img.example/cat_1.png)')).toBe('A cat: https://img.example/cat_1.png');
    expect(sms('![A cat](https://img.example/cat_1.png)')).toBe('A cat: https://img.example/cat_1.png');
    expect(sms('![](https://img.example/cat.png)')).toBe('https://img.example/cat.png');
  });
});

describe('formatForChannel: code', () => {
  it('turns inline code into WhatsApp monospace and bare text for SMS', () => {
    expect(whatsapp('run `npm test` now')).toBe('run ```npm test``` now');
    expect(sms('run `npm test` now')).toBe('run npm test now');
  });

  it('leaves markup inside inline code alone', () => {
    expect(whatsapp('`a **b** c_d`')).toBe('```a **b** c_d```');
    expect(sms('`a **b** c_d`')).toBe('a **b** c_d');
  });

  it('turns fenced blocks into WhatsApp monospace blocks and bare code for SMS', () => {
    const markdown = 'Try:\n```js\nconst total = a*b*c;\nlog(**x**);\n```\nDone.';
    expect(whatsapp(markdown)).toBe('Try:\n```const total = a*b*c;\nlog(**x**);```\nDone.');
    expect(sms(markdown)).toBe('Try:\nconst total = a*b*c;\nlog(**x**);\nDone.');
  });

  it('runs an unclosed fence to the end and drops an empty one', () => {
    expect(sms('```\ncode *here*')).toBe('code *here*');
    expect(sms('before\n```\n```\nafter')).toBe('before\n\nafter');
  });

  it('treats ```x``` on one line as inline code, not a fence', () => {
    expect(whatsapp('```x``` and *more*')).toBe('```x``` and _more_');
    expect(sms('```x``` and *more*')).toBe('x and more');
  });
});

describe('formatForChannel: lists and quotes', () => {
  it('makes every bullet a dash, keeping nesting', () => {
    const markdown = '* one\n- two *it*\n+ three\n  * nested';
    expect(whatsapp(markdown)).toBe('- one\n- two _it_\n- three\n  - nested');
    expect(sms(markdown)).toBe('- one\n- two it\n- three\n  - nested');
  });

  it('formats bold labels in bullets', () => {
    expect(whatsapp('* **Name:** Alice')).toBe('- *Name:* Alice');
    expect(sms('* **Name:** Alice')).toBe('- Name: Alice');
  });

  it('keeps numbered lists', () => {
    const markdown = '1. first **step**\n2) second\n   3. nested';
    expect(whatsapp(markdown)).toBe('1. first *step*\n2) second\n   3. nested');
    expect(sms(markdown)).toBe('1. first step\n2) second\n   3. nested');
  });

  it('keeps quotes, flattening nesting', () => {
    expect(whatsapp('> quoted **text**\n>> deeper\n> - item')).toBe('> quoted *text*\n> deeper\n> - item');
    expect(sms('> quoted **text**')).toBe('> quoted text');
  });

  it('drops horizontal rules', () => {
    expect(sms('above\n\n---\n\nbelow\n* * *')).toBe('above\n\nbelow');
  });
});

describe('formatForChannel: tables', () => {
  const table = '| Day | Plan |\n|:----|-----:|\n| Mon | **Gym** |\n| Tue | `code` |\n| Wed | |';

  it('turns table rows into dash-joined lines on SMS, dropping separators', () => {
    expect(sms(table)).toBe('Day — Plan\nMon — Gym\nTue — code\nWed');
  });

  it('does the same on WhatsApp, which has no tables either', () => {
    expect(whatsapp(table)).toBe('Day — Plan\nMon — *Gym*\nTue — ```code```\nWed');
  });

  it('handles tables without outer pipes and escaped pipes', () => {
    expect(sms('a | b\n--- | ---\nx \\| y | z\n\nafter')).toBe('a — b\nx | y — z\n\nafter');
  });

  it('leaves a lone pipe in prose alone', () => {
    expect(sms('this | that')).toBe('this | that');
  });
});

describe('formatForChannel: whitespace', () => {
  it('collapses runs of blank lines to one', () => {
    expect(sms('a\n\n\n\n\nb')).toBe('a\n\nb');
    expect(whatsapp('a\n \n\t\n\nb')).toBe('a\n\nb');
    expect(sms('a\n\nb')).toBe('a\n\nb');
  });

  it('normalises Windows line breaks and trims the result', () => {
    expect(sms('\r\n  **hi**\r\nthere  \r\n\r\n')).toBe('hi\nthere');
  });

  it('returns an empty string for empty input', () => {
    expect(sms('')).toBe('');
    expect(whatsapp('   \n  ')).toBe('');
  });

  it('drops the private-use characters it uses internally', () => {
    expect(sms('a\uE000b\uE002c')).toBe('abc');
  });
});

describe('formatForChannel: a realistic reply', () => {
  const reply = [
    '## Your week',
    '',
    'Here is what I found for **Tuesday**:',
    '',
    '* *9:00* — standup ([link](https://meet.example/abc_def))',
    '* 12:30 — lunch with `Dana`',
    '',
    '',
    '',
    '> Don’t forget the ~~slides~~ notes!',
  ].join('\n');

  it('renders for WhatsApp', () => {
    expect(whatsapp(reply)).toBe(
      [
        '*Your week*',
        '',
        'Here is what I found for *Tuesday*:',
        '',
        '- _9:00_ — standup (link (https://meet.example/abc_def))',
        '- 12:30 — lunch with ```Dana```',
        '',
        '> Don’t forget the ~slides~ notes!',
      ].join('\n'),
    );
  });

  it('renders for SMS', () => {
    expect(sms(reply)).toBe(
      [
        'Your week',
        '',
        'Here is what I found for Tuesday:',
        '',
        '- 9:00 — standup (link (https://meet.example/abc_def))',
        '- 12:30 — lunch with Dana',
        '',
        '> Don’t forget the slides notes!',
      ].join('\n'),
    );
  });
});
