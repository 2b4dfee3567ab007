import { describe, expect, it } from 'vitest';
import { buttonPayload, readButtonPayload } from '../../src/questions/button-payload.js';
import { deliveredChannel } from '../../src/channels/twilio-webhook-schemas.js';
import { detectKeyword } from '../../src/channels/keywords.js';

describe('button payloads (issue 24)', () => {
  it('round-trips a question and its answer', () => {
    expect(readButtonPayload(buttonPayload('k7m2qx2a', 'yes'))).toEqual({ shortId: 'k7m2qx2a', answer: 'yes' });
    expect(readButtonPayload('herald:k7m2qx2a:10')).toEqual({ shortId: 'k7m2qx2a', answer: '10' });
  });

  it.each([undefined, '', 'yes', 'herald:short:yes', 'herald:k7m2qx2a:maybe', 'herald:k7m2qx2a:0', 'other:k7m2qx2a:yes', 'herald:K7M2QX2A:yes'])('is not Herald\'s: %j', (payload) => {
    expect(readButtonPayload(payload)).toBeUndefined();
  });
});

describe('the channel a status callback reports', () => {
  it.each([
    [{ From: 'rcs:herald_agent' }, 'rcs'],
    [{ From: '+15005550006' }, 'sms'],
    [{ From: 'whatsapp:+14155238886' }, 'whatsapp'],
    [{ ChannelPrefix: 'rcs', From: '+15005550006' }, 'rcs'],
    [{}, undefined],
    [{ From: 'messenger:123' }, undefined],
  ])('%j is %s', (callback, channel) => {
    expect(deliveredChannel(callback)).toBe(channel);
  });
});

describe('opt-out words on RCS follow SMS', () => {
  it.each(['STOP', 'CANCEL', 'end', 'quit'])('%s opts out over RCS', (word) => {
    expect(detectKeyword(word, { optedOut: false, channel: 'rcs' })).toBe('stop');
  });
});
