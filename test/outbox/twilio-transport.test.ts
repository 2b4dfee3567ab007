import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mayHaveReachedTwilio, parseRetryAfter, TwilioTransport } from '../../src/outbox/twilio-transport.js';
import { FakeTwilioServer } from '../fakes/fake-twilio-server.js';

/** The real Twilio SDK, through TwilioTransport, against the fake Twilio. */
describe('TwilioTransport', () => {
  let fake: FakeTwilioServer;
  let transport: TwilioTransport;

  beforeAll(async () => {
    fake = await FakeTwilioServer.start();
    transport = new TwilioTransport({ accountSid: fake.accountSid, authToken: fake.authToken, apiBaseUrl: fake.url });
  });
  beforeEach(() => fake.reset());
  afterAll(async () => {
    await fake.close();
  });

  const message = { to: '+14155550801', from: '+15005550006', body: 'Hello there', statusCallback: 'https://herald.test/twilio/status' };

  it('sends with the status callback and returns the sid and status', async () => {
    const result = await transport.send(message);
    expect(result).toEqual({ ok: true, sid: fake.messages[0]?.sid, status: 'queued' });
    expect(fake.messages[0]).toMatchObject({ to: '+14155550801', from: '+15005550006', body: 'Hello there', statusCallback: 'https://herald.test/twilio/status' });
  });

  it('sends from a Messaging Service when the sender is an MG sid', async () => {
    await transport.send({ ...message, from: 'MG' + '1'.repeat(32) });
    expect(fake.messages[0]).toMatchObject({ from: null, messagingServiceSid: 'MG' + '1'.repeat(32) });
  });

  it('sends a WhatsApp template as ContentSid and JSON ContentVariables, without a body', async () => {
    fake.content.register('HX' + 'a'.repeat(32), { body: '{{1}}' });
    await transport.send({ to: 'whatsapp:+14155550801', from: 'whatsapp:+14155238886', contentSid: 'HX' + 'a'.repeat(32), contentVariables: { 1: 'Call mom' } });
    expect(fake.messages[0]).toMatchObject({ body: 'Call mom', contentSid: 'HX' + 'a'.repeat(32), contentVariables: '{"1":"Call mom"}' });
    expect(fake.requests[0]?.params.Body).toBeUndefined();
  });

  it('calls 429 retryable and reads its Retry-After', async () => {
    fake.failNext({ status: 429, code: 20429, retryAfterSeconds: 7 });
    const result = await transport.send(message);
    expect(result).toMatchObject({ ok: false, retryable: true, httpStatus: 429, errorCode: 20429, retryAfterMs: 7_000 });
  });

  it('calls 5xx retryable', async () => {
    fake.failNext({ status: 500 }, { status: 503 });
    expect(await transport.send(message)).toMatchObject({ ok: false, retryable: true, httpStatus: 500, errorCode: 20500 });
    const second = await transport.send(message);
    expect(second).toMatchObject({ ok: false, retryable: true, httpStatus: 503 });
    expect(second).not.toHaveProperty('retryAfterMs');
  });

  it('calls 4xx permanent, with the Twilio error code', async () => {
    fake.failNext({ status: 400, code: 21610, message: 'Attempt to send to unsubscribed recipient' });
    expect(await transport.send(message)).toEqual({
      ok: false,
      retryable: false,
      httpStatus: 400,
      errorCode: 21610,
      message: 'Attempt to send to unsubscribed recipient',
    });
  });

  it('calls bad credentials permanent', async () => {
    const wrong = new TwilioTransport({ accountSid: fake.accountSid, authToken: 'wrong', apiBaseUrl: fake.url });
    expect(await wrong.send(message)).toMatchObject({ ok: false, retryable: false, httpStatus: 401, errorCode: 20003 });
  });

  it('calls a timeout retryable', async () => {
    // A short timeout for the request Twilio never answers; the other tests keep the default.
    const impatient = new TwilioTransport({ accountSid: fake.accountSid, authToken: fake.authToken, apiBaseUrl: fake.url, timeoutMs: 300 });
    fake.hangNext();
    const result = await impatient.send(message);
    // The client gave up: Twilio still has not answered the request.
    expect(fake.requests.map((request) => request.status)).toEqual([null]);
    // The request went out whole: Twilio may have it.
    expect(result).toMatchObject({ ok: false, retryable: true, outcomeUnknown: true });
    expect(result).not.toHaveProperty('httpStatus');
  });

  it('calls a refused connection retryable, and sure to have sent nothing', async () => {
    const closed = await FakeTwilioServer.start();
    const url = closed.url;
    await closed.close();
    const unreachable = new TwilioTransport({ accountSid: fake.accountSid, authToken: fake.authToken, apiBaseUrl: url });
    const result = await unreachable.send(message);
    expect(result).toMatchObject({ ok: false, retryable: true });
    expect(result).not.toHaveProperty('outcomeUnknown');
  });

  it('calls a connection reset after the request went out an unknown outcome, whether Twilio took the message or not', async () => {
    fake.setMessageFault({ kind: 'drop-answer', how: 'reset' }, { times: 1 });
    expect(await transport.send(message)).toMatchObject({ ok: false, retryable: true, outcomeUnknown: true });
    expect(fake.messages).toHaveLength(1);
    fake.setMessageFault({ kind: 'reset-before' }, { times: 1 });
    expect(await transport.send(message)).toMatchObject({ ok: false, retryable: true, outcomeUnknown: true });
    expect(fake.messages).toHaveLength(1);
    // The fault was for one send each: the API is back.
    expect(await transport.send(message)).toMatchObject({ ok: true });
  });

  it('a 5xx is an answer: Twilio did not take the message, its outcome is known', async () => {
    fake.setMessageFault({ kind: 'error', failure: { status: 500 } });
    const result = await transport.send(message);
    expect(result).toMatchObject({ ok: false, retryable: true, httpStatus: 500 });
    expect(result).not.toHaveProperty('outcomeUnknown');
  });

  it("keeps concurrent sends' Retry-After apart", async () => {
    fake.failNext({ status: 429, retryAfterSeconds: 2 }, { status: 503 }, { status: 429, retryAfterSeconds: 9 });
    const results = await Promise.all([transport.send(message), transport.send(message), transport.send(message)]);
    const retryAfters = results.map((result) => (result.ok ? undefined : result.retryAfterMs)).sort();
    expect(retryAfters).toEqual([2_000, 9_000, undefined]);
  });
});

