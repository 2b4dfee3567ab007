import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedAnthropicRequest } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness, inboundForm, messageSid, PUBLIC_BASE_URL } from '../helpers/herald-harness.js';
import { waitUntil } from '../db/wait-until.js';

// The webhook's defences, against the real app on a real database: anything refused is
// refused before it is stored, so it can never reach the model or be answered; and no
// refusal takes the server down.

const BODY_LIMIT = 2048;
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

let phoneCounter = 0;
/** A fresh UK mobile number per test, so each test's rows and replies are its own. */
function newPhone(): string {
  phoneCounter += 1;
  return `+4474001${String(10_000 + phoneCounter).slice(-5)}`;
}

/** A marker that can be searched for in everything the model and Twilio saw. */
const marker = (what: string) => `${what}-${Math.random().toString(36).slice(2, 10)}`;

/** The model echoes what it was shown, so a refused message that slipped through would show up. */
const echo = (request: RecordedAnthropicRequest) => ({ text: `echo: ${request.lastUserText()}` });

describe('POST /twilio/messages with TWILIO_AUTH_TOKEN set', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { WEBHOOK_BODY_LIMIT_BYTES: String(BODY_LIMIT) }, logLevel: 'warn' });
    harness.anthropic.setFallback(echo);
  });
  afterAll(async () => {
    await harness?.close();
  });

  const prisma = () => harness.database.prisma;

  const counts = async () => ({
    users: await prisma().user.count(),
    messages: await prisma().message.count(),
    dedupe: await prisma().inboundDedupe.count(),
    outbound: await prisma().outboundMessage.count(),
  });

  const formFor = (phone: string, body: string, extra: Record<string, string> = {}) =>
    inboundForm({ from: phone, body, extra }, harness.twilio.accountSid);

  const signatureFor = (url: string, form: Record<string, string>, token = harness.twilio.authToken) =>
    twilio.getExpectedTwilioSignature(token, url, form);

  /** Posts `form` as Twilio would, but with the headers given (no signature unless one is passed). */
  const postRaw = (form: Record<string, string>, headers: Record<string, string>, url = '/twilio/messages') =>
    harness.herald.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(form).toString(),
    });

  /** Resolves once Twilio has been asked to send `body` (or something it starts) to `phone`, awaiting each message the fake accepts. */
  async function replyTo(phone: string, body: string): Promise<void> {
    // A reply past SMS_MAX_SEGMENTS is its lead and a link to the whole of it on a page.
    const lead = (sent: string) => sent.replace(/\n\nThe whole answer: https:\/\/\S+$/, '');
    const arrived = () => harness.twilio.messages.some((message) => message.to === phone && body.startsWith(lead(message.body ?? '\u0000')));
    for (let seen = harness.twilio.messages.length; !arrived(); seen += 1) {
      await harness.twilio.waitForMessages(seen + 1, 10_000);
    }
  }

  /**
   * Proves a refused message had no effect beyond its HTTP answer: nothing stored (checked
   * by the caller against `before`), and, after a valid message from the same number
   * (which the per-user turn order would process after, or merged with, anything stored
   * before it), the model saw only the valid text and Twilio sent exactly one reply.
   */
  async function expectNoEffect(phone: string, refusedText: string, before: Awaited<ReturnType<typeof counts>>): Promise<void> {
    expect(await counts()).toEqual(before);
    expect(await prisma().user.findUnique({ where: { phone } })).toBeNull();

    const followUp = marker('follow-up');
    const response = await harness.inbound({ from: phone, body: followUp });
    expect(response.statusCode, 'the server still serves valid requests').toBe(200);
    await replyTo(phone, `echo: ${followUp}`);

    const toPhone = harness.twilio.messages.filter((message) => message.to === phone);
    expect(toPhone.map((message) => message.body)).toEqual([`echo: ${followUp}`]);
    const seen = harness.anthropic.requests.map((request) => request.allText()).join('\n');
    expect(seen).toContain(followUp);
    expect(seen).not.toContain(refusedText);
    const stored = await prisma().message.findMany({ where: { user: { phone } }, select: { content: true } });
    expect(stored.map((message) => message.content)).not.toContain(refusedText);
  }

  it('accepts a correctly signed message: 200, empty TwiML, stored, answered', async () => {
    const phone = newPhone();
    const text = marker('hello');
    const response = await harness.inbound({ from: phone, body: text });

    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/xml/);
    expect(response.body).toBe(EMPTY_TWIML);
    expect(await prisma().message.count({ where: { content: text, user: { phone } } })).toBe(1);
    await replyTo(phone, `echo: ${text}`);
  });

  it('refuses a missing signature with 403 and no effect', async () => {
    const phone = newPhone();
    const text = marker('unsigned');
    const before = await counts();

    const response = await postRaw(formFor(phone, text), {});

    expect(response.statusCode).toBe(403);
    await expectNoEffect(phone, text, before);
  });

  it('refuses a wrong signature (another auth token, or garbage) with 403 and no effect', async () => {
    const phone = newPhone();
    const text = marker('forged');
    const before = await counts();
    const form = formFor(phone, text);

    const otherToken = await postRaw(form, { 'x-twilio-signature': signatureFor(`${PUBLIC_BASE_URL}/twilio/messages`, form, 'f'.repeat(32)) });
    const garbage = await postRaw(form, { 'x-twilio-signature': 'not-a-signature' });
    const empty = await postRaw(form, { 'x-twilio-signature': '' });

    expect([otherToken.statusCode, garbage.statusCode, empty.statusCode]).toEqual([403, 403, 403]);
    await expectNoEffect(phone, text, before);
  });

  it('refuses a signature computed for another URL (http instead of https, another host, another path) with 403', async () => {
    const phone = newPhone();
    const text = marker('wrong-url');
    const before = await counts();
    const form = formFor(phone, text);

    const urls = [
      'http://herald.test/twilio/messages',
      'https://evil.example/twilio/messages',
      `${PUBLIC_BASE_URL}/twilio/status`,
      `${PUBLIC_BASE_URL}/twilio/messages?tenant=a`,
    ];
    for (const url of urls) {
      const response = await postRaw(form, { 'x-twilio-signature': signatureFor(url, form) });
      expect(response.statusCode, url).toBe(403);
    }
    await expectNoEffect(phone, text, before);
  });

  it('refuses a body altered after signing with 403', async () => {
    const phone = newPhone();
    const text = marker('tampered');
    const before = await counts();
    const signed = formFor(phone, 'the text Twilio signed');

    const response = await postRaw({ ...signed, Body: text }, { 'x-twilio-signature': signatureFor(`${PUBLIC_BASE_URL}/twilio/messages`, signed) });

    expect(response.statusCode).toBe(403);
    await expectNoEffect(phone, text, before);
  });

  it('verifies against PUBLIC_BASE_URL + path + query: a signed URL with a query string is accepted', async () => {
    const phone = newPhone();
    const text = marker('with-query');
    const form = formFor(phone, text);

    // harness.post signs `${PUBLIC_BASE_URL}${path}`, query included, as Twilio does.
    const response = await harness.post('/twilio/messages?tenant=a', form);

    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(EMPTY_TWIML);
    expect(await prisma().message.count({ where: { content: text } })).toBe(1);
    await replyTo(phone, `echo: ${text}`);
  });

  it('refuses the same query-string request when the signature covers the path only', async () => {
    const phone = newPhone();
    const text = marker('query-unsigned');
    const before = await counts();
    const form = formFor(phone, text);

    const response = await postRaw(form, { 'x-twilio-signature': signatureFor(`${PUBLIC_BASE_URL}/twilio/messages`, form) }, '/twilio/messages?tenant=a');

    expect(response.statusCode).toBe(403);
    await expectNoEffect(phone, text, before);
  });

  it.each([
    ['a missing MessageSid', (form: Record<string, string>) => ({ ...form, MessageSid: undefined }), 'MessageSid'],
    ['a malformed MessageSid', (form: Record<string, string>) => ({ ...form, MessageSid: 'XX123' }), 'MessageSid'],
    ['a bad AccountSid', (form: Record<string, string>) => ({ ...form, AccountSid: 'AC-not-hex' }), 'AccountSid'],
    ['a non-numeric NumMedia', (form: Record<string, string>) => ({ ...form, NumMedia: 'several' }), 'NumMedia'],
    ['a negative NumMedia', (form: Record<string, string>) => ({ ...form, NumMedia: '-1' }), 'NumMedia'],
    ['a missing From', (form: Record<string, string>) => ({ ...form, From: undefined }), 'From'],
    ['a missing To', (form: Record<string, string>) => ({ ...form, To: undefined }), 'To'],
  ])('answers a signed but malformed body (%s) with 400, naming the field, and stores nothing', async (_what, mutate, field) => {
    const phone = newPhone();
    const text = marker('malformed');
    const before = await counts();
    const form = Object.fromEntries(
      Object.entries(mutate(formFor(phone, text))).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );

    const response = await harness.post('/twilio/messages', form);

    expect(response.statusCode).toBe(400);
    expect(response.body).toContain(field);
    await expectNoEffect(phone, text, before);
  });

  it('refuses JSON, even with a signature over the same parameters, and stores nothing', async () => {
    const phone = newPhone();
    const text = marker('json');
    const before = await counts();
    const form = formFor(phone, text);

    const response = await harness.herald.app.inject({
      method: 'POST',
      url: '/twilio/messages',
      headers: { 'content-type': 'application/json', 'x-twilio-signature': signatureFor(`${PUBLIC_BASE_URL}/twilio/messages`, form) },
      payload: JSON.stringify(form),
    });

    expect(response.statusCode).toBe(415);
    await expectNoEffect(phone, text, before);
  });

  it.each([
    ['application/x-garbage', (form: Record<string, string>) => new URLSearchParams(form).toString()],
    ['text/plain', (form: Record<string, string>) => new URLSearchParams(form).toString()],
    ['multipart/form-data; boundary=x', () => '--x\r\nContent-Disposition: form-data; name="Body"\r\n\r\nhi\r\n--x--\r\n'],
    ['application/json', () => '{"MessageSid": '],
  ])('refuses a %s body with 4xx and stores nothing', async (contentType, payload) => {
    const phone = newPhone();
    const text = marker('garbage');
    const before = await counts();
    const form = formFor(phone, text);

    const response = await harness.herald.app.inject({
      method: 'POST',
      url: '/twilio/messages',
      headers: { 'content-type': contentType, 'x-twilio-signature': signatureFor(`${PUBLIC_BASE_URL}/twilio/messages`, form) },
      payload: payload(form),
    });

    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    await expectNoEffect(phone, text, before);
  });

  it('answers a body over WEBHOOK_BODY_LIMIT_BYTES with 413 and stores nothing', async () => {
    const phone = newPhone();
    const text = marker('oversized');
    const before = await counts();
    const form = formFor(phone, `${text} ${'x'.repeat(BODY_LIMIT)}`);
    expect(new URLSearchParams(form).toString().length).toBeGreaterThan(BODY_LIMIT);

    // Signed correctly: the size limit applies before anything else looks at the body.
    const response = await harness.post('/twilio/messages', form);

    expect(response.statusCode).toBe(413);
    await expectNoEffect(phone, text, before);
  });

  it('accepts a body just under the limit', async () => {
    const phone = newPhone();
    const text = marker('just-under');
    const form = formFor(phone, text);
    const size = new URLSearchParams(form).toString().length;
    form.Body = `${text} ${'y'.repeat(BODY_LIMIT - size - 10)}`;
    expect(new URLSearchParams(form).toString().length).toBeLessThanOrEqual(BODY_LIMIT);

    const response = await harness.post('/twilio/messages', form);

    expect(response.statusCode).toBe(200);
    // The echo is longer than one SMS: its first part is enough to know it was answered.
    await replyTo(phone, `echo: ${form.Body}`);
  });

  it('accepts unknown extra Twilio fields and stores the message', async () => {
    const phone = newPhone();
    const text = marker('extra-fields');
    const sid = messageSid();
    const form = inboundForm(
      {
        from: phone,
        body: text,
        sid,
        extra: {
          SmsStatus: 'received',
          SmsSid: sid,
          ReferralNumMedia: '0',
          FromZip: 'SW1A',
          FromCountry: 'GB',
          FromCity: 'LONDON',
          MessagingServiceSid: `MG${'a'.repeat(32)}`,
          SomeFieldTwilioAddsNextYear: 'surprise',
        },
      },
      harness.twilio.accountSid,
    );

    const response = await harness.post('/twilio/messages', form);

    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(EMPTY_TWIML);
    expect(await prisma().message.findUnique({ where: { twilioSid: sid } })).toMatchObject({ content: text, role: 'user', channel: 'sms' });
    expect(await prisma().inboundDedupe.findUnique({ where: { key: `sid:${sid}` } })).not.toBeNull();
    await replyTo(phone, `echo: ${text}`);
  });

  it('survives a burst of bad requests and still serves a valid one', async () => {
    const phone = newPhone();
    const text = marker('burst');
    const before = await counts();
    const form = formFor(phone, text);
    const responses = await Promise.all([
      postRaw(form, {}),
      postRaw(form, { 'x-twilio-signature': 'x' }),
      harness.post('/twilio/messages', { ...form, NumMedia: 'NaN' }),
      harness.post('/twilio/messages', { ...form, Body: 'z'.repeat(BODY_LIMIT * 4) }),
      harness.herald.app.inject({ method: 'POST', url: '/twilio/messages', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '%%%&&&===' }),
      harness.herald.app.inject({ method: 'GET', url: '/twilio/messages' }),
    ]);
    expect(responses.map((response) => response.statusCode)).toEqual([403, 403, 400, 413, 403, 404]);
    await expectNoEffect(phone, text, before);
  });
});

