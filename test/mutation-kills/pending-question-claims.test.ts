import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { QuestionAsk } from '../../src/questions/pending-question.js';
import { PendingQuestions, type QuestionOutcome } from '../../src/questions/pending-questions.js';
import { ManualClock } from '../../src/shared/clock.js';
import { SequentialIds } from '../../src/shared/ids.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * Pending questions at their edges (issue 32 item 8), on real Postgres: a claim at the expiry
 * instant and a millisecond before, a question taken twice at once by different answers, a
 * cancel racing a claim, and exactly which questions an answer may still find.
 */
const TTL = 300_000;
const message = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;

describe('pending questions: the claim and its edges', () => {
  let database: TestDatabase;
  const clock = new ManualClock('2030-01-01T12:00:00Z');
  let questions: PendingQuestions;
  let observed: Array<[string, QuestionOutcome]>;
  let userId: string;
  let counter = 0;

  beforeAll(async () => {
    database = await createTestDatabase(6);
  });
  beforeEach(async () => {
    clock.set('2030-01-01T12:00:00Z');
    observed = [];
    counter += 1;
    // Short ids are unique across users: each test's ids are its own ("t3_question_1"...).
    const ids = new SequentialIds();
    const prefix = `t${counter}`;
    questions = new PendingQuestions(database.prisma, clock, { next: (kind = 'id') => `${prefix}_${ids.next(kind)}` }, TTL, (kind, outcome) => observed.push([kind, outcome]));
    userId = (await database.prisma.user.create({ data: { phone: `+1415555${String(6500 + counter)}`, timezone: 'UTC', updatedAt: clock.now() } })).id;
  });
  afterAll(async () => {
    await database.drop();
  });

  const choice: QuestionAsk = { kind: 'choice', question: 'Which one?', payload: { agent: 'scheduler-agent', tool: 'delete_scheduled_job', candidates: [{ label: 'A', input: {} }, { label: 'B', input: {} }] } };
  const confirmation: QuestionAsk = { kind: 'confirmation', question: 'Delete it?', payload: { actions: [{ agent: 'list-agent', tool: 'delete_list', input: {}, question: 'Delete it?', done: 'Deleted.' }] } };
  const stage = (asks: QuestionAsk[] = [choice], options: { ttlMs?: number; shortIds?: string[] } = {}, turnId?: string) =>
    database.prisma.$transaction((transaction) => questions.stage(transaction, { userId, channel: 'whatsapp', turnId }, asks, options));
  const row = (id: string) => database.prisma.pendingQuestion.findUniqueOrThrow({ where: { id } });

  it('stores what was asked, living TTL from now (or the lifetime given), with the short ids given', async () => {
    const turn = await database.prisma.turn.create({ data: { userId, startedAt: clock.now() } });
    const shortIds = await stage([choice, confirmation], { shortIds: [`given${counter}`] }, turn.id);
    expect(shortIds[0]).toBe(`given${counter}`);
    const [first, second] = await Promise.all(shortIds.map((shortId) => database.prisma.pendingQuestion.findFirstOrThrow({ where: { userId, shortId } })));
    expect(first).toMatchObject({ kind: 'choice', question: 'Which one?', channel: 'whatsapp', status: 'pending', turnId: turn.id, createdAt: clock.now(), expiresAt: new Date(clock.now().getTime() + TTL) });
    expect(first!.payload).toEqual(choice.payload);
    expect(second).toMatchObject({ kind: 'confirmation', turnId: turn.id });
    expect(observed).toEqual([['choice', 'asked'], ['confirmation', 'asked']]);
    clock.advance(1);
    const [longer] = await stage([choice], { ttlMs: 3_600_000 });
    expect((await database.prisma.pendingQuestion.findFirstOrThrow({ where: { userId, shortId: longer! } })).expiresAt).toEqual(new Date(clock.now().getTime() + 3_600_000));
    expect((await database.prisma.pendingQuestion.findFirstOrThrow({ where: { userId, shortId: longer! } })).turnId).toBeNull();
  });

  it('makes short ids from the id generator: eight letters of the unambiguous alphabet, as documented', async () => {
    const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
    const expected = (id: string) => {
      const digest = createHash('sha256').update(id).digest();
      return Array.from({ length: 8 }, (_unused, index) => alphabet[digest[index]! % alphabet.length]).join('');
    };
    expect(questions.newShortId()).toBe(expected(`t${counter}_question_1`));
    expect(await stage([choice, confirmation])).toEqual([expected(`t${counter}_question_2`), expected(`t${counter}_question_3`)]);
  });

  it('a new turn’s questions cancel only the user’s pending ones: answered ones and other users’ stay', async () => {
    await stage();
    const [answered] = await questions.latest(userId);
    expect(await questions.claim(answered!.id, [message(1)])).toBe('claimed');
    clock.advance(1000);
    await stage();
    const [pending] = await questions.latest(userId);
    const other = (await database.prisma.user.create({ data: { phone: `+1415555${String(8500 + counter)}`, timezone: 'UTC', updatedAt: clock.now() } })).id;
    const otherQuestions = await database.prisma.$transaction((transaction) => questions.stage(transaction, { userId: other, channel: 'sms' }, [choice]));
    clock.advance(1000);
    await stage();
    expect(await row(answered!.id)).toMatchObject({ status: 'executing' });
    expect(await row(pending!.id)).toMatchObject({ status: 'cancelled', resolvedAt: clock.now() });
    expect((await questions.byShortId(other, otherQuestions[0]!))?.status).toBe('pending');
  });

  it('can be claimed a millisecond before it expires, not at the instant it does', async () => {
    await stage();
    const [question] = await questions.latest(userId);
    clock.advance(TTL);
    expect(await questions.claim(question!.id, [message(2)])).toBe('taken');
    clock.advance(-1);
    expect(await questions.claim(question!.id, [message(2)], { pick: 2 })).toBe('claimed');
    expect(await row(question!.id)).toMatchObject({ status: 'executing', claimedBy: message(2), answer: { pick: 2 }, resolvedAt: clock.now() });
  });

  it('is read as expired at its expiry instant (and told once), still pending a millisecond before', async () => {
    await stage();
    clock.advance(TTL - 1);
    expect((await questions.latest(userId))[0]).toMatchObject({ status: 'pending', expiredNow: false });
    expect(observed).toEqual([['choice', 'asked']]);
    clock.advance(1);
    expect((await questions.latest(userId))[0]).toMatchObject({ status: 'expired', expiredNow: true, resolvedAt: clock.now() });
    expect((await questions.latest(userId))[0]).toMatchObject({ status: 'expired', expiredNow: false });
    expect(observed).toEqual([['choice', 'asked'], ['choice', 'expired']]);
  });

  it('records the last of the answering messages as the claimant, and no answer when none is given', async () => {
    await stage();
    const [question] = await questions.latest(userId);
    expect(await questions.claim(question!.id, [message(3), message(4)])).toBe('claimed');
    expect(await row(question!.id)).toMatchObject({ claimedBy: message(4), answer: null });
    // Resumed by a run whose messages include the claimant, whichever place it has.
    expect(await questions.claim(question!.id, [message(4), message(9)])).toBe('resumed');
    expect(await questions.claim(question!.id, [message(3)])).toBe('taken');
    expect(await questions.claim(question!.id, [])).toBe('taken');
    expect(await questions.claim('00000000-0000-7000-8000-ffffffffffff', [message(4)])).toBe('taken');
  });

  it('two different answers at once: one claims, the other is taken, and a cancel after the claim changes nothing', async () => {
    await stage();
    const [question] = await questions.latest(userId);
    const outcomes = await Promise.all([questions.claim(question!.id, [message(5)], 'yes'), questions.claim(question!.id, [message(6)], 'no')]);
    expect(outcomes.sort()).toEqual(['claimed', 'taken']);
    expect(await questions.cancel(question!, 'declined')).toBe(false);
    expect(observed).toEqual([['choice', 'asked']]);
    expect((await questions.statusOf(question!.id))).toBe('executing');
  });

  it('a cancel and a claim at once: exactly one of them wins', async () => {
    await stage();
    const [question] = await questions.latest(userId);
    const [cancelled, claimed] = await Promise.all([questions.cancel(question!, 'dropped'), questions.claim(question!.id, [message(7)])]);
    expect([cancelled, claimed === 'claimed'].filter(Boolean)).toHaveLength(1);
    expect(await questions.statusOf(question!.id)).toBe(cancelled ? 'cancelled' : 'executing');
  });

  it('cancel: declined or dropped is told; a second cancel is false; cancelAll counts only pending ones', async () => {
    await stage([choice, confirmation]);
    const [first, second] = await questions.latest(userId);
    expect(await questions.cancel(first!, 'declined')).toBe(true);
    expect(await row(first!.id)).toMatchObject({ status: 'cancelled', resolvedAt: clock.now() });
    expect(await questions.cancel(first!, 'declined')).toBe(false);
    expect(observed.slice(2)).toEqual([[first!.kind, 'declined']]);
    expect(await questions.cancelAll(userId)).toBe(1);
    expect(await questions.statusOf(second!.id)).toBe('cancelled');
    expect(await questions.cancelAll(userId)).toBe(0);
    expect(await questions.statusOf('00000000-0000-7000-8000-ffffffffffff')).toBeUndefined();
  });

  it('finish records the outcome and tells answered or failed; update changes only a pending question', async () => {
    await stage([choice, confirmation]);
    const [first, second] = await questions.latest(userId);
    await questions.update(first!.id, { candidates: [] });
    expect((await row(first!.id)).payload).toEqual({ candidates: [] });
    expect(await questions.claim(first!.id, [message(8)])).toBe('claimed');
    await questions.update(first!.id, { candidates: ['late'] });
    expect((await row(first!.id)).payload).toEqual({ candidates: [] });
    await questions.finish(first!, { done: true }, true);
    expect(await row(first!.id)).toMatchObject({ status: 'done', outcome: { done: true } });
    await questions.finish(second!, { done: false }, false);
    expect(observed.slice(2)).toEqual([[first!.kind, 'answered'], [second!.kind, 'failed']]);
  });

  it('latest: only the newest turn’s questions, newest first, and only this user’s; none at all is empty', async () => {
    expect(await questions.latest(userId)).toEqual([]);
    await stage([choice]);
    clock.advance(1000);
    await stage([choice, confirmation]);
    const latest = await questions.latest(userId);
    expect(latest).toHaveLength(2);
    expect(latest.every((question) => question.createdAt.getTime() === clock.now().getTime())).toBe(true);
    expect(latest.map((question) => question.status)).toEqual(['pending', 'pending']);
  });
});
