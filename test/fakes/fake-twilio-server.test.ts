import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import twilio from 'twilio';
import { createTwilioClient, redirectTwilioUri } from '../../src/channels/twilio-request-client.js';
import { FakeTwilioServer } from './fake-twilio-server.js';

const to = '+15555550100';
const from = '+15555550199';

describe('redirectTwilioUri', () => {
  const twilioUri = 'https://api.twilio.com/2010-04-01/Accounts/AC123/Messages.json?PageSize=20';

  it('replaces scheme, host and port and keeps path and query', () => {
    expect(redirectTwilioUri(twilioUri, 'http://127.0.0.1:4010')).toBe('http://127.0.0.1:4010/2010-04-01/Accounts/AC123/Messages.json?PageSize=20');
  });

  it('puts a base path in front of the original path, with or without a trailing slash', () => {
    const expected = 'http://127.0.0.1:4010/twilio/2010-04-01/Accounts/AC123/Messages.json?PageSize=20';
    expect(redirectTwilioUri(twilioUri, 'http://127.0.0.1:4010/twilio')).toBe(expected);
    expect(redirectTwilioUri(twilioUri, 'http://127.0.0.1:4010/twilio/')).toBe(expected);
  });

  it('redirects other Twilio product hosts too', () => {
    expect(redirectTwilioUri('https://messaging.twilio.com/v1/Services', 'https://twilio.example.test')).toBe('https://twilio.example.test/v1/Services');
  });
});

