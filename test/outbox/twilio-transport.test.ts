import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseRetryAfter, TwilioTransport } from '../../src/outbox/twilio-transport.js';
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
    expect(result).toMatchObject({ ok: false, retryable: true });
    expect(result).not.toHaveProperty('httpStatus');
  });

  it('calls a refused connection retryable', async () => {
    const closed = await FakeTwilioServer.start();
    const url = closed.url;
    await closed.close();
    const unreachable = new TwilioTransport({ accountSid: fake.accountSid, authToken: fake.authToken, apiBaseUrl: url });
    expect(await unreachable.send(message)).toMatchObject({ ok: false, retryable: true });
  });

  it("keeps concurrent sends' Retry-After apart", async () => {
    fake.failNext({ status: 429, retryAfterSeconds: 2 }, { status: 503 }, { status: 429, retryAfterSeconds: 9 });
    const results = await Promise.all([transport.send(message), transport.send(message), transport.send(message)]);
    const retryAfters = results.map((result) => (result.ok ? undefined : result.retryAfterMs)).sort();
    expect(retryAfters).toEqual([2_000, 9_000, undefined]);
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
