import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../src/db/prisma-types.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import type { MessageTransport, SentMessageLookup, SentMessageQuery, TransportMessage, TransportResult } from '../../src/outbox/message-transport.js';
import type { OutboxSendEvent } from '../../src/outbox/outbox-dependencies.js';
import type { ClaimedMessage, OutboundDraft } from '../../src/outbox/outbound-draft.js';
import { OutboxService } from '../../src/outbox/outbox-service.js';
import { ManualClock } from '../../src/shared/clock.js';
import { randomIds } from '../../src/shared/ids.js';
import { UserService } from '../../src/users/user-service.js';
import { withReadBarrier } from '../helpers/read-barrier.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/** A transport that answers from a script (default: accepted) and records every call. */
class ScriptedTransport implements MessageTransport {
  readonly name = 'twilio' as const;
  readonly calls: TransportMessage[] = [];
  readonly script: Array<TransportResult | ((message: TransportMessage) => Promise<TransportResult>)> = [];

  async send(message: TransportMessage): Promise<TransportResult> {
    this.calls.push(message);
    const next = this.script.shift();
    if (typeof next === 'function') return next(message);
    return next ?? { ok: true, sid: 'SM' + randomUUID().replaceAll('-', ''), status: 'queued' };
  }

  bodies(): string[] {
    return this.calls.map((call) => call.body ?? '');
  }

  /** Look-ups asked, and what they answer in turn (default: not found). */
  readonly lookups: SentMessageQuery[] = [];
  readonly lookupScript: SentMessageLookup[] = [];

  async findSent(query: SentMessageQuery): Promise<SentMessageLookup> {
    this.lookups.push(query);
    return this.lookupScript.shift() ?? { kind: 'not_found' };
  }
}

const unavailable: TransportResult = { ok: false, retryable: true, httpStatus: 503, errorCode: 20503, message: 'Service Unavailable' };

