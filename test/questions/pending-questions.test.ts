import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { QuestionAsk } from '../../src/questions/pending-question.js';
import { PendingQuestions } from '../../src/questions/pending-questions.js';
import { ManualClock } from '../../src/shared/clock.js';
import { SequentialIds } from '../../src/shared/ids.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The pending-question store on real Postgres: the atomic claim that makes two answers at
 * once act once (tested directly, without the per-user turn lease in front of it), the
 * claim a crashed turn resumes, expiry, and the short ids a button payload will carry.
 */
describe('PendingQuestions', () => {
  let database: TestDatabase;
  const clock = new ManualClock('2030-01-01T12:00:00Z');
  let questions: PendingQuestions;
  let userId: string;
  let counter = 0;

  beforeAll(async () => {
    database = await createTestDatabase(6);
    questions = new PendingQuestions(database.prisma, clock, new SequentialIds(), 300_000);
  });
  beforeEach(async () => {
    clock.set('2030-01-01T12:00:00Z');
    counter += 1;
    userId = (await database.prisma.user.create({ data: { phone: `+1415555${String(4500 + counter)}`, timezone: 'UTC', updatedAt: clock.now() } })).id;
  });
  afterAll(async () => {
    await database.drop();
  });

  const choice = { kind: 'choice' as const, question: 'Which one?', payload: { agent: 'scheduler-agent', tool: 'delete_scheduled_job', candidates: [{ label: 'A', input: {} }, { label: 'B', input: {} }] } };
  const stage = (asks: QuestionAsk[] = [choice]) => database.prisma.$transaction((transaction) => questions.stage(transaction, { userId, channel: 'sms' }, asks));

  it('two answers claiming at once: exactly one wins, the other is told it was taken', async () => {
    await stage();
    const [question] = await questions.latest(userId);
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_unused, index) => questions.claim(question!.id, [`00000000-0000-7000-8000-00000000000${index}`], [1])));
    expect(outcomes.filter((outcome) => outcome === 'claimed')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'taken')).toHaveLength(7);
    expect(await database.prisma.pendingQuestion.findUniqueOrThrow({ where: { id: question!.id } })).toMatchObject({ status: 'executing', answer: [1] });
  });

  it('the message that claimed it, run again after a crash, resumes its claim; any other message finds it taken', async () => {
    await stage();
    const [question] = await questions.latest(userId);
    const message = '00000000-0000-7000-8000-0000000000aa';
    expect(await questions.claim(question!.id, [message])).toBe('claimed');
    expect(await questions.claim(question!.id, [message])).toBe('resumed');
    expect(await questions.claim(question!.id, ['00000000-0000-7000-8000-0000000000bb'])).toBe('taken');
    await questions.finish(question!, { ok: true }, true);
    expect(await questions.claim(question!.id, [message])).toBe('taken');
  });

  it('past its lifetime it is marked expired when read, and cannot be claimed', async () => {
    await stage();
    const [question] = await questions.latest(userId);
    clock.advance(300_001);
    expect(await questions.claim(question!.id, ['00000000-0000-7000-8000-0000000000cc'])).toBe('taken');
    const [expired] = await questions.latest(userId);
    expect(expired).toMatchObject({ status: 'expired', expiredNow: true });
    expect((await questions.latest(userId))[0]).toMatchObject({ status: 'expired', expiredNow: false });
  });

  it('a new question cancels the one before; questions asked together stand together; short ids are stable, distinct and found again', async () => {
    await stage();
    const [first] = await questions.latest(userId);
    const confirmation = { kind: 'confirmation' as const, question: 'Delete it?', payload: { actions: [{ agent: 'list-agent', tool: 'delete_list', input: {}, question: 'Delete it?', done: 'Deleted.' }] } };
    clock.advance(1000);
    const shortIds = await stage([confirmation, choice]);
    expect(new Set(shortIds).size).toBe(2);
    for (const shortId of shortIds) expect(shortId).toMatch(/^[a-z2-9]{8}$/);
    const latest = await questions.latest(userId);
    expect(latest.map((question) => question.kind).sort()).toEqual(['choice', 'confirmation']);
    expect(await database.prisma.pendingQuestion.findUniqueOrThrow({ where: { id: first!.id } })).toMatchObject({ status: 'cancelled' });
    expect((await questions.byShortId(userId, shortIds[0]!))?.kind).toBe('confirmation');
    expect(await questions.byShortId('00000000-0000-7000-8000-000000000000', shortIds[0]!)).toBeUndefined();
  });
});
