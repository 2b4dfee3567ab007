import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../src/db/prisma-types.js';
import type { OutboundMessage } from '../../src/generated/prisma/client.js';
import { createLogger } from '../../src/logging/logger.js';
import type { MessageTransport, SentMessageLookup, SentMessageQuery, TransportMessage, TransportResult } from '../../src/outbox/message-transport.js';
import type { OutboxDependencies, OutboxSendEvent } from '../../src/outbox/outbox-dependencies.js';
import { addressFor, outboundBodies, type OutboundDraft } from '../../src/outbox/outbound-draft.js';
import { OutboxService } from '../../src/outbox/outbox-service.js';
import { CLAIM_PART } from '../../src/outbox/outbox-statements.js';
import { PartDelivery } from '../../src/outbox/part-delivery.js';
import { ManualClock } from '../../src/shared/clock.js';
import { randomIds } from '../../src/shared/ids.js';
import { UserService } from '../../src/users/user-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * One outbox part's delivery at its edges (PartDelivery, on real Postgres, a ManualClock and a
 * scripted Twilio): what `deliver` answers (sent, retry later, in flight, failed for good) and
 * when; the in-process wait limit and the retry window at their exact boundaries; the time a
 * claim is taken at; what a part another sender holds is taken to be (re-read: being sent,
 * waiting, failed, sent, gone); the look-up of a send whose outcome is unknown (found, failed,
 * not found, a match already another part's, a race for the same sid, a transport that cannot
 * look up); the sender of each channel; a reply's refused buttons falling back to text; the late
 * note under SMS_MAX_SEGMENTS; and what operators see of it: the send events and the log lines.
 */

const T0 = '2030-05-06T09:00:00.000Z';
const SMS_FROM = '+15005550006';
const WHATSAPP_FROM = 'whatsapp:+14155238886';
const unavailable: TransportResult = { ok: false, retryable: true, httpStatus: 503, errorCode: 20503, message: 'Service Unavailable' };
const lost: TransportResult = { ok: false, retryable: true, message: 'socket hang up', outcomeUnknown: true };
const unsubscribed: TransportResult = { ok: false, retryable: false, httpStatus: 400, errorCode: 21610, message: 'unsubscribed' };
const lookupDown: SentMessageLookup = { kind: 'failed', message: 'Twilio answered 503' };
const sid = (letter: string) => 'SM' + letter.repeat(32);

/** A transport that answers from a script (default: accepted) and records every send and look-up. */
class ScriptedTransport implements MessageTransport {
  readonly calls: TransportMessage[] = [];
  readonly script: Array<TransportResult | ((message: TransportMessage) => Promise<TransportResult>)> = [];
  readonly lookups: SentMessageQuery[] = [];
  readonly lookupScript: SentMessageLookup[] = [];

  constructor(readonly name: 'twilio' | 'console' = 'twilio') {}

  async send(message: TransportMessage): Promise<TransportResult> {
    this.calls.push(message);
    const next = this.script.shift();
    if (typeof next === 'function') return next(message);
    return next ?? { ok: true, sid: 'SM' + randomUUID().replaceAll('-', ''), status: 'queued' };
  }

  async findSent(query: SentMessageQuery): Promise<SentMessageLookup> {
    this.lookups.push(query);
    return this.lookupScript.shift() ?? { kind: 'not_found' };
  }
}

interface LogLine {
  msg: string;
  [key: string]: unknown;
}

