import { afterEach, describe, expect, it } from 'vitest';
import type { OutboundMessage } from '../../src/generated/prisma/client.js';
import { TwilioTransport } from '../../src/outbox/twilio-transport.js';
import { ManualClock } from '../../src/shared/clock.js';
import { eventually } from '../helpers/eventually.js';
import { HeraldHarness, type HarnessOptions } from '../helpers/herald-harness.js';
import { parseScrape, sampleValue } from '../observability/scrape.js';

/**
 * Issue 31, items 3 and 4: a text once sent is never lost, and never sent twice. Real Herald
 * (the webhook, the turn path, the outbox, pg-boss, Postgres) against the fake Twilio switched
 * to failing as Twilio's API does in an incident: answering 500, refusing connections, taking
 * a message but losing the answer.
 *
 * Herald's clock is a ManualClock in the past where retry times matter: pg-boss compares a
 * job's start time with the database's clock, so the retry jobs Herald schedules are due at
 * once, while a part waits for its retry time until the test moves the clock past it. No
 * sleeps: the test waits on Twilio's requests and on rows.
 */

const METRICS_TOKEN = 'outage-metrics-token';

describe('delivery through a Twilio outage', () => {
  const harnesses: HeraldHarness[] = [];

  afterEach(async () => {
    // Later harnesses share the first one's database: close them first.
    for (const harness of harnesses.reverse()) await harness.close();
    harnesses.length = 0;
  });

  /** A Herald whose model answers "Re: <the user's words>" to every message. */
  async function start(options: HarnessOptions = {}): Promise<HeraldHarness> {
    const h = await HeraldHarness.start({ ...options, env: { METRICS_TOKEN, ...options.env } });
    harnesses.push(h);
    h.anthropic.setFallback((request) => ({ text: `Re: ${/(?:hello|and also) \d+/.exec(request.lastUserText())?.[0] ?? 'something'}` }));
    return h;
  }

  async function rows(h: HeraldHarness): Promise<OutboundMessage[]> {
    return h.database.prisma.outboundMessage.findMany({ orderBy: { sequence: 'asc' } });
  }

  /** Waits until `count` parts wait for a retry time (the clock standing, nothing more is tried). */
  function waiting(h: HeraldHarness, count: number, attempts = 5): Promise<OutboundMessage[]> {
    return eventually(async () => {
      const parts = (await rows(h)).filter((part) => part.status === 'pending' && part.attempts >= attempts);
      return parts.length >= count ? parts : undefined;
    }, `${count} part(s) waiting for their retry`);
  }

  const bodiesTo = (h: HeraldHarness, to: string) => h.twilio.messages.filter((message) => message.to === to).map((message) => message.body);

  it('Twilio answering 500 for a while: every reply goes once it is back, each once, in order, the late ones saying sorry', async () => {
    const clock = new ManualClock();
    const h = await start({ clock });
    h.twilio.setMessageFault({ kind: 'error', failure: { status: 500 } });
    const [ana, ben, cy] = ['+14155550601', '+14155550602', '+14155550603'];
    for (const [index, from] of [ana!, ben!, cy!].entries()) await h.inbound({ from, body: `hello ${index + 1}` });
    await waiting(h, 3);

    // While it waits: Ana writes again (her turn waits behind her reply), and Ben is sent a
    // notice (it waits behind his reply; his drain is scheduled for the reply's retry time).
    await h.inbound({ from: ana!, body: 'and also 4' });
    const benUser = await h.database.prisma.user.findUniqueOrThrow({ where: { phone: ben! } });
    const notice = await h.database.prisma.$transaction((transaction) =>
      h.herald.outbox.stage(transaction, { userId: benUser.id, kind: 'system', channel: 'sms', toAddress: ben!, text: 'A notice for Ben.' }),
    );
    expect((await h.herald.outbox.flushGroup(notice.groupId)).kind).toBe('retry_later');
    const failedSoFar = h.twilio.requests.length;
    expect(h.twilio.messages).toHaveLength(0);

    // Three minutes later (past REPLY_LATE_NOTE_AFTER_MS, two by default) Twilio is back.
    clock.advance(3 * 60_000);
    h.twilio.setMessageFault(undefined);
    await h.twilio.waitForMessages(5);
    for (const phone of [ana!, ben!, cy!]) await h.idle(phone);

    expect(bodiesTo(h, ana!)).toEqual(['Sorry for the delay - Re: hello 1', 'Re: and also 4']);
    expect(bodiesTo(h, ben!)).toEqual(['Sorry for the delay - Re: hello 2', 'A notice for Ben.']);
    expect(bodiesTo(h, cy!)).toEqual(['Sorry for the delay - Re: hello 3']);
    // Each once: one accepted request per message once Twilio was back.
    expect(h.twilio.requests.slice(failedSoFar).map((request) => request.status)).toEqual([201, 201, 201, 201, 201]);
    const parts = await rows(h);
    expect(parts.map((part) => part.status)).toEqual(parts.map(() => 'queued'));
    expect(new Set(parts.map((part) => part.twilioSid)).size).toBe(5);
  });

  it('Twilio refusing connections for a while: every reply goes once it listens again, none twice', async () => {
    const clock = new ManualClock();
    const h = await start({ clock });
    await h.twilio.refuseConnections();
    const phones = ['+14155550611', '+14155550612'];
    for (const [index, from] of phones.entries()) await h.inbound({ from, body: `hello ${index + 1}` });
    await waiting(h, 2);
    expect((await rows(h)).every((part) => /ECONNREFUSED|socket hang up|ECONNRESET|look the message up/.test(part.errorMessage ?? ''))).toBe(true);

    await h.twilio.acceptConnections();
    clock.advance(1_000);
    await h.twilio.waitForMessages(2);
    for (const phone of phones) await h.idle(phone);
    expect(bodiesTo(h, phones[0]!)).toEqual(['Re: hello 1']);
    expect(bodiesTo(h, phones[1]!)).toEqual(['Re: hello 2']);
    expect(h.twilio.messages).toHaveLength(2);
  });

  it('past the retry window: failed, logged at error, counted, and never sent after Twilio is back', async () => {
    const clock = new ManualClock();
    const h = await start({ clock });
    h.twilio.setMessageFault({ kind: 'error', failure: { status: 503 } });
    await h.inbound({ from: '+14155550621', body: 'hello 1' });
    await waiting(h, 1);

    clock.advance(60 * 60_000); // OUTBOX_RETRY_FOR_MS: an hour by default
    const [given] = await eventually(async () => {
      const failed = (await rows(h)).filter((part) => part.status === 'failed');
      return failed.length > 0 ? failed : undefined;
    }, 'the reply given up');
    expect(given).toMatchObject({ errorCode: 20503, nextAttemptAt: null });
    expect(given?.errorMessage).toMatch(/^gave up after 60 min \(6 attempts\)/);
    const logged = h.logs.lines.find((line) => line.msg?.startsWith('outbound part given up'));
    expect(logged).toMatchObject({ level: 50, outboundId: given?.id, errorCode: 20503 });
    const scrape = await h.herald.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(sampleValue(parseScrape(scrape.body), 'herald_outbox_sends_total', { status: 'expired', channel: 'sms', error_code: '20503' })).toBe(1);

    h.twilio.setMessageFault(undefined);
    clock.advance(60_000);
    await h.settle();
    expect(h.twilio.messages).toHaveLength(0);
    expect(h.twilio.requests).toHaveLength(6);
  });

  it('a permanent error in the middle of an outage ends it: not retried', async () => {
    const h = await start({ clock: new ManualClock() });
    h.twilio.failNext({ status: 503 }, { status: 500 }, { status: 400, code: 21610, message: 'Attempt to send to unsubscribed recipient' });
    await h.inbound({ from: '+14155550631', body: 'hello 1' });
    const [part] = await eventually(async () => {
      const failed = (await rows(h)).filter((row) => row.status === 'failed');
      return failed.length > 0 ? failed : undefined;
    }, 'the reply failed');
    await h.settle();
    expect(part).toMatchObject({ errorCode: 21610, attempts: 3 });
    expect(h.twilio.requests.map((request) => request.status)).toEqual([503, 500, 400]);
    expect(h.twilio.messages).toHaveLength(0);
  });

  it('Twilio taking messages but losing the answers (a reset, a timeout): each found at Twilio and never sent twice; one that never reached it is sent again, once', async () => {
    const h = await start({ env: { TWILIO_TIMEOUT_MS: '1000' } });
    const phones = ['+14155550641', '+14155550642', '+14155550643'];
    h.twilio.setMessageFault({ kind: 'drop-answer', how: 'reset' }, { times: 3 });
    for (const [index, from] of phones.entries()) await h.inbound({ from, body: `hello ${index + 1}` });
    for (const phone of phones) await h.idle(phone);

    for (const [index, phone] of phones.entries()) expect(bodiesTo(h, phone)).toEqual([`Re: hello ${index + 1}`]);
    // Three creates, each taken, each answer lost; no fourth: every one was found by the look-up.
    expect(h.twilio.requests).toHaveLength(3);
    expect(h.twilio.lookups.length).toBeGreaterThanOrEqual(3);
    const parts = await rows(h);
    expect(parts.map((part) => part.twilioSid).sort()).toEqual(h.twilio.messages.map((message) => message.sid).sort());
    expect(parts.every((part) => part.status === 'sent' && part.unknownSince instanceof Date && part.attempts === 2)).toBe(true);

    // No answer at all, until the client gives up: the same.
    h.twilio.setMessageFault({ kind: 'drop-answer', how: 'hang' }, { times: 1 });
    await h.inbound({ from: '+14155550644', body: 'hello 4' });
    await h.idle('+14155550644');
    expect(bodiesTo(h, '+14155550644')).toEqual(['Re: hello 4']);
    expect(h.twilio.requests).toHaveLength(4);

    // The connection reset before Twilio took it: not there, so sent again, once.
    h.twilio.setMessageFault({ kind: 'reset-before' }, { times: 1 });
    await h.inbound({ from: '+14155550645', body: 'hello 5' });
    await h.idle('+14155550645');
    expect(bodiesTo(h, '+14155550645')).toEqual(['Re: hello 5']);
    expect(h.twilio.requests.slice(4).map((request) => request.status)).toEqual([null, 201]);
  });

  it('a restart in the middle (a new Herald over the same database) still delivers: the waiting reply once, the one whose answer was lost found, not resent', async () => {
    const clock = new ManualClock();
    const first = await start({ clock });
    const twilio = first.twilio;
    twilio.setMessageFault({ kind: 'error', failure: { status: 503 } });
    await first.inbound({ from: '+14155550651', body: 'hello 1' });
    await waiting(first, 1);

    // The second user's reply is taken but its answer lost; Twilio then goes away, so the
    // look-ups fail and the part waits, its outcome unknown, when the instance stops.
    twilio.setMessageFault({ kind: 'drop-answer', how: 'reset' }, { times: 1 });
    const taken = twilio.waitForMessages(1);
    await first.inbound({ from: '+14155550652', body: 'hello 2' });
    await taken;
    await twilio.refuseConnections();
    const unsure = await eventually(async () => (await rows(first)).find((part) => part.unknownSince !== null && part.status === 'pending' && part.attempts >= 5), 'the unsure part waiting');
    await first.herald.stop(0);

    // A new instance: same database, same Twilio, which is back.
    await twilio.acceptConnections();
    twilio.setMessageFault(undefined);
    const second = await start({
      clock,
      database: first.database,
      transport: new TwilioTransport({ accountSid: twilio.accountSid, authToken: twilio.authToken, apiBaseUrl: twilio.url }),
    });
    clock.advance(1_000);
    await twilio.waitForMessages(2);
    for (const phone of ['+14155550651', '+14155550652']) await second.idle(phone);

    expect(bodiesTo(first, '+14155550651')).toEqual(['Re: hello 1']);
    expect(bodiesTo(first, '+14155550652')).toEqual(['Re: hello 2']);
    expect(twilio.messages).toHaveLength(2);
    expect(await second.database.prisma.outboundMessage.findUniqueOrThrow({ where: { id: unsure.id } })).toMatchObject({ status: 'sent', twilioSid: twilio.messages[0]?.sid });
  });
});
