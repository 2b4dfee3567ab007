import { afterEach, describe, expect, it } from 'vitest';
import type { MessageTransport, SentMessageLookup, SentMessageQuery, TransportMessage, TransportResult } from '../../src/outbox/message-transport.js';
import { ManualClock } from '../../src/shared/clock.js';
import { eventually } from '../helpers/eventually.js';
import { TwilioTransport } from '../../src/outbox/twilio-transport.js';
import { isGsm7, smsSegments } from '../../src/channels/sms-encoding.js';
import { HERALD_SMS_NUMBER, HERALD_WHATSAPP_NUMBER, HeraldHarness } from '../helpers/herald-harness.js';

/**
 * docs/ARCHITECTURE.md "Request lifecycle" step 7: the outbox sends through Twilio's REST API (the
 * real SDK against the fake), retries 429/5xx/timeouts with backoff, records permanent
 * errors without retrying, splits long bodies in order and converts Markdown per channel.
 *
 * Row states are read after a graceful stop, which waits for the delivery in flight:
 * by then nothing more can happen.
 */
describe('delivery through Twilio', () => {
  let harness: HeraldHarness | undefined;

  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  /** Starts Herald and has the model answer `text` to the next message. */
  async function startAnswering(text: string, options: Parameters<typeof HeraldHarness.start>[0] = {}): Promise<HeraldHarness> {
    harness = await HeraldHarness.start(options);
    harness.anthropic.enqueue({ text });
    return harness;
  }

  async function outboundRows(h: HeraldHarness) {
    return h.database.prisma.outboundMessage.findMany({ orderBy: [{ createdAt: 'asc' }, { partIndex: 'asc' }] });
  }

  it('retries a 429 and sends the reply exactly once', async () => {
    const h = await startAnswering('Your table is booked.');
    h.twilio.failNext({ status: 429, code: 20429 });
    await h.inbound({ from: '+14155550401', body: 'book it' });
    const [sent] = await h.replies(1);
    await h.settle();

    expect(sent).toMatchObject({ to: '+14155550401', from: HERALD_SMS_NUMBER, body: 'Your table is booked.' });
    expect(h.twilio.requests.map((request) => request.status)).toEqual([429, 201]);
    expect(h.twilio.messages).toHaveLength(1);
    const [row] = await outboundRows(h);
    expect(row).toMatchObject({ status: 'queued', attempts: 2, twilioSid: sent?.sid });
  });

  it('retries two 503s and sends the reply exactly once', async () => {
    const h = await startAnswering('Done.');
    h.twilio.failNext({ status: 503 }, { status: 503 });
    await h.inbound({ from: '+14155550402', body: 'do it' });
    const [sent] = await h.replies(1);
    await h.settle();

    expect(h.twilio.requests.map((request) => request.status)).toEqual([503, 503, 201]);
    expect(h.twilio.messages).toHaveLength(1);
    const [row] = await outboundRows(h);
    expect(row).toMatchObject({ status: 'queued', attempts: 3, twilioSid: sent?.sid });
  });

  it("honours Twilio's Retry-After, handing a long wait back to the queue", async () => {
    const h = await startAnswering('Worth the wait.');
    h.twilio.failNext({ status: 429, code: 20429, retryAfterSeconds: 3 });
    await h.inbound({ from: '+14155550411', body: 'hello' });
    const [sent] = await h.replies(1);
    await h.settle();

    const [refused, accepted] = h.twilio.requests;
    expect([refused?.status, accepted?.status]).toEqual([429, 201]);
    // Three seconds is longer than the outbox waits in-process: the retry came from a delayed job.
    expect(accepted!.receivedAt.getTime() - refused!.receivedAt.getTime()).toBeGreaterThanOrEqual(2_900);
    expect(h.twilio.messages).toHaveLength(1);
    const [row] = await outboundRows(h);
    expect(row).toMatchObject({ status: 'queued', attempts: 2, twilioSid: sent?.sid });
  });

  it('does not retry 21610 (the recipient opted out with the carrier) and marks SMS unreachable', async () => {
    const h = await startAnswering('Sure thing.');
    h.twilio.failNext({ status: 400, code: 21610, message: 'Attempt to send to unsubscribed recipient' });
    await h.inbound({ from: '+14155550403', body: 'remind me' });
    await h.twilio.waitForRequests(1);
    await h.settle();

    expect(h.twilio.requests).toHaveLength(1);
    expect(h.twilio.messages).toHaveLength(0);
    const [row] = await outboundRows(h);
    expect(row).toMatchObject({ status: 'failed', errorCode: 21610, attempts: 1, twilioSid: null });
    const user = await h.database.prisma.user.findUniqueOrThrow({ where: { phone: '+14155550403' } });
    expect(user.smsUnreachableAt).toBeInstanceOf(Date);
    expect(user.whatsappUnreachableAt).toBeNull();
  });

  it('does not retry 21211 (invalid number)', async () => {
    const h = await startAnswering('Sure thing.');
    h.twilio.failNext({ status: 400, code: 21211, message: "The 'To' number is not a valid phone number." });
    await h.inbound({ from: '+14155550404', body: 'hello' });
    await h.twilio.waitForRequests(1);
    await h.settle();

    expect(h.twilio.requests).toHaveLength(1);
    const [row] = await outboundRows(h);
    expect(row).toMatchObject({ status: 'failed', errorCode: 21211, attempts: 1 });
  });

  it('gives up once Twilio has failed for the whole of OUTBOX_RETRY_FOR_MS, and sends nothing more', async () => {
    // Herald's clock stands still unless moved (and lies in the past, so the retry jobs it
    // schedules are due at once): the window passes when the test says so.
    const clock = new ManualClock();
    const h = await startAnswering('This will never arrive.', { clock, env: { OUTBOX_RETRY_FOR_MS: '600000' } });
    h.twilio.setMessageFault({ kind: 'error', failure: { status: 503 } });
    await h.inbound({ from: '+14155550405', body: 'hello' });
    // The attempts a flush makes in-process; then the part waits for its retry time, which never comes.
    await h.twilio.waitForRequests(5);
    const waiting = await eventually(async () => (await outboundRows(h)).find((part) => part.status === 'pending' && part.attempts === 5), 'the part waiting for its retry');
    expect(waiting).toMatchObject({ errorCode: 20503, nextAttemptAt: expect.any(Date) });
    clock.advance(600_000);
    const row = await eventually(async () => (await outboundRows(h)).find((part) => part.status === 'failed'), 'the part given up');
    h.twilio.setMessageFault(undefined);
    await h.settle();

    expect(h.twilio.requests.map((request) => request.status)).toEqual([503, 503, 503, 503, 503, 503]);
    expect(h.twilio.messages).toHaveLength(0);
    expect(row).toMatchObject({ status: 'failed', attempts: 6, errorCode: 20503 });
    expect(row.errorMessage).toMatch(/^gave up after 10 min \(6 attempts\)/);
    expect(h.logs.lines.some((line) => line.level === 50 && line.msg?.startsWith('outbound part given up'))).toBe(true);
    // Nothing is left for recovery to pick up again.
    expect(await h.herald.outbox.hasUndelivered(row.userId)).toBe(false);
  });

  it('retries a send that timed out (Twilio never answered), once it has looked and not found it there', async () => {
    // TwilioTransport takes a timeout but the configuration has no setting for it (15 s
    // by default): hand Herald a transport whose first send, the one Twilio never answers,
    // gives up after 300 ms; the retry has the default. Both are created once the harness
    // has started its fake Twilio, hence the indirection.
    const transport = new LateBoundTransport();
    const h = await startAnswering('Made it eventually.', { transport });
    const twilio = { accountSid: h.twilio.accountSid, authToken: h.twilio.authToken, apiBaseUrl: h.twilio.url };
    transport.first = new TwilioTransport({ ...twilio, timeoutMs: 300 });
    transport.target = new TwilioTransport(twilio);
    h.twilio.hangNext(1);
    await h.inbound({ from: '+14155550406', body: 'hello' });
    const [sent] = await h.replies(1);
    await h.settle();

    expect(h.twilio.requests.map((request) => request.status)).toEqual([null, 201]); // the first never got an answer
    expect(h.twilio.lookups.length).toBeGreaterThan(0);
    expect(h.twilio.messages).toHaveLength(1);
    expect(sent?.statusCallback).toBe('https://herald.test/twilio/status');
    const [row] = await outboundRows(h);
    expect(row).toMatchObject({ status: 'queued', attempts: 2, twilioSid: sent?.sid });
  });

  it('splits a reply longer than 1600 characters into ordered parts', async () => {
    const sentences = Array.from({ length: 60 }, (_, index) => `Sentence number ${index + 1} of the long answer, padded to be wordy enough.`);
    const text = sentences.join(' ');
    expect(text.length).toBeGreaterThan(3_200);
    // SMS_MAX_SEGMENTS caps what an SMS reply may cost (see the test below); raised here.
    const h = await startAnswering(text, { env: { SMS_MAX_SEGMENTS: '100' } });
    await h.inbound({ from: '+14155550407', body: 'tell me everything' });
    await h.twilio.waitForMessages(3);
    await h.settle();

    const bodies = h.twilio.messages.map((message) => message.body ?? '');
    expect(bodies.length).toBeGreaterThanOrEqual(3);
    for (const body of bodies) expect(body.length).toBeLessThanOrEqual(1_600);
    expect(bodies.join(' ').split(/\s+/)).toEqual(text.split(/\s+/));
    // Split at sentence ends: every part but the last ends a sentence.
    for (const body of bodies) expect(body).toMatch(/\.$/);
    const rows = await outboundRows(h);
    expect(rows.map((row) => row.partIndex)).toEqual(bodies.map((_, index) => index));
    expect(rows.every((row) => row.partCount === bodies.length && row.status === 'queued')).toBe(true);
    expect(new Set(rows.map((row) => row.groupId)).size).toBe(1);
    expect(rows.map((row) => row.twilioSid)).toEqual(h.twilio.messages.map((message) => message.sid));
  });

  it('a WhatsApp answer longer than 1,600 characters goes out as parts Twilio accepts: its beginning and a link to all of it', async () => {
    const sentences = Array.from({ length: 60 }, (_, index) => `Sentence number ${index + 1} of the long answer, padded to be wordy enough.`);
    const text = sentences.join(' ');
    const h = await startAnswering(text);
    await h.inbound({ from: 'whatsapp:+14155550412', body: 'tell me everything' });
    // Answered, and every part settled (sent, or refused for good): nothing more will go.
    await h.idle('+14155550412');

    // Twilio refuses a body over 1,600 characters (400, 21617): none was refused.
    expect(h.twilio.requests.map((request) => request.status)).toEqual(h.twilio.messages.map(() => 201));
    const bodies = h.twilio.messages.map((message) => message.body ?? '');
    expect(bodies.every((body) => body.length <= 1600)).toBe(true);
    expect(h.twilio.messages.every((message) => message.to === 'whatsapp:+14155550412' && message.from === HERALD_WHATSAPP_NUMBER)).toBe(true);
    const sent = bodies.join('\n');
    expect(sent.startsWith('Sentence number 1 of the long answer')).toBe(true);
    // Nothing is lost: the page behind the link holds every sentence.
    const token = /\/p\/([A-Za-z0-9_-]{43})/.exec(sent)?.[1];
    expect(token).toBeDefined();
    const page = await h.herald.app.inject({ method: 'GET', url: `/p/${token}` });
    expect(page.statusCode).toBe(200);
    for (const sentence of [sentences[0]!, sentences[59]!]) expect(page.body).toContain(sentence);
  });

  it('sends SMS replies in GSM-7: typographic punctuation becomes plain, so one curly quote does not triple the segments', async () => {
    const reply = 'It\u2019s booked \u2014 \u201cTable 4\u201d at 7\u2026 see you there! Bring your \u2018A\u2019 game.';
    const h = await startAnswering(reply);
    await h.inbound({ from: '+14155550411', body: 'book it' });
    const [sent] = await h.replies(1);
    expect(sent?.body).toBe('It\'s booked - "Table 4" at 7... see you there! Bring your \'A\' game.');
    expect(isGsm7(sent?.body ?? '')).toBe(true);
    expect(smsSegments(reply)).toBe(1);
    expect(smsSegments(reply + ' '.repeat(40))).toBe(2); // UCS-2: 70 per segment
    expect(smsSegments(sent!.body! + ' '.repeat(40))).toBe(1); // GSM-7: 160
  });

  it('keeps an SMS reply within SMS_MAX_SEGMENTS segments: a lead cut at a sentence, then a link to the whole answer', async () => {
    const text = Array.from({ length: 60 }, (_, index) => `Sentence number ${index + 1} of the long answer.`).join(' ');
    const h = await startAnswering(text, { env: { SMS_MAX_SEGMENTS: '3' } });
    await h.inbound({ from: '+14155550412', body: 'tell me everything' });
    const [sent] = await h.replies(1);
    await h.settle();
    expect(h.twilio.messages).toHaveLength(1);
    expect(smsSegments(sent!.body!)).toBeLessThanOrEqual(3);
    const [lead, link] = sent!.body!.split('\n\n');
    expect(text.startsWith(lead!)).toBe(true);
    expect(lead).toMatch(/answer\.$/);
    expect(lead!.length).toBeGreaterThan(300);
    expect(link).toMatch(/^The whole answer: https:\/\/herald\.test\/p\/[A-Za-z0-9_-]{43}$/);
  });

  it('answers WhatsApp to the whatsapp: address from the WhatsApp number, with WhatsApp markup', async () => {
    const h = await startAnswering('This is **bold** and _this_ is italic.');
    const from = 'whatsapp:+14155550199';
    await h.inbound({ from, body: 'hi on whatsapp' });
    const [sent] = await h.replies(1);
    expect(sent).toMatchObject({ to: 'whatsapp:+14155550199', from: HERALD_WHATSAPP_NUMBER, body: 'This is *bold* and _this_ is italic.' });
  });

  it('answers SMS with the Markdown stripped', async () => {
    const h = await startAnswering('This is **bold** and _this_ is italic.');
    await h.inbound({ from: '+14155550408', body: 'hi on sms' });
    const [sent] = await h.replies(1);
    expect(sent).toMatchObject({ to: '+14155550408', from: HERALD_SMS_NUMBER, body: 'This is bold and this is italic.' });
  });

  it('replies only from its configured senders, whatever number the webhook says was written to', async () => {
    // A webhook's To is not proof of anything Herald was configured with (a misrouted number,
    // a forged webhook signed with a leaked token): sending from it is refused by design.
    const h = await startAnswering('Hello from the configured number.');
    await h.inbound({ from: '+14155550409', body: 'hi', to: '+15005550009' });
    const [sent] = await h.replies(1);
    expect(sent).toMatchObject({ to: '+14155550409', from: HERALD_SMS_NUMBER });
    h.anthropic.enqueue({ text: 'And on WhatsApp.' });
    await h.inbound({ from: 'whatsapp:+14155550409', body: 'hi', to: 'whatsapp:+15005550009' });
    const [, viaWhatsApp] = await h.replies(2);
    expect(viaWhatsApp).toMatchObject({ to: 'whatsapp:+14155550409', from: HERALD_WHATSAPP_NUMBER });
    expect(h.twilio.messages.map((message) => message.from)).not.toContain('+15005550009');
  });

  it('knows one phone number over SMS and WhatsApp as one user, and answers each on its own channel', async () => {
    const h = await startAnswering('Hi on SMS.');
    await h.inbound({ from: '+14155550410', body: 'sms first' });
    const [viaSms] = await h.replies(1);
    h.anthropic.enqueue({ text: 'Hi on *WhatsApp*.' });
    await h.inbound({ from: 'whatsapp:+14155550410', body: 'now whatsapp' });
    const [, viaWhatsApp] = await h.replies(2);

    expect(viaSms).toMatchObject({ to: '+14155550410', from: HERALD_SMS_NUMBER });
    expect(viaWhatsApp).toMatchObject({ to: 'whatsapp:+14155550410', from: HERALD_WHATSAPP_NUMBER });
    const users = await h.database.prisma.user.findMany();
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ phone: '+14155550410', preferredChannel: 'whatsapp' });
    expect(users[0]?.lastWhatsappInboundAt).toBeInstanceOf(Date);
    // The WhatsApp turn saw the SMS conversation: one user, one history.
    expect(h.anthropic.requests[1]?.allText()).toContain('sms first');
    expect(h.anthropic.requests[1]?.allText()).toContain('Hi on SMS.');
  });
});

/** A transport whose real target is set after construction. */
class LateBoundTransport implements MessageTransport {
  readonly name = 'twilio' as const;
  /** Takes the first send only, when set. */
  first: MessageTransport | undefined;
  target: MessageTransport | undefined;

  send(message: TransportMessage): Promise<TransportResult> {
    const next = this.first ?? this.target;
    this.first = undefined;
    if (!next) throw new Error('LateBoundTransport: no target yet');
    return next.send(message);
  }

  findSent(query: SentMessageQuery): Promise<SentMessageLookup> {
    if (!this.target?.findSent) throw new Error('LateBoundTransport: no target yet');
    return this.target.findSent(query);
  }
}