describe('part delivery: outcomes, boundaries and look-ups', () => {
  let database: TestDatabase;
  let users: UserService;
  let phoneCounter = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    users = new UserService(database.prisma, { now: () => new Date() });
  });
  afterAll(async () => {
    await database.drop();
  });

  function setup(
    options: {
      retryForMs?: number;
      inlineWaitLimitMs?: number;
      lateNoteAfterMs?: number;
      smsMaxSegments?: number;
      senders?: OutboxDependencies['senders'];
      transport?: MessageTransport;
      /** Without: no onSend observer at all. */
      observe?: boolean;
      onContentRefused?: (contentSid: string) => void;
      /** How much longer than asked each in-process wait lasts (a busy event loop). */
      oversleepMs?: number;
      prisma?: PrismaClient;
      pool?: pg.Pool;
    } = {},
  ) {
    const clock = new ManualClock(T0);
    const scripted = new ScriptedTransport();
    const waits: number[] = [];
    const events: OutboxSendEvent[] = [];
    const logs: LogLine[] = [];
    const deps: OutboxDependencies = {
      prisma: options.prisma ?? database.prisma,
      pool: options.pool ?? database.pool,
      transport: options.transport ?? scripted,
      users,
      clock,
      ids: randomIds,
      // What an operator reads: every line, parsed.
      logger: createLogger({ level: 'debug', destination: { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) } }),
      policy: { retryForMs: options.retryForMs ?? 3_600_000, baseDelayMs: 100, maxDelayMs: 1_000 },
      senders: options.senders ?? { sms: SMS_FROM, whatsapp: WHATSAPP_FROM },
      statusCallbackUrl: 'https://herald.test/twilio/status',
      ...(options.inlineWaitLimitMs !== undefined ? { inlineWaitLimitMs: options.inlineWaitLimitMs } : {}),
      ...(options.lateNoteAfterMs !== undefined ? { lateNoteAfterMs: options.lateNoteAfterMs } : {}),
      ...(options.smsMaxSegments !== undefined ? { smsMaxSegments: options.smsMaxSegments } : {}),
      ...(options.onContentRefused ? { onContentRefused: options.onContentRefused } : {}),
      ...(options.observe === false ? {} : { onSend: (event: OutboxSendEvent) => void events.push(event) }),
      sleep: async (milliseconds) => {
        waits.push(milliseconds);
        clock.advance(milliseconds + (options.oversleepMs ?? 0));
      },
      random: () => 1,
    };
    const statuses = () => events.map((event) => event.status);
    const logged = (message: string) => logs.find((line) => line.msg === message);
    return { delivery: new PartDelivery(deps), outbox: new OutboxService(deps), transport: scripted, clock, waits, events, statuses, logs, logged };
  }
  type Setup = ReturnType<typeof setup>;

  async function newUser() {
    phoneCounter += 1;
    const phone = `+1415556${String(1000 + phoneCounter).padStart(4, '0')}`;
    return database.prisma.user.create({ data: { phone, timezone: 'UTC', updatedAt: new Date() } });
  }

  /** Stages one message for a new user (a one-part SMS reply unless told) and returns its first part as stored. */
  async function stagedPart(h: Setup, draft: Partial<OutboundDraft> = {}) {
    const user = await newUser();
    const channel = draft.channel ?? 'sms';
    const { groupId } = await database.prisma.$transaction((transaction) =>
      h.outbox.stage(transaction, { userId: user.id, kind: 'reply', channel, toAddress: addressFor(user.phone, channel), text: 'hello there', ...draft }),
    );
    const part = await database.prisma.outboundMessage.findFirstOrThrow({ where: { groupId }, orderBy: { partIndex: 'asc' } });
    return { user, part };
  }

  const row = (id: string) => database.prisma.outboundMessage.findUniqueOrThrow({ where: { id } });
  /** As an earlier attempt whose answer was lost leaves a part: pending, looked up before any resend. */
  const markUnknown = (part: OutboundMessage, since: Date) => database.prisma.outboundMessage.update({ where: { id: part.id }, data: { unknownSince: since } });
  const at = (offsetMs: number) => new Date(new Date(T0).getTime() + offsetMs);

  describe('what a send comes to', () => {
    it('a part Twilio accepts is sent: the outcome says so, one "sent" event, a log line with the part\'s ids', async () => {
      const h = setup();
      const { user, part } = await stagedPart(h);
      expect(await h.delivery.deliver(part)).toEqual({ kind: 'sent' });
      expect(h.statuses()).toEqual(['sent']);
      expect(h.logged('outbound part sent')).toMatchObject({ outboundId: part.id, userId: user.id, part: 0, attempts: 1, kind: 'reply' });
    });

    it("a status Twilio names that Herald does not know is stored as queued, not lost", async () => {
      const h = setup();
      const { part } = await stagedPart(h);
      h.transport.script.push({ ok: true, sid: sid('q'), status: 'mystery' });
      await h.delivery.deliver(part);
      expect(await row(part.id)).toMatchObject({ status: 'queued', twilioSid: sid('q') });
    });

    it('a permanent error fails the part for good: its code in the outcome, a "failed" event, a warning, and a long message cut at 500 characters', async () => {
      const h = setup();
      const { part } = await stagedPart(h);
      h.transport.script.push({ ...unsubscribed, message: 'x'.repeat(600) });
      expect(await h.delivery.deliver(part)).toEqual({ kind: 'permanent_failure', errorCode: 21610 });
      expect(h.statuses()).toEqual(['failed']);
      expect(h.logged('outbound part failed permanently; not retrying')).toMatchObject({ errorCode: 21610, httpStatus: 400 });
      expect(await row(part.id)).toMatchObject({ status: 'failed', errorCode: 21610, errorMessage: 'x'.repeat(500), nextAttemptAt: null });
    });

    it('a transient error sets the part back: a "retrying" event, a warning that names the error, a long message cut at 500 characters', async () => {
      const h = setup({ inlineWaitLimitMs: 0 });
      const { part } = await stagedPart(h);
      h.transport.script.push({ ...unavailable, message: 'y'.repeat(600) });
      expect(await h.delivery.deliver(part)).toEqual({ kind: 'retry_later', at: at(100) });
      expect(h.statuses()).toEqual(['retrying']);
      expect(h.logged('outbound part failed; will retry')).toMatchObject({ errorCode: 20503, httpStatus: 503, kind: 'reply', outcomeUnknown: false, retryInMs: 100 });
      expect(await row(part.id)).toMatchObject({ status: 'pending', nextAttemptAt: at(100), errorCode: 20503, errorMessage: 'y'.repeat(500) });
    });

    it('a send whose answer was lost is logged as of unknown outcome', async () => {
      const h = setup({ inlineWaitLimitMs: 0 });
      const { part } = await stagedPart(h);
      h.transport.script.push(lost);
      expect((await h.delivery.deliver(part)).kind).toBe('retry_later');
      expect(h.logged('outbound part failed; will retry')).toMatchObject({ outcomeUnknown: true });
    });

    it('without an onSend observer, sending, a look-up that finds the part and a look-up that gives up all still work', async () => {
      const h = setup({ observe: false, retryForMs: 10_000 });
      const { part: plain } = await stagedPart(h);
      expect(await h.delivery.deliver(plain)).toEqual({ kind: 'sent' });

      const { part: found } = await stagedPart(h);
      await markUnknown(found, h.clock.now());
      h.transport.lookupScript.push({ kind: 'found', matches: [{ sid: sid('n'), status: 'sent' }] });
      expect(await h.delivery.deliver(await row(found.id))).toEqual({ kind: 'sent' });

      const { part: expired } = await stagedPart(h);
      await markUnknown(expired, h.clock.now());
      h.clock.advance(10_000);
      h.transport.lookupScript.push(lookupDown);
      expect(await h.delivery.deliver(await row(expired.id))).toEqual({ kind: 'permanent_failure' });
      expect(h.transport.calls).toHaveLength(1);
    });
  });

  describe('the retry window (OUTBOX_RETRY_FOR_MS), counted from when the part was written', () => {
    it('a failure exactly at the end of the window gives up, loudly; one a millisecond earlier is retried', async () => {
      const h = setup({ retryForMs: 10_000, inlineWaitLimitMs: 0 });
      const { part: early } = await stagedPart(h);
      const { part: onTime } = await stagedPart(h);
      h.transport.script.push(unavailable, unavailable);

      h.clock.set(at(9_999));
      expect(await h.delivery.deliver(early)).toEqual({ kind: 'retry_later', at: at(9_999 + 100) });

      h.clock.set(at(10_000));
      expect(await h.delivery.deliver(onTime)).toEqual({ kind: 'permanent_failure' });
      // One "expired" event for it: not one from the attempt and another for the give-up.
      expect(h.statuses()).toEqual(['retrying', 'expired']);
      expect(h.logged('outbound part given up: Twilio kept failing for the whole retry window (OUTBOX_RETRY_FOR_MS)')).toMatchObject({
        waitedMs: 10_000,
        errorCode: 20503,
        outcomeUnknown: false,
      });
      expect(await row(onTime.id)).toMatchObject({ status: 'failed', errorCode: 20503, errorMessage: 'gave up after 10 s (1 attempts): Service Unavailable', nextAttemptAt: null });
    });

    it('says a wait of exactly a minute in minutes', async () => {
      const h = setup({ retryForMs: 60_000 });
      const { part } = await stagedPart(h);
      h.transport.script.push(unavailable);
      h.clock.set(at(60_000));
      await h.delivery.deliver(part);
      expect((await row(part.id)).errorMessage).toBe('gave up after 1 min (1 attempts): Service Unavailable');
    });

    it('a look-up that fails at the end of the window gives up with one "expired" event, and nothing is sent blind', async () => {
      const h = setup({ retryForMs: 10_000 });
      const { part } = await stagedPart(h);
      await markUnknown(part, h.clock.now());
      h.transport.lookupScript.push(lookupDown);
      h.clock.set(at(10_000));
      expect(await h.delivery.deliver(await row(part.id))).toEqual({ kind: 'permanent_failure' });
      expect(h.events).toEqual([expect.objectContaining({ status: 'expired', errorCode: undefined })]);
      expect(h.transport.calls).toHaveLength(0);
      expect(await row(part.id)).toMatchObject({
        status: 'failed',
        errorMessage: 'gave up after 10 s (1 attempts): could not look the message up at Twilio: Twilio answered 503',
      });
    });
  });

  describe('waiting in-process (inlineWaitLimitMs) or handing the part back', () => {
    it('a backoff exactly at the limit is waited in-process; the part goes on the next attempt', async () => {
      const h = setup({ inlineWaitLimitMs: 100 });
      const { part } = await stagedPart(h);
      h.transport.script.push(unavailable);
      expect(await h.delivery.deliver(part)).toEqual({ kind: 'sent' });
      expect(h.waits).toEqual([100]);
      expect(h.transport.calls).toHaveLength(2);
    });

    it('by default up to 2 s is waited in-process, a millisecond more is handed back', async () => {
      const h = setup();
      const { part: waited } = await stagedPart(h);
      h.transport.script.push({ ...unavailable, httpStatus: 429, errorCode: 20429, retryAfterMs: 2_000 });
      expect(await h.delivery.deliver(waited)).toEqual({ kind: 'sent' });
      expect(h.waits).toEqual([2_000]);

      const { part: handedBack } = await stagedPart(h);
      h.transport.script.push({ ...unavailable, httpStatus: 429, errorCode: 20429, retryAfterMs: 2_001 });
      expect(await h.delivery.deliver(handedBack)).toEqual({ kind: 'retry_later', at: new Date(h.clock.now().getTime() + 2_001) });
      expect(h.waits).toEqual([2_000]);
    });

    it('a part written claimed: sent or failed for good, nothing is waited; a backoff at the limit is waited, then it goes', async () => {
      const h = setup({ inlineWaitLimitMs: 100 });
      const write = async () => {
        const user = await newUser();
        const message = h.outbox.claimed({ userId: user.id, kind: 'reminder', channel: 'sms', toAddress: user.phone, text: 'take the pills' });
        await database.prisma.outboundMessage.createMany({ data: message.parts.map(({ contentVariables: _variables, ...part }) => ({ ...part, groupId: message.groupId })) });
        return message.parts[0]!;
      };
      expect(await h.delivery.deliverClaimed(await write())).toEqual({ kind: 'sent' });
      h.transport.script.push(unsubscribed);
      expect(await h.delivery.deliverClaimed(await write())).toEqual({ kind: 'permanent_failure', errorCode: 21610 });
      expect(h.waits).toEqual([]);

      h.transport.script.push(unavailable);
      const retried = await write();
      expect(await h.delivery.deliverClaimed(retried)).toEqual({ kind: 'sent' });
      expect(h.waits).toEqual([100]);
      expect(await row(retried.id)).toMatchObject({ status: 'queued', attempts: 2 });
    });

    it('after a wait that overran (a busy process), the claim runs from the real now, not from the retry time', async () => {
      const h = setup({ oversleepMs: 5_000 });
      const { part } = await stagedPart(h);
      const claimLapses: Array<Date | null> = [];
      h.transport.script.push(unavailable, async () => {
        claimLapses.push((await row(part.id)).nextAttemptAt);
        return { ok: true, sid: sid('o'), status: 'queued' };
      });
      expect(await h.delivery.deliver(part)).toEqual({ kind: 'sent' });
      // Retry due at T0+100 ms, but the clock read T0+5.1 s when it was claimed: another sender may take it over a minute after that.
      expect(claimLapses).toEqual([at(5_100 + 60_000)]);
    });
  });

  describe('a part another sender holds, or has dealt with', () => {
    it('read as waiting for its retry: not tried before its time; read as being sent: left to its sender until its claim lapses', async () => {
      const h = setup();
      const { part: waiting } = await stagedPart(h);
      expect(await h.delivery.deliver({ ...waiting, nextAttemptAt: at(30_000) })).toEqual({ kind: 'retry_later', at: at(30_000) });

      const { part: held } = await stagedPart(h);
      const dispatching = await database.prisma.outboundMessage.update({ where: { id: held.id }, data: { status: 'dispatching', statusRank: 1, attempts: 1, nextAttemptAt: at(60_000) } });
      expect(await h.delivery.deliver(dispatching)).toEqual({ kind: 'in_flight', at: at(60_000) });
      expect(h.transport.calls).toHaveLength(0);
      expect((await row(held.id)).attempts).toBe(1);
    });

    /** Delivers a part read as pending and due, whose row another sender has since changed to `now`. */
    async function deliverStale(h: Setup, now: Partial<Pick<OutboundMessage, 'status' | 'statusRank' | 'attempts' | 'nextAttemptAt' | 'errorCode' | 'twilioSid'>> | 'deleted') {
      const { part } = await stagedPart(h);
      if (now === 'deleted') await database.prisma.outboundMessage.delete({ where: { id: part.id } });
      else await database.prisma.outboundMessage.update({ where: { id: part.id }, data: now });
      const outcome = await h.delivery.deliver(part);
      expect(h.transport.calls).toHaveLength(0);
      return outcome;
    }

    it('being sent right now: in flight, looked at again in 2 s', async () => {
      const h = setup();
      expect(await deliverStale(h, { status: 'dispatching', statusRank: 1, attempts: 1, nextAttemptAt: at(60_000) })).toEqual({ kind: 'in_flight', at: at(2_000) });
    });

    it('waiting for a retry another sender set: retried at that time', async () => {
      const h = setup();
      expect(await deliverStale(h, { status: 'pending', attempts: 1, nextAttemptAt: at(30_000), errorCode: 20503 })).toEqual({ kind: 'retry_later', at: at(30_000) });
    });

    it('failed or dropped by another sender: failed for good, with its error code when it has one', async () => {
      const h = setup();
      expect(await deliverStale(h, { status: 'failed', statusRank: 7, errorCode: 21610 })).toEqual({ kind: 'permanent_failure', errorCode: 21610 });
      expect(await deliverStale(h, { status: 'undeliverable', statusRank: 7, errorCode: 21211 })).toEqual({ kind: 'permanent_failure', errorCode: 21211 });
      const noCode = await deliverStale(h, { status: 'undeliverable', statusRank: 7, errorCode: null });
      expect(noCode).toEqual({ kind: 'permanent_failure', errorCode: undefined });
      expect(noCode).not.toHaveProperty('errorCode', null);
    });

    it('sent by another sender, or gone (its user erased): done, the parts after it may go', async () => {
      const h = setup();
      expect(await deliverStale(h, { status: 'queued', statusRank: 4, twilioSid: sid('s') })).toEqual({ kind: 'sent' });
      expect(await deliverStale(h, { status: 'delivered', statusRank: 7, twilioSid: sid('t') })).toEqual({ kind: 'sent' });
      expect(await deliverStale(h, 'deleted')).toEqual({ kind: 'sent' });
    });

    /**
     * A part held by another sender, which puts it back pending (retry at `retryAt`) just after
     * this sender's claim failed: the re-read sees it pending with a retry time that has come,
     * or none; this sender looks again a second later rather than at once or in the past.
     */
    async function putBackMeanwhile(retryAt: (now: Date) => Date | null) {
      let putBack: (() => Promise<unknown>) | undefined;
      const pool = {
        query: async (config: pg.QueryConfig) => {
          const result = await database.pool.query(config);
          if (config.text === CLAIM_PART && putBack) await putBack();
          return result;
        },
      } as unknown as pg.Pool;
      const h = setup({ pool });
      const { part } = await stagedPart(h);
      await database.prisma.outboundMessage.update({ where: { id: part.id }, data: { status: 'dispatching', statusRank: 1, attempts: 1, nextAttemptAt: at(60_000) } });
      putBack = () => database.prisma.outboundMessage.update({ where: { id: part.id }, data: { status: 'pending', statusRank: 0, nextAttemptAt: retryAt(h.clock.now()) } });
      const outcome = await h.delivery.deliver(part);
      expect(h.transport.calls).toHaveLength(0);
      return outcome;
    }

    it('put back pending meanwhile with no retry time, one already past, or one just now: looked at again in 1 s', async () => {
      expect(await putBackMeanwhile(() => null)).toEqual({ kind: 'retry_later', at: at(1_000) });
      expect(await putBackMeanwhile((now) => new Date(now.getTime() - 5_000))).toEqual({ kind: 'retry_later', at: at(1_000) });
      expect(await putBackMeanwhile((now) => now)).toEqual({ kind: 'retry_later', at: at(1_000) });
    });
  });

  describe('a send whose outcome is unknown, looked up at Twilio first', () => {
    it('found: recorded with that sid, never sent again; the outcome, a "sent" event and a log line say so', async () => {
      const h = setup();
      const { part } = await stagedPart(h);
      await markUnknown(part, at(0));
      h.transport.lookupScript.push({ kind: 'found', matches: [{ sid: sid('f'), status: 'delivered' }] });
      expect(await h.delivery.deliver(await row(part.id))).toEqual({ kind: 'sent' });
      expect(h.transport.calls).toHaveLength(0);
      expect(h.events).toEqual([expect.objectContaining({ status: 'sent' })]);
      expect(h.logged('outbound part found at Twilio after an unknown outcome; recorded as sent, not sent again')).toMatchObject({ twilioSid: sid('f') });
      expect(await row(part.id)).toMatchObject({ status: 'delivered', twilioSid: sid('f') });
    });

    it('no answer from the look-up: set back at least 1 s (Twilio\'s list may lag), why recorded, then looked up again before any send', async () => {
      const h = setup();
      const { part } = await stagedPart(h);
      await markUnknown(part, at(0));
      h.transport.lookupScript.push(lookupDown);
      const errors: Array<string | null> = [];
      h.transport.script.push(async () => {
        errors.push((await row(part.id)).errorMessage);
        return { ok: true, sid: sid('g'), status: 'queued' };
      });
      expect(await h.delivery.deliver(await row(part.id))).toEqual({ kind: 'sent' });
      // The first backoff would be 100 ms; a look-up waits for the list to catch up (the cap, 1 s, here).
      expect(h.waits).toEqual([1_000]);
      expect(h.transport.lookups).toHaveLength(2);
      expect(errors).toEqual(['could not look the message up at Twilio: Twilio answered 503']);
      expect(h.logged('could not look up at Twilio a send whose outcome is unknown; will look again')).toMatchObject({ error: 'Twilio answered 503' });
      expect(h.logged('a send whose outcome was unknown is not at Twilio; sending it again')).toMatchObject({ since: T0 });
    });

    it('a template is looked up by its variables, not a body', async () => {
      const h = setup();
      const { user, part } = await stagedPart(h, { kind: 'reminder', channel: 'whatsapp', text: 'Reminder: Call mom', template: { contentSid: 'HX' + '9'.repeat(32), variables: { 1: 'Call mom' } } });
      await markUnknown(part, at(0));
      await h.delivery.deliver(await row(part.id));
      expect(h.transport.lookups).toEqual([{ to: `whatsapp:${user.phone}`, from: WHATSAPP_FROM, since: at(0), contentVariables: { 1: 'Call mom' } }]);
    });

    it("Twilio's match already recorded on another part is that part's: this one is sent again at once", async () => {
      const h = setup();
      const { part: other } = await stagedPart(h);
      await database.prisma.outboundMessage.update({ where: { id: other.id }, data: { status: 'sent', statusRank: 6, twilioSid: sid('h') } });
      const { part } = await stagedPart(h);
      await markUnknown(part, at(0));
      h.transport.lookupScript.push({ kind: 'found', matches: [{ sid: sid('h'), status: 'sent' }] });
      expect(await h.delivery.deliver(await row(part.id))).toEqual({ kind: 'sent' });
      expect(h.transport.lookups).toHaveLength(1);
      expect(h.transport.calls).toHaveLength(1);
      expect(h.waits).toEqual([]);
      expect((await row(part.id)).twilioSid).not.toBe(sid('h'));
    });

    it("of two matches, the one no other part has is this part's", async () => {
      const h = setup();
      const { part: other } = await stagedPart(h);
      await database.prisma.outboundMessage.update({ where: { id: other.id }, data: { status: 'sent', statusRank: 6, twilioSid: sid('i') } });
      const { part } = await stagedPart(h);
      await markUnknown(part, at(0));
      h.transport.lookupScript.push({ kind: 'found', matches: [{ sid: sid('i'), status: 'sent' }, { sid: sid('j'), status: 'sent' }] });
      expect(await h.delivery.deliver(await row(part.id))).toEqual({ kind: 'sent' });
      expect(h.transport.calls).toHaveLength(0);
      expect((await row(part.id)).twilioSid).toBe(sid('j'));
    });

    it("a match already written on this very part is its own, not another part's", async () => {
      // A row put back to pending after its sid was written (by hand, say): Twilio's message is still this part.
      const h = setup();
      const { part } = await stagedPart(h);
      await database.prisma.outboundMessage.update({ where: { id: part.id }, data: { unknownSince: at(0), twilioSid: sid('k') } });
      h.transport.lookupScript.push({ kind: 'found', matches: [{ sid: sid('k'), status: 'sent' }] });
      expect(await h.delivery.deliver(await row(part.id))).toEqual({ kind: 'sent' });
      expect(h.transport.calls).toHaveLength(0);
      expect(await row(part.id)).toMatchObject({ status: 'sent', twilioSid: sid('k') });
    });

    it('a match another look-up records first (a race for the same sid): looked at again later, never sent blind', async () => {
      let other: OutboundMessage | undefined;
      let raced = false;
      // The other look-up writes the sid just after this one checked it was free.
      const prisma = database.prisma.$extends({
        query: {
          outboundMessage: {
            async findMany({ args, query }: { args: unknown; query: (args: unknown) => Promise<unknown> }) {
              const result = await query(args);
              if (!raced && other) {
                raced = true;
                await database.prisma.outboundMessage.update({ where: { id: other.id }, data: { status: 'sent', statusRank: 6, twilioSid: sid('r') } });
              }
              return result;
            },
          },
        },
      } as unknown as Parameters<PrismaClient['$extends']>[0]) as unknown as PrismaClient;
      const h = setup({ prisma, inlineWaitLimitMs: 0 });
      other = (await stagedPart(h)).part;
      const { part } = await stagedPart(h);
      await markUnknown(part, at(0));
      h.transport.lookupScript.push({ kind: 'found', matches: [{ sid: sid('r'), status: 'sent' }] });
      expect(await h.delivery.deliver(await row(part.id))).toEqual({ kind: 'retry_later', at: at(1_000) });
      expect(raced).toBe(true);
      expect(h.transport.calls).toHaveLength(0);
      const after = await row(part.id);
      expect(after).toMatchObject({ status: 'pending', twilioSid: null, unknownSince: at(0) });
      expect(after.errorMessage).toMatch(/^could not look the message up at Twilio: .+/);
    });

    it("a transport that cannot look up (the console's) sends again at once", async () => {
      const scripted = new ScriptedTransport('console');
      const h = setup({ transport: { name: 'console', send: (message) => scripted.send(message) } });
      const { part } = await stagedPart(h);
      await markUnknown(part, at(0));
      expect(await h.delivery.deliver(await row(part.id))).toEqual({ kind: 'sent' });
      expect(scripted.calls).toHaveLength(1);
    });
  });

  describe('the sender of each channel', () => {
    it('SMS, WhatsApp and RCS each from their own configured sender; RCS from the SMS sender when it has none', () => {
      const all = setup({ senders: { sms: SMS_FROM, whatsapp: WHATSAPP_FROM, rcs: 'MG' + '1'.repeat(32) } }).delivery;
      expect(all.senderFor('sms', '+15550001111')).toBe(SMS_FROM);
      expect(all.senderFor('whatsapp', 'whatsapp:+15550001111')).toBe(WHATSAPP_FROM);
      expect(all.senderFor('rcs', '+15550001111')).toBe('MG' + '1'.repeat(32));
      const noRcs = setup({ senders: { sms: SMS_FROM, whatsapp: WHATSAPP_FROM } }).delivery;
      expect(noRcs.senderFor('rcs', '+15550001111')).toBe(SMS_FROM);
    });

    it('an unconfigured channel: none on Twilio (a webhook cannot pick the sender), the address written to on the console, none without one', () => {
      expect(setup({ senders: {} }).delivery.senderFor('sms', '+15550001111')).toBeUndefined();
      const local = setup({ senders: {}, transport: new ScriptedTransport('console') }).delivery;
      expect(local.senderFor('sms', '+15550001111')).toBe('+15550001111');
      expect(local.senderFor('whatsapp', null)).toBeUndefined();
    });

    it('an RCS part goes from the Messaging Service', async () => {
      const h = setup({ senders: { sms: SMS_FROM, rcs: 'MG' + '2'.repeat(32) } });
      await h.delivery.deliver((await stagedPart(h, { channel: 'rcs' })).part);
      expect(h.transport.calls).toMatchObject([{ from: 'MG' + '2'.repeat(32) }]);
    });
  });

  describe("a reply's buttons Twilio refuses (21655, 21656)", () => {
    const buttons = (kind: OutboundDraft['kind'] = 'reply'): Partial<OutboundDraft> => ({
      kind,
      channel: 'whatsapp',
      text: 'Which day? **Tuesday** or **Wednesday**',
      template: { contentSid: 'HX' + 'b'.repeat(32), variables: { 1: 'Tuesday', 2: 'Wednesday' } },
    });
    const refusal = (errorCode: number, retryable = false): TransportResult => ({ ok: false, retryable, httpStatus: retryable ? 503 : 400, errorCode, message: 'refused' });

    it('an invalid content (21655): the reply goes as its text, formatted for the channel, and the content is forgotten', async () => {
      const refused: string[] = [];
      const h = setup({ onContentRefused: (contentSid) => void refused.push(contentSid) });
      const { user, part } = await stagedPart(h, buttons());
      h.transport.script.push(refusal(21655));
      expect(await h.delivery.deliver(part)).toEqual({ kind: 'sent' });
      const text = outboundBodies({ text: 'Which day? **Tuesday** or **Wednesday**', channel: 'whatsapp' })[0];
      expect(text).toBe('Which day? *Tuesday* or *Wednesday*');
      expect(h.transport.calls[1]).toEqual({ to: `whatsapp:${user.phone}`, from: WHATSAPP_FROM, statusCallback: 'https://herald.test/twilio/status', body: text });
      expect(refused).toEqual(['HX' + 'b'.repeat(32)]);
      expect(h.logged("Twilio refused the reply's buttons; sending it as text")).toMatchObject({ outboundId: part.id, errorCode: 21655 });
    });

    it('invalid variables (21656) fall back too, with nobody told of the content', async () => {
      const h = setup();
      const { part } = await stagedPart(h, buttons());
      h.transport.script.push(refusal(21656));
      expect(await h.delivery.deliver(part)).toEqual({ kind: 'sent' });
      expect(h.transport.calls.map((call) => call.contentSid ?? call.body)).toEqual(['HX' + 'b'.repeat(32), 'Which day? *Tuesday* or *Wednesday*']);
    });

    it('any other permanent error, or a template that is not a reply, fails for good with no text sent', async () => {
      const h = setup();
      const { part: reply } = await stagedPart(h, buttons());
      h.transport.script.push(refusal(21610));
      expect(await h.delivery.deliver(reply)).toEqual({ kind: 'permanent_failure', errorCode: 21610 });
      const { part: reminder } = await stagedPart(h, buttons('reminder'));
      h.transport.script.push(refusal(21655));
      expect(await h.delivery.deliver(reminder)).toEqual({ kind: 'permanent_failure', errorCode: 21655 });
      expect(h.transport.calls.every((call) => call.contentSid !== undefined && call.body === undefined)).toBe(true);
      expect(h.transport.calls).toHaveLength(2);
    });

    it('a refusal Twilio says may pass later is retried as the content, not sent as text', async () => {
      const h = setup({ inlineWaitLimitMs: 0 });
      const { part } = await stagedPart(h, buttons());
      h.transport.script.push(refusal(21655, true));
      expect((await h.delivery.deliver(part)).kind).toBe('retry_later');
      expect(h.transport.calls).toMatchObject([{ contentSid: 'HX' + 'b'.repeat(32) }]);
      expect(h.transport.calls).toHaveLength(1);
    });
  });

  describe('the late note under SMS_MAX_SEGMENTS', () => {
    it('is added when the reply stays within the segment limit, and left off when it would take it past', async () => {
      const h = setup({ lateNoteAfterMs: 1_000, smsMaxSegments: 1 });
      // "Sorry for the delay - " is 22 characters: 138 + 22 = 160 is one segment, 139 + 22 is two.
      const { part: fits } = await stagedPart(h, { text: 'a'.repeat(138) });
      const { part: tooLong } = await stagedPart(h, { text: 'b'.repeat(139) });
      h.clock.advance(1_001);
      await h.delivery.deliver(fits);
      await h.delivery.deliver(tooLong);
      expect(h.transport.calls.map((call) => call.body)).toEqual([`Sorry for the delay - ${'a'.repeat(138)}`, 'b'.repeat(139)]);
    });
  });
});
