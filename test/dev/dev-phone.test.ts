import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEventStream, type StreamEvent } from '../../src/dev/event-stream.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { ConsoleTransport } from '../../src/outbox/console-transport.js';
import { randomIds } from '../../src/shared/ids.js';
import { HeraldHarness } from '../helpers/herald-harness.js';

/**
 * /dev/phone over real HTTP: only in local mode, only from this machine; messages take
 * the real webhook path; replies arrive as server-sent events from the console transport.
 */

const LOCAL = { TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '' };
const silentConsole = () => new ConsoleTransport(createSilentLogger(), randomIds, () => {});

/** A listening Herald and an open event stream for one number. */
async function listen(harness: HeraldHarness): Promise<string> {
  await harness.herald.app.listen({ host: '127.0.0.1', port: 0 });
  const address = harness.herald.app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('not listening');
  return `http://127.0.0.1:${address.port}`;
}

async function openEvents(baseUrl: string, phone: string): Promise<{ next(): Promise<StreamEvent>; close(): void }> {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}/dev/phone/events?from=${encodeURIComponent(phone)}`, { signal: abort.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const events = readEventStream(response.body!);
  return {
    async next() {
      const { value, done } = await events.next();
      if (done) throw new Error('event stream ended');
      return value;
    },
    close: () => abort.abort(),
  };
}

describe('/dev/phone in local mode', () => {
  let harness: HeraldHarness;
  let baseUrl: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: LOCAL, transport: silentConsole() });
    baseUrl = await listen(harness);
  });
  afterAll(async () => {
    await harness.close();
  });

  const inject = (options: { method?: 'GET' | 'POST'; url: string; remoteAddress?: string; headers?: Record<string, string>; payload?: string }) =>
    harness.herald.app.inject({ method: options.method ?? 'GET', url: options.url, headers: options.headers ?? {}, ...(options.payload ? { payload: options.payload } : {}), ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}) });

  it('serves the phone page with its script allowed by hash only, noindex', async () => {
    const response = await inject({ url: '/dev/phone' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('<title>Herald — dev phone</title>');
    expect(response.body).toContain('value="+14155550123"');
    const policy = response.headers['content-security-policy'] as string;
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toContain('unsafe');
    expect(response.headers['x-robots-tag']).toBe('noindex, nofollow');
  });

  it('answers only this machine: another address, a forwarded request or a foreign Host header get a plain 404', async () => {
    const before = await harness.database.prisma.message.count();
    const unknownPath = await inject({ url: '/no/such/path' });
    const refusals = [
      await inject({ url: '/dev/phone', remoteAddress: '203.0.113.9' }),
      await inject({ url: '/dev/phone/events?from=%2B14155550123', remoteAddress: '10.0.0.2' }),
      await inject({ method: 'POST', url: '/dev/phone/messages', remoteAddress: '203.0.113.9', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ from: '+14155550123', body: 'hi' }) }),
      await inject({ url: '/dev/phone', headers: { 'x-forwarded-for': '203.0.113.9' } }),
      await inject({ url: '/dev/phone', headers: { host: 'attacker.example:3000' } }),
    ];
    for (const response of refusals) {
      expect(response.statusCode).toBe(404);
      expect(response.body.replace(/GET:\/[^"]*|POST:\/[^"]*/, '')).toBe(unknownPath.body.replace(/GET:\/[^"]*/, ''));
    }
    expect(await harness.database.prisma.message.count()).toBe(before);
  });

  it('a message goes through the real webhook and Herald\'s reply arrives as a server-sent event', async () => {
    const phone = '+14155550101';
    const events = await openEvents(baseUrl, phone);
    expect(await events.next()).toEqual({ event: 'ready', data: JSON.stringify({ phone }) });
    harness.anthropic.enqueue((request) => ({ text: `You said: ${request.lastUserText()}` }));

    const posted = await fetch(`${baseUrl}/dev/phone/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: phone, body: 'hi' }) });
    expect(posted.status).toBe(202);
    const reply = await events.next();
    events.close();
    expect(reply.event).toBe('message');
    expect(JSON.parse(reply.data)).toMatchObject({ to: phone, channel: 'sms', body: 'You said: hi' });

    // Stored exactly as a Twilio webhook would be: the user, the inbound message with a Twilio-shaped sid, the reply sent.
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone }, include: { messages: { orderBy: { createdAt: 'asc' } } } });
    expect(user.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'hi'],
      ['assistant', 'You said: hi'],
    ]);
    expect(user.messages[0]!.twilioSid).toMatch(/^SM[0-9a-f]{32}$/);
  });

  it('another number\'s replies never reach this stream', async () => {
    const mine = await openEvents(baseUrl, '+14155550102');
    const theirs = await openEvents(baseUrl, '+14155550103');
    await mine.next();
    await theirs.next();
    harness.anthropic.enqueue({ text: 'for 0003 only' });
    await fetch(`${baseUrl}/dev/phone/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: '+14155550103', body: 'yo' }) });
    expect(JSON.parse((await theirs.next()).data).body).toBe('for 0003 only');
    // The next event on "mine" is this message, sent afterwards: nothing came before it.
    harness.anthropic.enqueue({ text: 'for 0002' });
    await fetch(`${baseUrl}/dev/phone/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: '+14155550102', body: 'yo' }) });
    expect(JSON.parse((await mine.next()).data).body).toBe('for 0002');
    mine.close();
    theirs.close();
  });

  it('bad input gets a clear error and stores nothing', async () => {
    const before = await harness.database.prisma.message.count();
    const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => inject({ method: 'POST', url: '/dev/phone/messages', headers, payload: body });
    const notJson = await post('from=%2B14155550123&body=hi', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(notJson.statusCode).toBe(415);
    const badNumber = await post(JSON.stringify({ from: '555-1234', body: 'hi' }));
    expect(badNumber.statusCode).toBe(400);
    expect(badNumber.body).toBe('from: must be a phone number in international form, such as +14155550123');
    expect((await post(JSON.stringify({ from: '+14155550123', body: '   ' }))).body).toBe('body: must not be empty');
    const crossOrigin = await post(JSON.stringify({ from: '+14155550123', body: 'hi' }), { 'content-type': 'application/json', origin: 'https://attacker.example' });
    expect(crossOrigin.statusCode).toBe(403);
    expect((await inject({ url: '/dev/phone/events?from=nope' })).statusCode).toBe(400);
    expect(await harness.database.prisma.message.count()).toBe(before);
  });
});