describe('mayHaveReachedTwilio', () => {
  it('no for a connection that never was; yes once the request was written out; yes when it cannot tell', () => {
    expect(mayHaveReachedTwilio({ code: 'ECONNREFUSED', request: { writableFinished: false } })).toBe(false);
    expect(mayHaveReachedTwilio({ code: 'ENOTFOUND' })).toBe(false);
    expect(mayHaveReachedTwilio({ code: 'ECONNRESET', request: { writableFinished: false } })).toBe(false);
    expect(mayHaveReachedTwilio({ code: 'ECONNRESET', request: { writableFinished: true } })).toBe(true);
    expect(mayHaveReachedTwilio({ code: 'ECONNABORTED', request: { writableFinished: true } })).toBe(true);
    expect(mayHaveReachedTwilio(new Error('something else'))).toBe(true);
  });
});

describe('looking a message up in Twilio\'s Messages list (findSent)', () => {
  let fake: FakeTwilioServer;
  let transport: TwilioTransport;
  const to = '+14155550802';
  const from = '+15005550006';

  beforeAll(async () => {
    fake = await FakeTwilioServer.start();
    transport = new TwilioTransport({ accountSid: fake.accountSid, authToken: fake.authToken, apiBaseUrl: fake.url });
  });
  beforeEach(() => fake.reset());
  afterAll(async () => {
    await fake.close();
  });

  it('finds a message Twilio took though its answer was lost, by To, From, the day it was sent and its body', async () => {
    const since = new Date();
    await transport.send({ to, from, body: 'Something else' });
    fake.setMessageFault({ kind: 'drop-answer', how: 'reset' }, { times: 1 });
    expect(await transport.send({ to, from, body: 'Your table is booked.' })).toMatchObject({ ok: false, outcomeUnknown: true });
    const taken = fake.messages.at(-1)!;

    expect(await transport.findSent({ to, from, body: 'Your table is booked.', since })).toEqual({ kind: 'found', matches: [{ sid: taken.sid, status: 'sent' }] });
    const day = since.toISOString().slice(0, 10);
    expect(fake.lookups[0]?.query).toEqual({ To: to, From: from, 'DateSent>': `${day}T00:00:00Z`, PageSize: '100' });
  });

  it('not found: another body, another number, or a message from before the attempt', async () => {
    await transport.send({ to, from, body: 'Your table is booked.' });
    const later = new Date(Date.now() + 60_000);
    expect(await transport.findSent({ to, from, body: 'Your table is booked!', since: new Date() })).toEqual({ kind: 'not_found' });
    expect(await transport.findSent({ to: '+14155550803', from, body: 'Your table is booked.', since: new Date() })).toEqual({ kind: 'not_found' });
    expect(await transport.findSent({ to, from, body: 'Your table is booked.', since: later })).toEqual({ kind: 'not_found' });
  });

  it('reads page after page, newest first, until it reaches messages older than the attempt', async () => {
    const since = new Date(Date.now() - 1_000);
    for (let index = 0; index < 230; index += 1) await transport.send({ to, from, body: index === 0 ? 'the first' : `filler ${index}` });
    expect(await transport.findSent({ to, from, body: 'the first', since })).toMatchObject({ kind: 'found', matches: [{ sid: fake.messages[0]?.sid }] });
    expect(fake.lookups.map((lookup) => [lookup.query.Page ?? '0', Boolean(lookup.query.PageToken)])).toEqual([['0', false], ['1', true], ['2', true]]);
  });

  it('finds a content message by its variables, and one sent through a Messaging Service without From', async () => {
    fake.content.register('HX' + 'a'.repeat(32), { body: 'Reminder: {{1}}' });
    const service = 'MG' + '1'.repeat(32);
    const since = new Date();
    await transport.send({ to: `whatsapp:${to}`, from: service, contentSid: 'HX' + 'a'.repeat(32), contentVariables: { 1: 'Call mom' } });
    const found = await transport.findSent({ to: `whatsapp:${to}`, from: service, contentVariables: { 1: 'Call mom' }, since });
    expect(found).toMatchObject({ kind: 'found', matches: [{ sid: fake.messages[0]?.sid }] });
    expect(fake.lookups[0]?.query).not.toHaveProperty('From');
    expect(await transport.findSent({ to: `whatsapp:${to}`, from: service, contentVariables: { 1: 'Call dad' }, since })).toEqual({ kind: 'not_found' });
  });

  it('a list Twilio will not give is "failed", never "not found"', async () => {
    const wrong = new TwilioTransport({ accountSid: fake.accountSid, authToken: 'wrong', apiBaseUrl: fake.url });
    expect(await wrong.findSent({ to, from, body: 'x', since: new Date() })).toMatchObject({ kind: 'failed' });
    await fake.refuseConnections();
    try {
      expect(await transport.findSent({ to, from, body: 'x', since: new Date() })).toMatchObject({ kind: 'failed' });
    } finally {
      await fake.acceptConnections();
    }
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('5')).toBe(5_000);
    expect(parseRetryAfter('0.5')).toBe(500);
    expect(parseRetryAfter(['3'])).toBe(3_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-1')).toBeUndefined();
  });
});