describe('FakeTwilioServer with the real twilio SDK', () => {
  let fake: FakeTwilioServer;
  let client: ReturnType<typeof createTwilioClient>;

  beforeAll(async () => {
    fake = await FakeTwilioServer.start();
    client = createTwilioClient({ accountSid: fake.accountSid, authToken: fake.authToken, apiBaseUrl: fake.url });
  });

  afterEach(() => fake.reset());

  afterAll(async () => {
    await fake.close();
  });

  it('accepts a message and records it', async () => {
    const message = await client.messages.create({ to, from, body: 'Hello from Herald', statusCallback: 'https://herald.test/status' });

    expect(message.sid).toMatch(/^SM[0-9a-f]{32}$/);
    expect(message.status).toBe('queued');
    expect(message.accountSid).toBe(fake.accountSid);
    expect(message.numSegments).toBe('1');
    expect(message.dateCreated).toBeInstanceOf(Date);
    expect(Number.isNaN(message.dateCreated.getTime())).toBe(false);
    expect(fake.messages).toEqual([
      expect.objectContaining({ sid: message.sid, to, from, body: 'Hello from Herald', statusCallback: 'https://herald.test/status', contentSid: null }),
    ]);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', username: fake.accountSid, status: 201 });
    expect(fake.requests[0]?.params).toMatchObject({ To: to, From: from, Body: 'Hello from Herald' });
  });

  it('accepts a WhatsApp template sent with ContentSid and no body, showing it rendered with the variables', async () => {
    fake.content.register('HX' + '2'.repeat(32), { body: 'Reminder: {{1}}' });
    await client.messages.create({
      to: `whatsapp:${to}`,
      messagingServiceSid: 'MG' + '1'.repeat(32),
      contentSid: 'HX' + '2'.repeat(32),
      contentVariables: JSON.stringify({ 1: 'dentist' }),
    });

    expect(fake.messages[0]).toMatchObject({
      to: `whatsapp:${to}`,
      from: null,
      body: 'Reminder: dentist',
      contentSid: 'HX' + '2'.repeat(32),
      contentVariables: '{"1":"dentist"}',
      messagingServiceSid: 'MG' + '1'.repeat(32),
    });
  });

  it('fetches a sent message back', async () => {
    const sent = await client.messages.create({ to, from, body: 'fetch me' });
    const fetched = await client.messages(sent.sid).fetch();
    expect(fetched.body).toBe('fetch me');
  });

  it('surfaces a queued 429 as a RestException, without the SDK retrying', async () => {
    fake.failNext({ status: 429, code: 20429, retryAfterSeconds: 1 });

    const error: unknown = await client.messages.create({ to, from, body: 'hi' }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(twilio.RestException);
    expect(error).toMatchObject({ status: 429, code: 20429 });
    expect(fake.requests).toHaveLength(1);
    expect(fake.messages).toHaveLength(0);
  });

  it('consumes queued failures in order, then behaves normally', async () => {
    fake.failNext({ status: 400, code: 21610, message: 'Attempt to send to unsubscribed recipient' }, { status: 503 });

    await expect(client.messages.create({ to, from, body: 'one' })).rejects.toMatchObject({
      status: 400,
      code: 21610,
      message: 'Attempt to send to unsubscribed recipient',
    });
    await expect(client.messages.create({ to, from, body: 'two' })).rejects.toMatchObject({ status: 503, code: 20503 });
    await expect(client.messages.create({ to, from, body: 'three' })).resolves.toMatchObject({ body: 'three' });
    expect(fake.requests.map((request) => request.status)).toEqual([400, 503, 201]);
  });

  it('answers 401 with code 20003 to a wrong auth token', async () => {
    const intruder = createTwilioClient({ accountSid: fake.accountSid, authToken: 'wrong', apiBaseUrl: fake.url });

    await expect(intruder.messages.create({ to, from, body: 'hi' })).rejects.toMatchObject({ status: 401, code: 20003 });
    expect(fake.messages).toHaveLength(0);
  });

  it('validates like Twilio: a body or ContentSid is required', async () => {
    await expect(client.messages.create({ to, from })).rejects.toMatchObject({ status: 400, code: 21602 });
  });

  it('refuses a body over 1,600 characters with 400 and code 21617, counting an emoji as one character', async () => {
    await expect(client.messages.create({ to, from, body: 'x'.repeat(1601) })).rejects.toMatchObject({
      status: 400,
      code: 21617,
      message: 'The concatenated message body exceeds the 1600 character limit.',
    });
    // 1,600 emoji are 3,200 UTF-16 code units but 1,600 characters: Twilio takes them.
    await expect(client.messages.create({ to, from, body: '😀'.repeat(1600) })).resolves.toMatchObject({ status: 'queued' });
    expect(fake.requests.map((request) => request.status)).toEqual([400, 201]);
  });

  it('refuses addresses that are not E.164 (21211 for To, 21212 for From), and takes short codes and sender ids as From', async () => {
    for (const bad of ['4155550100', '+1 415 555 0100', '+0123', 'whatsapp:4155550100', 'tel:+14155550100']) {
      await expect(client.messages.create({ to: bad, from, body: 'hi' }), bad).rejects.toMatchObject({ status: 400, code: 21211 });
    }
    for (const bad of ['555-0199', '+', 'whatsapp:herald', 'A sender id too long']) {
      await expect(client.messages.create({ to, from: bad, body: 'hi' }), bad).rejects.toMatchObject({ status: 400, code: 21212 });
    }
    for (const good of ['55555', 'Herald', from]) await expect(client.messages.create({ to, from: good, body: 'hi' })).resolves.toMatchObject({ status: 'queued' });
    expect(fake.messages).toHaveLength(3);
  });

  it('refuses a WhatsApp address paired with an SMS one (21910), either way round', async () => {
    const pair = { status: 400, code: 21910, message: 'Invalid From and To pair. From and To should be of the same channel' };
    await expect(client.messages.create({ to: `whatsapp:${to}`, from, body: 'hi' })).rejects.toMatchObject(pair);
    await expect(client.messages.create({ to, from: `whatsapp:${from}`, body: 'hi' })).rejects.toMatchObject(pair);
    await expect(client.messages.create({ to: `whatsapp:${to}`, from: `whatsapp:${from}`, body: 'hi' })).resolves.toMatchObject({ status: 'queued' });
    expect(fake.messages.map((message) => message.to)).toEqual([`whatsapp:${to}`]);
  });

  it('works behind a base URL with a path prefix', async () => {
    const prefixed = createTwilioClient({ accountSid: fake.accountSid, authToken: fake.authToken, apiBaseUrl: `${fake.url}/twilio` });

    await prefixed.messages.create({ to, from, body: 'prefixed' });

    expect(fake.requests[0]?.path).toBe(`/twilio/2010-04-01/Accounts/${fake.accountSid}/Messages.json`);
  });

  it('hangs a request so the client timeout fires', async () => {
    const impatient = createTwilioClient({ accountSid: fake.accountSid, authToken: fake.authToken, apiBaseUrl: fake.url, timeoutMs: 200 });
    fake.hangNext();

    const error: unknown = await impatient.messages.create({ to, from, body: 'never answered' }).catch((caught: unknown) => caught);

    // The SDK does not wrap transport errors: a timeout is axios's own error.
    expect(error).toMatchObject({ name: 'AxiosError', code: 'ECONNABORTED' });
    expect(fake.requests[0]?.status).toBeNull();
    // The hang was used up; the next request is answered.
    await expect(impatient.messages.create({ to, from, body: 'answered' })).resolves.toMatchObject({ body: 'answered' });
  });

  it('waits for messages as they arrive', async () => {
    const arrived = fake.waitForMessages(2);
    await Promise.all([client.messages.create({ to, from, body: 'a' }), client.messages.create({ to, from, body: 'b' })]);

    const messages = await arrived;
    expect(messages.map((message) => message.body).sort()).toEqual(['a', 'b']);
  });

  it('rejects a wait that is not satisfied in time, saying what it saw', async () => {
    await expect(fake.waitForRequests(1, 20)).rejects.toThrow('FakeTwilioServer: expected 1 request(s) within 20 ms, got 0');
  });
});

describe('FakeTwilioServer: the Messages list and message-create faults, through the real SDK', () => {
  let fake: FakeTwilioServer;
  let client: ReturnType<typeof createTwilioClient>;

  beforeAll(async () => {
    fake = await FakeTwilioServer.start();
    client = createTwilioClient({ accountSid: fake.accountSid, authToken: fake.authToken, apiBaseUrl: fake.url, timeoutMs: 300 });
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await fake.close();
  });

  it('lists messages newest first, filtered by To and From, as sent (date_sent) once taken', async () => {
    for (const body of ['one', 'two', 'three']) await client.messages.create({ to, from, body });
    await client.messages.create({ to: '+15555550101', from, body: 'elsewhere' });
    const listed = await client.messages.list({ to, from });
    expect(listed.map((message) => message.body)).toEqual(['three', 'two', 'one']);
    expect(listed.every((message) => message.status === 'sent' && message.dateSent instanceof Date && message.direction === 'outbound-api')).toBe(true);
    expect(await client.messages.list({ to, from: '+15555550198' })).toEqual([]);
  });

  it('filters by DateSent: a day, on or after (DateSent>), on or before (DateSent<)', async () => {
    await client.messages.create({ to, from, body: 'today' });
    const now = new Date();
    const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const tomorrow = new Date(today.getTime() + 86_400_000);
    const yesterday = new Date(today.getTime() - 86_400_000);
    const bodies = async (options: Parameters<typeof client.messages.list>[0]) => (await client.messages.list(options)).map((message) => message.body);
    expect(await bodies({ to, dateSentAfter: today })).toEqual(['today']);
    expect(await bodies({ to, dateSentAfter: tomorrow })).toEqual([]);
    expect(await bodies({ to, dateSentBefore: yesterday })).toEqual([]);
    expect(await bodies({ to, dateSentBefore: new Date(now.getTime() + 60_000) })).toEqual(['today']);
    expect(await bodies({ to, dateSent: now })).toEqual(['today']);
    expect(await bodies({ to, dateSent: tomorrow })).toEqual([]);
    expect(fake.lookups[0]?.query).toMatchObject({ To: to, 'DateSent>': `${today.toISOString().slice(0, 10)}T00:00:00Z` });
  });

  it('pages with PageSize, Page and PageToken, each page naming the next until the last', async () => {
    for (let index = 1; index <= 5; index += 1) await client.messages.create({ to, from, body: `m${index}` });
    const first = await client.messages.page({ to, pageSize: 2 });
    expect(first.instances.map((message) => message.body)).toEqual(['m5', 'm4']);
    const second = await first.nextPage()!;
    const third = await second.nextPage()!;
    expect([...second.instances, ...third.instances].map((message) => message.body)).toEqual(['m3', 'm2', 'm1']);
    expect(third.nextPage()).toBeUndefined();
    expect(fake.lookups.map((lookup) => [lookup.query.Page, lookup.query.PageToken?.slice(0, 4)])).toEqual([
      [undefined, undefined],
      ['1', 'PASM'],
      ['2', 'PASM'],
    ]);
    expect((await client.messages.list({ to, pageSize: 2 })).map((message) => message.body)).toEqual(['m5', 'm4', 'm3', 'm2', 'm1']);
    await expect(client.messages.page({ to, pageSize: 1001 })).rejects.toMatchObject({ status: 400 });
  });

  it('answers every create with an error while told to, then accepts again', async () => {
    fake.setMessageFault({ kind: 'error', failure: { status: 500 } });
    await expect(client.messages.create({ to, from, body: 'a' })).rejects.toMatchObject({ status: 500, code: 20500 });
    await expect(client.messages.create({ to, from, body: 'b' })).rejects.toMatchObject({ status: 500 });
    fake.setMessageFault(undefined);
    await expect(client.messages.create({ to, from, body: 'c' })).resolves.toMatchObject({ body: 'c' });
    expect(fake.messages.map((message) => message.body)).toEqual(['c']);
  });

  it('takes a message but loses the answer: a reset or no answer at all; the message is sent and listed', async () => {
    fake.setMessageFault({ kind: 'drop-answer', how: 'reset' }, { times: 1 });
    await expect(client.messages.create({ to, from, body: 'reset' })).rejects.toMatchObject({ code: 'ECONNRESET' });
    fake.setMessageFault({ kind: 'drop-answer', how: 'hang' }, { times: 1 });
    await expect(client.messages.create({ to, from, body: 'hang' })).rejects.toMatchObject({ code: 'ECONNABORTED' });
    expect(fake.messages.map((message) => message.body)).toEqual(['reset', 'hang']);
    expect(fake.requests.map((request) => request.status)).toEqual([null, null]);
    expect((await client.messages.list({ to })).map((message) => message.body)).toEqual(['hang', 'reset']);
  });

  it('resets a connection before taking the message: nothing is sent', async () => {
    fake.setMessageFault({ kind: 'reset-before' }, { times: 1 });
    await expect(client.messages.create({ to, from, body: 'gone' })).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(fake.messages).toHaveLength(0);
    expect(await client.messages.list({ to })).toEqual([]);
  });

  it('refuses connections, then listens again on the same port', async () => {
    await fake.refuseConnections();
    // A connection the client kept alive may still be tried once and found closed (a reset); a new one is refused.
    const first: unknown = await client.messages.create({ to, from, body: 'nobody home' }).catch((error: unknown) => error);
    expect(['ECONNREFUSED', 'ECONNRESET']).toContain((first as { code?: string }).code);
    await expect(client.messages.create({ to, from, body: 'nobody home' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await fake.acceptConnections();
    await expect(client.messages.create({ to, from, body: 'back' })).resolves.toMatchObject({ body: 'back' });
    expect(fake.messages.map((message) => message.body)).toEqual(['back']);
  });
});