describe('OutboxService', () => {
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
      clock?: ManualClock;
      retryForMs?: number;
      inlineWaitLimitMs?: number;
      lateNoteAfterMs?: number;
      senders?: { sms?: string; whatsapp?: string };
      prisma?: PrismaClient;
      onHandBack?: (userId: string, at: Date) => Promise<void>;
    } = {},
  ) {
    const transport = new ScriptedTransport();
    const waits: number[] = [];
    const events: OutboxSendEvent['status'][] = [];
    const clock = options.clock;
    const outbox = new OutboxService({
      prisma: options.prisma ?? database.prisma,
      pool: database.pool,
      transport,
      users,
      clock: clock ?? { now: () => new Date() },
      ids: randomIds,
      logger: createSilentLogger(),
      policy: { retryForMs: options.retryForMs ?? 3_600_000, baseDelayMs: 100, maxDelayMs: 1_000 },
      senders: options.senders ?? { sms: '+15005550006', whatsapp: 'whatsapp:+14155238886' },
      statusCallbackUrl: 'https://herald.test/twilio/status',
      ...(options.inlineWaitLimitMs !== undefined ? { inlineWaitLimitMs: options.inlineWaitLimitMs } : {}),
      ...(options.lateNoteAfterMs !== undefined ? { lateNoteAfterMs: options.lateNoteAfterMs } : {}),
      ...(options.onHandBack ? { onHandBack: options.onHandBack } : {}),
      sleep: async (milliseconds) => {
        waits.push(milliseconds);
        clock?.advance(milliseconds);
      },
      random: () => 1,
      onSend: (event) => events.push(event.status),
    });
    return { outbox, transport, waits, events };
  }

  async function newUser() {
    phoneCounter += 1;
    const phone = `+1415555${String(900 + phoneCounter).padStart(4, '0')}`;
    return database.prisma.user.create({ data: { phone, timezone: 'UTC', updatedAt: new Date() } });
  }

  async function stage(outbox: OutboxService, draft: Omit<OutboundDraft, 'kind' | 'channel' | 'toAddress'> & Partial<OutboundDraft>, phone: string) {
    return database.prisma.$transaction((transaction) =>
      outbox.stage(transaction, { kind: 'reply', channel: 'sms', toAddress: phone, ...draft }),
    );
  }

  async function parts(userId: string) {
    return database.prisma.outboundMessage.findMany({ where: { userId }, orderBy: [{ sequence: 'asc' }] });
  }

  it('stages a reply converted for the channel and split into ordered parts, then delivers them in order', async () => {
    const { outbox, transport } = setup();
    const user = await newUser();
    const long = Array.from({ length: 40 }, (_, index) => `**Point ${index + 1}** is a sentence of some length to fill the message.`).join(' ');
    const staged = await stage(outbox, { userId: user.id, text: long }, user.phone);
    expect(staged.parts).toBeGreaterThan(1);
    const stored = await parts(user.id);
    expect(stored.every((part) => part.status === 'pending' && part.body.length <= 1_600 && !part.body.includes('**'))).toBe(true);

    expect(await outbox.flushUser(user.id)).toEqual({ kind: 'done' });
    expect(transport.bodies()).toEqual(stored.map((part) => part.body));
    expect(transport.calls.every((call) => call.statusCallback === 'https://herald.test/twilio/status' && call.from === '+15005550006')).toBe(true);
    const sent = await parts(user.id);
    expect(sent.map((part) => part.status)).toEqual(stored.map(() => 'queued'));
    expect(sent.every((part) => part.attempts === 1 && part.twilioSid?.startsWith('SM'))).toBe(true);
    expect(await outbox.hasUndelivered(user.id)).toBe(false);
  });

  it('delivers older messages before newer ones', async () => {
    const { outbox, transport } = setup();
    const user = await newUser();
    await stage(outbox, { userId: user.id, text: 'first' }, user.phone);
    await stage(outbox, { userId: user.id, text: 'second' }, user.phone);
    await stage(outbox, { userId: user.id, text: 'third' }, user.phone);
    await outbox.flushUser(user.id);
    expect(transport.bodies()).toEqual(['first', 'second', 'third']);
  });

  it('keeps the staging order of messages staged in the same millisecond', async () => {
    const clock = new ManualClock(new Date()); // time stands still: every message has the same createdAt
    const { outbox, transport } = setup({ clock });
    const user = await newUser();
    const texts = Array.from({ length: 12 }, (_, index) => `message ${index + 1}`);
    await database.prisma.$transaction(async (transaction) => {
      for (const text of texts) await outbox.stage(transaction, { userId: user.id, kind: 'reply', channel: 'sms', toAddress: user.phone, text });
    });
    await outbox.flushUser(user.id);
    expect(transport.bodies()).toEqual(texts);
  });

  it('retries a transient failure in-process with backoff', async () => {
    const { outbox, transport, waits } = setup();
    const user = await newUser();
    transport.script.push(unavailable, { ok: false, retryable: true, message: 'socket hang up' });
    await stage(outbox, { userId: user.id, text: 'hello' }, user.phone);
    expect(await outbox.flushUser(user.id)).toEqual({ kind: 'done' });
    expect(transport.calls).toHaveLength(3);
    expect(waits).toEqual([100, 200]); // base × 2^(attempt-1), jitter at its top
    const [part] = await parts(user.id);
    expect(part).toMatchObject({ status: 'queued', attempts: 3, nextAttemptAt: null });
  });

  it('hands a long wait back to the queue instead of sleeping, and does not send early', async () => {
    const clock = new ManualClock(new Date());
    const { outbox, transport, waits } = setup({ clock, inlineWaitLimitMs: 1_000 });
    const user = await newUser();
    transport.script.push({ ...unavailable, httpStatus: 429, errorCode: 20429, retryAfterMs: 30_000 });
    await stage(outbox, { userId: user.id, text: 'later' }, user.phone);

    const outcome = await outbox.flushUser(user.id);
    expect(outcome).toEqual({ kind: 'retry_later', at: new Date(clock.now().getTime() + 30_000) });
    expect(waits).toEqual([]);
    expect(await parts(user.id)).toMatchObject([{ status: 'pending', attempts: 1, errorCode: 20429 }]);
    expect(await outbox.hasUndelivered(user.id)).toBe(true);

    clock.advance(10_000);
    expect((await outbox.flushUser(user.id)).kind).toBe('retry_later');
    expect(transport.calls).toHaveLength(1);

    clock.advance(20_001);
    expect(await outbox.flushUser(user.id)).toEqual({ kind: 'done' });
    expect(transport.calls).toHaveLength(2);
    expect(await parts(user.id)).toMatchObject([{ status: 'queued', attempts: 2 }]);
  });

  /** Flushes as the user's drain would, each time at the part's retry time, until nothing is left; returns how many flushes it took. */
  async function drain(outbox: OutboxService, clock: ManualClock, userId: string): Promise<number> {
    let flushes = 0;
    for (;;) {
      flushes += 1;
      const outcome = await outbox.flushUser(userId);
      if (outcome.kind === 'done') return flushes;
      clock.set(outcome.at);
    }
  }

  it('keeps retrying a part Twilio keeps failing, flush after flush, and sends it once Twilio is back', async () => {
    const clock = new ManualClock(new Date());
    const { outbox, transport, waits } = setup({ clock });
    const user = await newUser();
    // Twenty failures: five attempts in-process, then handed back to the queue each time.
    transport.script.push(...Array.from({ length: 20 }, () => unavailable));
    await stage(outbox, { userId: user.id, text: 'patience' }, user.phone);
    expect(await drain(outbox, clock, user.id)).toBeGreaterThan(1);
    expect(transport.bodies()).toEqual(Array.from({ length: 21 }, () => 'patience'));
    // Backoff doubles up to its cap and stays there.
    expect(waits.slice(0, 4)).toEqual([100, 200, 400, 800]);
    expect(Math.max(...waits)).toBe(1_000);
    expect(await parts(user.id)).toMatchObject([{ status: 'queued', attempts: 21, nextAttemptAt: null }]);
  });

  it('gives up once a part has been retried for the whole window, records the last error and says so', async () => {
    const clock = new ManualClock(new Date());
    const { outbox, transport, events } = setup({ clock, retryForMs: 10_000 });
    const user = await newUser();
    transport.script.push(...Array.from({ length: 100 }, () => unavailable));
    await stage(outbox, { userId: user.id, text: 'doomed' }, user.phone);
    await stage(outbox, { userId: user.id, text: 'after it' }, user.phone);
    const staged = clock.now().getTime();
    await drain(outbox, clock, user.id);

    const [part, next] = await parts(user.id);
    expect(part).toMatchObject({ status: 'failed', errorCode: 20503 });
    expect(part?.errorMessage).toMatch(/^gave up after 1\d s \(\d+ attempts\): Service Unavailable/);
    // Its last attempt was the first past the window.
    expect(clock.now().getTime() - staged).toBeGreaterThanOrEqual(10_000);
    expect(clock.now().getTime() - staged).toBeLessThan(11_000);
    expect(events.filter((status) => status === 'expired').length).toBeGreaterThanOrEqual(1);
    // Not the address's fault: the part after it was tried too (and, Twilio still down, given up in turn).
    expect(next).toMatchObject({ status: 'failed' });
    expect(transport.bodies()).toContain('after it');
    expect(await outbox.hasUndelivered(user.id)).toBe(false);
  });

  it('never retries a permanent failure, marks the user unreachable, and drops the later parts to that address', async () => {
    const { outbox, transport } = setup();
    const user = await newUser();
    transport.script.push({ ok: false, retryable: false, httpStatus: 400, errorCode: 21610, message: 'unsubscribed' });
    await stage(outbox, { userId: user.id, text: 'one' }, user.phone);
    await stage(outbox, { userId: user.id, text: 'two' }, user.phone);
    expect(await outbox.flushUser(user.id)).toEqual({ kind: 'done' });
    expect(transport.calls).toHaveLength(1);
    expect(await parts(user.id)).toMatchObject([
      { status: 'failed', errorCode: 21610, attempts: 1 },
      { status: 'undeliverable', errorCode: 21610, attempts: 0 },
    ]);
    expect((await database.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).smsUnreachableAt).toBeInstanceOf(Date);
  });

  it('does not mark the user unreachable for a permanent error that is about the message, not the number', async () => {
    const { outbox, transport } = setup();
    const user = await newUser();
    transport.script.push({ ok: false, retryable: false, httpStatus: 400, errorCode: 21602, message: 'Message body is required' });
    await stage(outbox, { userId: user.id, text: 'x' }, user.phone);
    await outbox.flushUser(user.id);
    expect((await database.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).smsUnreachableAt).toBeNull();
  });

  it('fails a part with no sender for its channel without calling Twilio', async () => {
    const { outbox, transport } = setup({ senders: { sms: '+15005550006' } });
    const user = await newUser();
    await stage(outbox, { userId: user.id, text: 'hi', channel: 'whatsapp', toAddress: `whatsapp:${user.phone}` }, user.phone);
    await outbox.flushUser(user.id);
    expect(transport.calls).toHaveLength(0);
    expect(await parts(user.id)).toMatchObject([{ status: 'failed', errorMessage: 'no sender configured for whatsapp' }]);
  });

  it('sends a template as one part with its content sid and variables', async () => {
    const { outbox, transport } = setup();
    const user = await newUser();
    const text = 'x'.repeat(2_000);
    await stage(outbox, { userId: user.id, text, kind: 'reminder', channel: 'whatsapp', toAddress: `whatsapp:${user.phone}`, template: { contentSid: 'HX123', variables: { 1: 'Call mom' } } }, user.phone);
    await outbox.flushUser(user.id, ['reminder']);
    expect(transport.calls).toEqual([
      { to: `whatsapp:${user.phone}`, from: 'whatsapp:+14155238886', contentSid: 'HX123', contentVariables: { 1: 'Call mom' }, statusCallback: 'https://herald.test/twilio/status' },
    ]);
  });

  it('sends each part once and in order when two flushes race', async () => {
    const { outbox, transport } = setup();
    const user = await newUser();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let firstStarted!: () => void;
    const started = new Promise<void>((resolve) => (firstStarted = resolve));
    transport.script.push(async () => {
      firstStarted();
      await held; // part one is on its way while the second flush runs
      return { ok: true, sid: 'SM' + randomUUID().replaceAll('-', ''), status: 'queued' };
    });
    await stage(outbox, { userId: user.id, text: 'one' }, user.phone);
    await stage(outbox, { userId: user.id, text: 'two' }, user.phone);
    await stage(outbox, { userId: user.id, text: 'three' }, user.phone);

    const first = outbox.flushUser(user.id);
    await started;
    const second = await outbox.flushUser(user.id);
    // The second flush must not overtake the part in flight.
    expect(second.kind).toBe('retry_later');
    expect(transport.bodies()).toEqual(['one']);
    release();
    expect(await first).toEqual({ kind: 'done' });
    expect(transport.bodies()).toEqual(['one', 'two', 'three']);
    expect((await parts(user.id)).map((part) => part.attempts)).toEqual([1, 1, 1]);
  });

  it('sends a part once when two flushes both read it as pending before either claims it', async () => {
    // Both flushes' reads of the user's parts meet at a barrier: each then tries to claim the
    // same pending part, and only the atomic claim keeps the second from sending it too.
    const { outbox, transport } = setup({ prisma: withReadBarrier(database.prisma, 'outboundMessage', 'findMany', 2) });
    const user = await newUser();
    await stage(outbox, { userId: user.id, text: 'only once' }, user.phone);

    const outcomes = await Promise.all([outbox.flushUser(user.id), outbox.flushUser(user.id)]);

    expect(transport.bodies()).toEqual(['only once']);
    // The loser stepped back (the part was being sent), or found it sent.
    expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(expect.arrayContaining(['done']));
    expect((await parts(user.id)).map((part) => [part.status, part.attempts])).toEqual([['queued', 1]]);
  });

  it('delivers each part once when many flushes run at the same time', async () => {
    const { outbox, transport } = setup();
    const user = await newUser();
    for (const text of ['a', 'b', 'c', 'd']) await stage(outbox, { userId: user.id, text }, user.phone);
    await Promise.all(Array.from({ length: 5 }, () => outbox.flushUser(user.id)));
    // Any flush that found a part taken stepped back; finish what is left.
    while (await outbox.hasUndelivered(user.id)) await outbox.flushUser(user.id);
    expect(transport.bodies()).toEqual(['a', 'b', 'c', 'd']);
  });

  describe('a message written already claimed (reminders)', () => {
    /** Writes a claimed message's rows as its caller's own statement would. */
    async function write(message: ClaimedMessage) {
      await database.prisma.outboundMessage.createMany({
        data: message.parts.map(({ contentVariables, ...part }) => ({
          ...part,
          ...(contentVariables ? { contentVariables } : {}),
          groupId: message.groupId,
          createdAt: message.createdAt,
        })),
      });
    }
    const long = Array.from({ length: 40 }, (_, index) => `Point ${index + 1} is a sentence of some length to fill the message.`).join(' ');

    it('claims the first part for its sender and leaves the rest pending, as staged', async () => {
      const clock = new ManualClock('2026-03-02T15:00:00Z');
      const { outbox } = setup({ clock });
      const user = await newUser();
      const message = outbox.claimed({ userId: user.id, kind: 'reminder', channel: 'sms', toAddress: user.phone, text: long });
      expect(message.parts.length).toBeGreaterThan(1);
      await write(message);
      const staged = await database.prisma.$transaction((transaction) => outbox.stage(transaction, { userId: user.id, kind: 'reminder', channel: 'sms', toAddress: user.phone, text: long }));
      const group = (groupId: string) => database.prisma.outboundMessage.findMany({ where: { groupId }, orderBy: { partIndex: 'asc' } });
      const [claimedRows, stagedRows] = await Promise.all([group(message.groupId), group(staged.groupId)]);
      expect(claimedRows.map((part) => part.body)).toEqual(stagedRows.map((part) => part.body));
      expect(claimedRows.map((part) => [part.partIndex, part.partCount, part.status, part.attempts, part.nextAttemptAt])).toEqual(
        claimedRows.map((_, index) => [index, message.parts.length, index === 0 ? 'dispatching' : 'pending', index === 0 ? 1 : 0, index === 0 ? new Date('2026-03-02T15:01:00Z') : null]),
      );
      // Nobody else may take the claimed part while its claim holds.
      expect((await outbox.flushGroup(message.groupId)).kind).toBe('retry_later');
    });

    it('sends every part in order, the first without claiming it again', async () => {
      const { outbox, transport } = setup();
      const user = await newUser();
      const message = outbox.claimed({ userId: user.id, kind: 'reminder', channel: 'sms', toAddress: user.phone, text: long });
      await write(message);
      expect(await outbox.sendClaimed(message)).toEqual({ kind: 'done' });
      expect(transport.bodies()).toEqual(message.parts.map((part) => part.body));
      const sent = await parts(user.id);
      expect(sent.map((part) => [part.status, part.attempts, part.nextAttemptAt])).toEqual(message.parts.map(() => ['queued', 1, null]));
      expect(sent.every((part) => part.twilioSid?.startsWith('SM') && part.sentAt instanceof Date)).toBe(true);
    });

    it('a transient failure of the first part goes as in a flush: retried in-process, or handed back with the rest still pending', async () => {
      const clock = new ManualClock(new Date());
      const { outbox, transport, waits } = setup({ clock, inlineWaitLimitMs: 1_000 });
      const user = await newUser();
      transport.script.push(unavailable);
      const retried = outbox.claimed({ userId: user.id, kind: 'reminder', channel: 'sms', toAddress: user.phone, text: 'soon' });
      await write(retried);
      expect(await outbox.sendClaimed(retried)).toEqual({ kind: 'done' });
      expect(waits).toEqual([100]);
      expect(await parts(user.id)).toMatchObject([{ status: 'queued', attempts: 2, nextAttemptAt: null }]);

      const other = await newUser();
      transport.script.push({ ...unavailable, httpStatus: 429, errorCode: 20429, retryAfterMs: 30_000 });
      const later = outbox.claimed({ userId: other.id, kind: 'reminder', channel: 'sms', toAddress: other.phone, text: long });
      await write(later);
      expect(await outbox.sendClaimed(later)).toEqual({ kind: 'retry_later', at: new Date(clock.now().getTime() + 30_000) });
      const [first, ...rest] = await parts(other.id);
      expect(first).toMatchObject({ status: 'pending', attempts: 1, errorCode: 20429, nextAttemptAt: new Date(clock.now().getTime() + 30_000) });
      expect(rest.map((part) => [part.status, part.attempts])).toEqual(rest.map(() => ['pending', 0]));
      clock.advance(30_001);
      expect(await outbox.flushGroup(later.groupId)).toEqual({ kind: 'done' });
      expect(transport.bodies().slice(-later.parts.length)).toEqual(later.parts.map((part) => part.body));
    });

    it('a permanent failure of the first part drops the later parts to that address', async () => {
      const { outbox, transport } = setup();
      const user = await newUser();
      transport.script.push({ ok: false, retryable: false, httpStatus: 400, errorCode: 21610, message: 'unsubscribed' });
      const message = outbox.claimed({ userId: user.id, kind: 'reminder', channel: 'sms', toAddress: user.phone, text: long });
      await write(message);
      expect(await outbox.sendClaimed(message)).toEqual({ kind: 'done' });
      expect(transport.calls).toHaveLength(1);
      const [first, ...rest] = await parts(user.id);
      expect(first).toMatchObject({ status: 'failed', errorCode: 21610, attempts: 1 });
      expect(rest.map((part) => [part.status, part.errorCode])).toEqual(rest.map(() => ['undeliverable', 21610]));
      expect((await database.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).smsUnreachableAt).toBeInstanceOf(Date);
    });
  });

  describe('a send whose outcome is unknown (the request may have reached Twilio)', () => {
    const lost: TransportResult = { ok: false, retryable: true, message: 'socket hang up', outcomeUnknown: true };
    const refused: TransportResult = { ok: false, retryable: true, message: 'connect ECONNREFUSED' };

    it('is looked up before it is sent again: found, it is recorded with that sid and never resent', async () => {
      const clock = new ManualClock(new Date());
      const { outbox, transport, waits } = setup({ clock });
      const user = await newUser();
      transport.script.push(lost);
      transport.lookupScript.push({ kind: 'found', matches: [{ sid: 'SM' + 'a'.repeat(32), status: 'sent' }] });
      await stage(outbox, { userId: user.id, text: 'only once' }, user.phone);
      const firstAttempt = clock.now();

      expect(await outbox.flushUser(user.id)).toEqual({ kind: 'done' });
      expect(transport.bodies()).toEqual(['only once']);
      expect(transport.lookups).toEqual([{ to: user.phone, from: '+15005550006', body: 'only once', since: firstAttempt }]);
      // The look-up waited for Twilio's list to show it: at least the backoff cap here.
      expect(waits).toEqual([1_000]);
      expect(await parts(user.id)).toMatchObject([{ status: 'sent', twilioSid: 'SM' + 'a'.repeat(32), attempts: 2, unknownSince: firstAttempt, nextAttemptAt: null }]);
    });

    it('not found at Twilio: sent again, once', async () => {
      const clock = new ManualClock(new Date());
      const { outbox, transport } = setup({ clock });
      const user = await newUser();
      transport.script.push(lost);
      await stage(outbox, { userId: user.id, text: 'lost on the way' }, user.phone);
      expect(await outbox.flushUser(user.id)).toEqual({ kind: 'done' });
      expect(transport.bodies()).toEqual(['lost on the way', 'lost on the way']);
      expect(transport.lookups).toHaveLength(1);
      expect(await parts(user.id)).toMatchObject([{ status: 'queued', attempts: 2 }]);
    });

    it('a look-up that fails is tried again later, and nothing is sent blind meanwhile', async () => {
      const clock = new ManualClock(new Date());
      const { outbox, transport } = setup({ clock });
      const user = await newUser();
      transport.script.push(lost);
      transport.lookupScript.push(...Array.from({ length: 7 }, () => ({ kind: 'failed' as const, message: 'Twilio answered 503' })));
      transport.lookupScript.push({ kind: 'found', matches: [{ sid: 'SM' + 'b'.repeat(32), status: 'delivered' }] });
      await stage(outbox, { userId: user.id, text: 'careful' }, user.phone);
      await drain(outbox, clock, user.id);
      expect(transport.calls).toHaveLength(1);
      expect(transport.lookups).toHaveLength(8);
      expect(await parts(user.id)).toMatchObject([{ status: 'delivered', twilioSid: 'SM' + 'b'.repeat(32) }]);
    });

    it('a message Twilio shows that is already recorded on another part is not this one', async () => {
      const { outbox, transport } = setup({ clock: new ManualClock(new Date()) });
      const user = await newUser();
      transport.script.push({ ok: true, sid: 'SM' + 'c'.repeat(32), status: 'queued' }, lost);
      await stage(outbox, { userId: user.id, text: 'Done.' }, user.phone);
      await stage(outbox, { userId: user.id, text: 'Done.' }, user.phone);
      // Twilio lists the first "Done." as a match for the second: taken, so the second goes again.
      transport.lookupScript.push({ kind: 'found', matches: [{ sid: 'SM' + 'c'.repeat(32), status: 'sent' }] });
      expect(await outbox.flushUser(user.id)).toEqual({ kind: 'done' });
      expect(transport.bodies()).toEqual(['Done.', 'Done.', 'Done.']);
      const [first, second] = await parts(user.id);
      expect(first?.twilioSid).toBe('SM' + 'c'.repeat(32));
      expect(second?.twilioSid).not.toBe(first?.twilioSid);
    });

    it('a refused connection sent nothing: retried without a look-up', async () => {
      const { outbox, transport } = setup({ clock: new ManualClock(new Date()) });
      const user = await newUser();
      transport.script.push(refused, refused);
      await stage(outbox, { userId: user.id, text: 'knock knock' }, user.phone);
      expect(await outbox.flushUser(user.id)).toEqual({ kind: 'done' });
      expect(transport.calls).toHaveLength(3);
      expect(transport.lookups).toHaveLength(0);
      expect(await parts(user.id)).toMatchObject([{ status: 'queued', unknownSince: null }]);
    });

    it('a part whose sender died mid-send (its claim lapsed) is looked up before it is sent again', async () => {
      const clock = new ManualClock(new Date());
      const { outbox, transport } = setup({ clock });
      const user = await newUser();
      await stage(outbox, { userId: user.id, text: 'in flight' }, user.phone);
      const [part] = await parts(user.id);
      // As a process killed during the HTTP call leaves it: claimed at `claimedAt`, never recorded.
      const claimedAt = clock.now();
      await database.prisma.outboundMessage.update({ where: { id: part!.id }, data: { status: 'dispatching', statusRank: 1, attempts: 1, nextAttemptAt: new Date(claimedAt.getTime() + 60_000) } });
      expect((await outbox.flushUser(user.id)).kind).toBe('retry_later');
      clock.advance(60_001);
      transport.lookupScript.push({ kind: 'found', matches: [{ sid: 'SM' + 'd'.repeat(32), status: 'sent' }] });
      expect(await outbox.flushUser(user.id)).toEqual({ kind: 'done' });
      expect(transport.calls).toHaveLength(0);
      expect(transport.lookups).toMatchObject([{ since: claimedAt, body: 'in flight' }]);
      expect(await parts(user.id)).toMatchObject([{ status: 'sent', twilioSid: 'SM' + 'd'.repeat(32) }]);
    });
  });

  describe('a reply that waited', () => {
    it('starts with "Sorry for the delay —" (in the reader\'s language) once it waited longer than the limit, kept when sent again', async () => {
      const clock = new ManualClock(new Date());
      const { outbox, transport } = setup({ clock, lateNoteAfterMs: 120_000 });
      const user = await newUser();
      await database.prisma.user.update({ where: { id: user.id }, data: { language: 'fr' } });
      transport.script.push(...Array.from({ length: 6 }, () => unavailable));
      await stage(outbox, { userId: user.id, text: 'Votre table est réservée pour ce soir.' }, user.phone);
      const outcome = await outbox.flushUser(user.id);
      expect(outcome.kind).toBe('retry_later');
      // Still within the limit: sent as written.
      expect(transport.bodies()[0]).toBe('Votre table est réservée pour ce soir.');
      clock.advance(120_001);
      await drain(outbox, clock, user.id);
      // Désolé's dash is plain on SMS (the rest of the text is GSM-7).
      expect(transport.bodies().at(-1)).toBe('Désolé pour le retard - Votre table est réservée pour ce soir.');
      expect(transport.bodies().filter((body) => body.startsWith('Désolé')).length).toBeGreaterThanOrEqual(2);
      expect(transport.bodies().every((body) => !body.startsWith('Désolé pour le retard - Désolé'))).toBe(true);
      expect(await parts(user.id)).toMatchObject([{ status: 'queued', body: 'Désolé pour le retard - Votre table est réservée pour ce soir.' }]);
    });

    it('only a reply, only its first part, and never one whose outcome is unknown', async () => {
      const clock = new ManualClock(new Date());
      const { outbox, transport } = setup({ clock, lateNoteAfterMs: 1_000 });
      const user = await newUser();
      await stage(outbox, { userId: user.id, text: 'a notice', kind: 'system' }, user.phone);
      await stage(outbox, { userId: user.id, text: 'a reply' }, user.phone);
      await stage(outbox, { userId: user.id, text: 'an unsure reply' }, user.phone);
      const [, , unsure] = await parts(user.id);
      await database.prisma.outboundMessage.update({ where: { id: unsure!.id }, data: { unknownSince: clock.now() } });
      clock.advance(5_000);
      await outbox.flushUser(user.id);
      expect(transport.bodies()).toEqual(['a notice', 'Sorry for the delay - a reply', 'an unsure reply']);
    });
  });

  describe('order across flushes', () => {
    it("a message's own flush sends the user's older waiting parts first, and hands the user back when one must wait", async () => {
      const clock = new ManualClock(new Date());
      const handedBack: Array<[string, Date]> = [];
      const { outbox, transport } = setup({ clock, inlineWaitLimitMs: 0, onHandBack: async (userId, at) => void handedBack.push([userId, at]) });
      const user = await newUser();
      transport.script.push(unavailable);
      await stage(outbox, { userId: user.id, text: 'the reply' }, user.phone);
      expect((await outbox.flushUser(user.id)).kind).toBe('retry_later');
      const notice = await database.prisma.$transaction((transaction) => outbox.stage(transaction, { userId: user.id, kind: 'system', channel: 'sms', toAddress: user.phone, text: 'the notice' }));

      // The reply waits for its retry: the notice waits behind it, and the user's drain is told when.
      const waiting = await outbox.flushGroup(notice.groupId);
      expect(waiting.kind).toBe('retry_later');
      expect(handedBack).toEqual([[user.id, (waiting as { at: Date }).at]]);
      expect(transport.bodies()).toEqual(['the reply']);

      clock.set((waiting as { at: Date }).at);
      expect(await outbox.flushGroup(notice.groupId)).toEqual({ kind: 'done' });
      expect(transport.bodies()).toEqual(['the reply', 'the reply', 'the notice']);
    });

    it("a reminder another sender is sending this very moment does not hold the user's reply back", async () => {
      const { outbox, transport } = setup();
      const user = await newUser();
      const reminder = outbox.claimed({ userId: user.id, kind: 'reminder', channel: 'sms', toAddress: user.phone, text: 'the reminder' });
      await database.prisma.outboundMessage.createMany({
        data: reminder.parts.map(({ contentVariables: _variables, ...part }) => ({ ...part, groupId: reminder.groupId })),
      });
      await stage(outbox, { userId: user.id, text: 'the reply' }, user.phone);
      expect(await outbox.flushUser(user.id)).toEqual({ kind: 'done' });
      expect(transport.bodies()).toEqual(['the reply']);
      // The reminder's own flush still waits for its sender, of course.
      expect((await outbox.flushGroup(reminder.groupId)).kind).toBe('retry_later');
      expect(transport.bodies()).toEqual(['the reply']);
    });

    it('a message written claimed (a reminder) gives its claim back and goes after the older parts', async () => {
      const clock = new ManualClock(new Date());
      const { outbox, transport } = setup({ clock, inlineWaitLimitMs: 0 });
      const user = await newUser();
      transport.script.push(unavailable);
      await stage(outbox, { userId: user.id, text: 'the reply' }, user.phone);
      const waiting = await outbox.flushUser(user.id);
      const message = outbox.claimed({ userId: user.id, kind: 'reminder', channel: 'sms', toAddress: user.phone, text: 'the reminder' });
      await database.prisma.outboundMessage.createMany({
        data: message.parts.map(({ contentVariables: _variables, ...part }) => ({ ...part, groupId: message.groupId })),
      });
      expect((await outbox.sendClaimed(message)).kind).toBe('retry_later');
      expect(transport.bodies()).toEqual(['the reply']);
      const reminderPart = await database.prisma.outboundMessage.findFirstOrThrow({ where: { groupId: message.groupId } });
      expect(reminderPart).toMatchObject({ status: 'pending', attempts: 0 });

      clock.set((waiting as { at: Date }).at);
      expect(await outbox.flushUser(user.id)).toEqual({ kind: 'done' });
      expect(transport.bodies()).toEqual(['the reply', 'the reply', 'the reminder']);
    });
  });

  describe('status callbacks', () => {
    async function sentPart() {
      const { outbox, transport } = setup();
      const user = await newUser();
      await stage(outbox, { userId: user.id, text: 'hi' }, user.phone);
      await outbox.flushUser(user.id);
      const [part] = await parts(user.id);
      expect(transport.calls).toHaveLength(1);
      return { outbox, user, sid: part!.twilioSid! };
    }
    const statusOf = async (sid: string) => (await database.prisma.outboundMessage.findUniqueOrThrow({ where: { twilioSid: sid } })).status;

    it('only moves forward', async () => {
      const { outbox, sid } = await sentPart();
      expect(await outbox.applyStatusCallback({ sid, status: 'sent' })).toBe('updated');
      expect(await outbox.applyStatusCallback({ sid, status: 'sent' })).toBe('ignored');
      expect(await outbox.applyStatusCallback({ sid, status: 'delivered' })).toBe('updated');
      expect(await outbox.applyStatusCallback({ sid, status: 'sent' })).toBe('ignored');
      expect(await outbox.applyStatusCallback({ sid, status: 'failed', errorCode: 30003 })).toBe('ignored');
      expect(await statusOf(sid)).toBe('delivered');
      expect(await outbox.applyStatusCallback({ sid, status: 'read' })).toBe('updated');
      expect(await statusOf(sid)).toBe('read');
    });

    it('ignores unknown statuses and unknown sids', async () => {
      const { outbox, sid } = await sentPart();
      expect(await outbox.applyStatusCallback({ sid, status: 'exploded' })).toBe('ignored');
      expect(await outbox.applyStatusCallback({ sid: 'SM' + '0'.repeat(32), status: 'delivered' })).toBe('ignored');
      expect(await statusOf(sid)).toBe('queued');
    });

    it('marks the user unreachable for an unreachable code, and not for others', async () => {
      const first = await sentPart();
      await first.outbox.applyStatusCallback({ sid: first.sid, status: 'failed', errorCode: 30003, errorMessage: 'Unreachable handset' });
      expect((await database.prisma.user.findUniqueOrThrow({ where: { id: first.user.id } })).smsUnreachableAt).toBeNull();

      const second = await sentPart();
      await second.outbox.applyStatusCallback({ sid: second.sid, status: 'undelivered', errorCode: 21610 });
      expect((await database.prisma.user.findUniqueOrThrow({ where: { id: second.user.id } })).smsUnreachableAt).toBeInstanceOf(Date);
    });
  });
});