describe('/dev/phone with an auth token but no account (local, signed)', () => {
  it('signs its webhooks as Twilio would, so they pass signature checking', async () => {
    const harness = await HeraldHarness.start({ env: { TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: 'local-secret' }, transport: silentConsole() });
    try {
      const baseUrl = await listen(harness);
      const events = await openEvents(baseUrl, '+14155550109');
      await events.next();
      harness.anthropic.enqueue({ text: 'signed and delivered' });
      const posted = await fetch(`${baseUrl}/dev/phone/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: '+14155550109', body: 'hi' }) });
      expect(posted.status).toBe(202);
      expect(JSON.parse((await events.next()).data).body).toBe('signed and delivered');
      events.close();
      // An unsigned webhook from this machine is refused here: the dev phone really signed.
      const unsigned = await harness.herald.app.inject({ method: 'POST', url: '/twilio/messages', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'From=%2B15551230009' });
      expect(unsigned.statusCode).toBe(403);
    } finally {
      await harness.close();
    }
  });
});

describe('/dev/phone with Twilio configured', () => {
  it('does not exist (404), from this machine or any other', async () => {
    const harness = await HeraldHarness.start({ start: false });
    try {
      expect(harness.config.twilio.transport).toBe('twilio');
      expect(harness.herald.outboundFeed).toBeUndefined();
      for (const url of ['/dev/phone', '/dev/phone/events?from=%2B14155550123']) expect((await harness.herald.app.inject({ url })).statusCode).toBe(404);
      const post = await harness.herald.app.inject({ method: 'POST', url: '/dev/phone/messages', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ from: '+14155550123', body: 'hi' }) });
      expect(post.statusCode).toBe(404);
    } finally {
      await harness.close();
    }
  });
});

describe('/dev/phone in local invite mode', () => {
  let harness: HeraldHarness;
  let baseUrl: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { ...LOCAL, ACCESS_MODE: 'invite' }, transport: silentConsole() });
    baseUrl = await listen(harness);
  });
  afterAll(async () => {
    await harness.close();
  });

  it('shows a stranger the private notice Twilio would text back from the webhook, and stores nothing', async () => {
    const phone = '+14155550177';
    const events = await openEvents(baseUrl, phone);
    try {
      expect((await events.next()).event).toBe('ready');
      const sent = await fetch(`${baseUrl}/dev/phone/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: phone, body: 'hi' }) });
      expect(sent.status).toBe(202);
      const message = await events.next();
      expect(message.event).toBe('message');
      expect(JSON.parse(message.data)).toMatchObject({ to: phone, channel: 'sms', body: 'This is a private assistant. If you have an invite code, reply JOIN <code>.' });
      expect(await harness.database.prisma.user.findUnique({ where: { phone } })).toBeNull();
    } finally {
      events.close();
    }
  });
});