describe('POST /twilio/status with TWILIO_AUTH_TOKEN set', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ logLevel: 'warn' });
    harness.anthropic.setFallback(echo);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('requires a valid signature before it moves a status', async () => {
    await harness.inbound({ from: newPhone(), body: 'hi' });
    const [sent] = await harness.replies(1);
    // The outbox records Twilio's sid once the API call returns, just after the fake recorded it.
    await waitUntil(async () => (await harness.database.prisma.outboundMessage.count({ where: { twilioSid: sent!.sid } })) === 1, 'the sid to be recorded');
    const outbound = await harness.database.prisma.outboundMessage.findFirstOrThrow({ where: { twilioSid: sent!.sid } });
    expect(outbound.status).not.toBe('delivered');
    const form = { MessageSid: sent!.sid, MessageStatus: 'delivered', AccountSid: harness.twilio.accountSid };

    const unsigned = await harness.herald.app.inject({
      method: 'POST',
      url: '/twilio/status',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
    const forged = await harness.herald.app.inject({
      method: 'POST',
      url: '/twilio/status',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilio.getExpectedTwilioSignature(harness.twilio.authToken, `${PUBLIC_BASE_URL}/twilio/messages`, form),
      },
      payload: new URLSearchParams(form).toString(),
    });
    expect([unsigned.statusCode, forged.statusCode]).toEqual([403, 403]);
    expect((await harness.database.prisma.outboundMessage.findUniqueOrThrow({ where: { id: outbound.id } })).status).toBe(outbound.status);

    const signed = await harness.post('/twilio/status', form);
    expect(signed.statusCode).toBe(200);
    expect((await harness.database.prisma.outboundMessage.findUniqueOrThrow({ where: { id: outbound.id } })).status).toBe('delivered');
  });

  it('answers a signed but malformed status callback with 400', async () => {
    const response = await harness.post('/twilio/status', { MessageSid: 'nope', MessageStatus: 'delivered' });
    expect(response.statusCode).toBe(400);
  });
});

