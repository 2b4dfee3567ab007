import { describe, expect, it } from 'vitest';
import { detectKeyword } from '../../src/channels/keywords.js';

/**
 * Opt-out words, near misses (issue 32 item 8): a message one character away from a keyword is
 * an ordinary message, whoever sends it, so only exactly what Twilio acts on opts a number out.
 */
describe('opt-out words: the near miss is an ordinary message', () => {
  const subscribed = { optedOut: false };

  it.each(['STOPS', 'stop please', 'S TOP', 'S T O P', 'un subscribe', 'OPTO UT', 'st.op', 'STOP.ALL', 'stop!all', 'HE LP', 'STAR T'])('%j is no keyword', (body) => {
    expect(detectKeyword(body, subscribed)).toBeUndefined();
    expect(detectKeyword(body, { optedOut: true })).toBeUndefined();
  });

  it('inner whitespace of any kind and length is one space: "stop \\t all" is STOP ALL, "opt\\n\\nout" is OPT OUT', () => {
    expect(detectKeyword('stop \t all', subscribed)).toBe('stop');
    expect(detectKeyword('opt\n\nout', subscribed)).toBe('stop');
  });

  it('only full stops and exclamation marks at the very end are dropped', () => {
    expect(detectKeyword('stop.!.', subscribed)).toBe('stop');
    expect(detectKeyword('.stop', subscribed)).toBeUndefined();
    expect(detectKeyword('!stop', subscribed)).toBeUndefined();
  });
});