describe('without TWILIO_AUTH_TOKEN (local use)', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '' }, logLevel: 'warn' });
    harness.anthropic.setFallback(echo);
  });
  afterAll(async () => {
    await harness?.close();
  });

  const unsigned = (phone: string, body: string, remoteAddress?: string, headers: Record<string, string> = {}) =>
    harness.herald.app.inject({
      method: 'POST',
      url: '/twilio/messages',
      ...(remoteAddress ? { remoteAddress } : {}),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(inboundForm({ from: phone, body }, harness.twilio.accountSid)).toString(),
    });

  it('runs with the console transport', () => {
    expect(harness.config.twilio.transport).toBe('console');
    expect(harness.config.twilio.authToken).toBeUndefined();
  });

  it('accepts an unsigned webhook from loopback (IPv4 and IPv6)', async () => {
    for (const address of [undefined, '127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const phone = newPhone();
      const text = marker('loopback');
      const response = await unsigned(phone, text, address);
      expect(response.statusCode, String(address)).toBe(200);
      expect(response.body).toBe(EMPTY_TWIML);
      expect(await harness.database.prisma.message.count({ where: { content: text, user: { phone } } })).toBe(1);
    }
  });

  it('refuses an unsigned webhook from any other address with 403, even claiming loopback in X-Forwarded-For', async () => {
    // Inbound only: earlier tests' messages are still being answered (assistant rows) meanwhile.
    const before = await harness.database.prisma.message.count({ where: { role: 'user' } });
    const users = await harness.database.prisma.user.count();
    const dedupe = await harness.database.prisma.inboundDedupe.count();
    for (const [address, headers] of [
      ['203.0.113.9', {}],
      ['10.0.0.8', {}],
      ['2001:db8::1', {}],
      ['203.0.113.9', { 'x-forwarded-for': '127.0.0.1' }],
    ] as const) {
      const response = await unsigned(newPhone(), marker('remote'), address, headers);
      expect(response.statusCode, address).toBe(403);
    }
    expect(await harness.database.prisma.message.count({ where: { role: 'user' } })).toBe(before);
    expect(await harness.database.prisma.user.count()).toBe(users);
    expect(await harness.database.prisma.inboundDedupe.count()).toBe(dedupe);
  });

  it('refuses an unsigned webhook from loopback that a reverse proxy, tunnel or CDN relayed (Via, Forwarded, X-Forwarded-*, X-Real-IP, CF-Connecting-IP, True-Client-IP, X-Client-IP…): behind a local proxy everyone arrives from loopback', async () => {
    const before = await harness.database.prisma.message.count({ where: { role: 'user' } });
    const relayed: Array<Record<string, string>> = [
      { 'x-forwarded-for': '203.0.113.9' },
      { 'x-forwarded-for': '127.0.0.1' },
      { forwarded: 'for=203.0.113.9;proto=https' },
      { 'x-real-ip': '203.0.113.9' },
      // Each alone, as a proxy, tunnel or CDN that adds only its own header would send it.
      { via: '1.1 caddy' },
      { 'CF-Connecting-IP': '203.0.113.9' },
      { 'cf-connecting-ipv6': '2001:db8::9' },
      { 'CF-Ray': '8a1b2c3d4e5f6789-AMS' },
      { 'True-Client-IP': '203.0.113.9' },
      { 'X-Client-IP': '203.0.113.9' },
      { 'Fastly-Client-IP': '203.0.113.9' },
      { 'X-Cluster-Client-IP': '203.0.113.9' },
      { 'X-Original-Forwarded-For': '203.0.113.9' },
      { 'Forwarded-For': '203.0.113.9' },
      { 'X-Forwarded': 'for=203.0.113.9' },
      { 'X-Forwarded-Host': 'herald.test' },
      { 'X-Forwarded-Proto': 'https' },
      { 'X-Forwarded-Port': '443' },
      { 'X-Forwarded-Server': 'edge-1' },
      { 'X-Envoy-External-Address': '203.0.113.9' },
      { 'Fly-Client-IP': '203.0.113.9' },
    ];
    for (const headers of relayed) {
      for (const address of ['127.0.0.1', '::1']) {
        const response = await unsigned(newPhone(), marker('relayed'), address, headers);
        expect(response.statusCode, `${address} ${JSON.stringify(headers)}`).toBe(403);
      }
    }
    const status = await harness.herald.app.inject({
      method: 'POST',
      url: '/twilio/status',
      remoteAddress: '127.0.0.1',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-real-ip': '203.0.113.9' },
      payload: new URLSearchParams({ MessageSid: `SM${'1'.repeat(32)}`, MessageStatus: 'delivered' }).toString(),
    });
    expect(status.statusCode).toBe(403);
    expect(await harness.database.prisma.message.count({ where: { role: 'user' } })).toBe(before);
  });

  it('refuses an unsigned status callback from another address', async () => {
    const response = await harness.herald.app.inject({
      method: 'POST',
      url: '/twilio/status',
      remoteAddress: '203.0.113.9',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ MessageSid: `SM${'1'.repeat(32)}`, MessageStatus: 'delivered' }).toString(),
    });
    expect(response.statusCode).toBe(403);
  });
});

describe('health endpoints', () => {
  it('/healthz is 200 and /readyz reports the database and the queue', async () => {
    const harness = await HeraldHarness.start({ logLevel: 'warn' });
    try {
      const health = await harness.herald.app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
      expect(health.json()).toEqual({ status: 'ok' });

      const ready = await harness.herald.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ready', checks: { database: true, queue: true } });
    } finally {
      await harness.close();
    }
  });

  it('/readyz is 503 while the queue is not started; /healthz stays 200', async () => {
    const harness = await HeraldHarness.start({ start: false, logLevel: 'warn' });
    try {
      const ready = await harness.herald.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'unavailable', checks: { database: true, queue: false } });
      expect((await harness.herald.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await harness.close();
    }
  });

  it('/readyz is 503 when the database is unreachable', async () => {
    const harness = await HeraldHarness.start({ logLevel: 'warn' });
    try {
      await harness.database.pool.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      // Dropping the database makes every new connection fail.
      await harness.database.drop();
      const ready = await harness.herald.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().checks.database).toBe(false);
    } finally {
      await harness.close();
    }
  });
});
