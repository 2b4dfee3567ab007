import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FactService, normalizeFact } from '../../src/memory/fact-service.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * FactService against a real Postgres (the unique (userId, subject) index is part of the
 * behaviour): remember / list / update / remove, de-duplication by normalized content,
 * replacement by subject, concurrent writes, and isolation between users.
 */
describe('FactService', () => {
  let database: TestDatabase;
  let facts: FactService;
  const clock = new ManualClock('2026-02-01T12:00:00Z');
  let phoneCounter = 0;

  async function newUser(): Promise<string> {
    phoneCounter += 1;
    const user = await database.prisma.user.create({
      data: { phone: `+1415555${String(1000 + phoneCounter).padStart(4, '0')}`, timezone: 'America/New_York' },
    });
    return user.id;
  }

  const rows = (userId: string) => database.prisma.fact.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } });

  beforeAll(async () => {
    database = await createTestDatabase();
    facts = new FactService(database.prisma, database.pool, clock);
  });
  afterAll(async () => {
    await database.drop();
  });
  beforeEach(() => clock.advance(1000));

  describe('normalizeFact', () => {
    it('ignores case, punctuation, symbols and spacing', () => {
      expect(normalizeFact('  Is  VEGETARIAN.  ')).toBe('is vegetarian');
      expect(normalizeFact("Sister's name is Dana!")).toBe(normalizeFact('sister s name is dana'));
      expect(normalizeFact('Likes tea — not coffee')).toBe('likes tea not coffee');
    });
    it('keeps letters of other scripts', () => {
      expect(normalizeFact('צמחוני.')).toBe('צמחוני');
    });
  });

  it('remembers a fact, lists it, updates it and removes it', async () => {
    const userId = await newUser();
    const saved = await facts.remember(userId, { category: 'preferences', subject: 'diet', content: '  Is vegetarian ' });
    expect(saved.effect).toBe('created');
    expect(saved.fact).toMatchObject({ category: 'preferences', subject: 'diet', content: 'Is vegetarian' });

    const other = await facts.remember(userId, { category: 'relationships', subject: 'sister', content: "Sister's name is Dana" });
    expect(other.effect).toBe('created');
    expect(await facts.list(userId)).toEqual([
      { id: saved.fact.id, category: 'preferences', subject: 'diet', content: 'Is vegetarian', learned: false },
      { id: other.fact.id, category: 'relationships', subject: 'sister', content: "Sister's name is Dana", learned: false },
    ]);
    expect((await facts.list(userId, 'relationships')).map((fact) => fact.id)).toEqual([other.fact.id]);
    expect(await facts.list(userId, 'work')).toEqual([]);

    const updated = await facts.update(userId, saved.fact.id, { content: 'Is vegan' });
    expect(updated).toEqual({ effect: 'updated', fact: { id: saved.fact.id, category: 'preferences', subject: 'diet', content: 'Is vegan', learned: false } });
    const recategorized = await facts.update(userId, saved.fact.id, { category: 'health' });
    expect(recategorized?.fact).toMatchObject({ category: 'health', content: 'Is vegan' });
    expect(await facts.update(userId, saved.fact.id, { content: 'Is vegan', category: 'health' })).toMatchObject({ effect: 'unchanged' });

    const removed = await facts.remove(userId, saved.fact.id);
    expect(removed).toEqual({ effect: 'deleted', fact: { id: saved.fact.id, category: 'health', subject: 'diet', content: 'Is vegan', learned: false } });
    expect((await rows(userId)).map((fact) => fact.id)).toEqual([other.fact.id]);
    // Gone is gone: a second removal or update finds nothing.
    expect(await facts.remove(userId, saved.fact.id)).toBeUndefined();
    expect(await facts.update(userId, saved.fact.id, { content: 'x' })).toBeUndefined();
  });

  it('stamps updatedAt from the injected clock', async () => {
    const userId = await newUser();
    const created = await facts.remember(userId, { category: 'work', subject: 'employer', content: 'Works at Acme' });
    const createdAt = clock.now();
    clock.advance(60_000);
    await facts.update(userId, created.fact.id, { content: 'Works at Globex' });
    const [row] = await rows(userId);
    expect(row?.createdAt.toISOString()).toBe(createdAt.toISOString());
    expect(row?.updatedAt.toISOString()).toBe(clock.now().toISOString());
  });

  it('does not duplicate a fact that repeats a saved one, ignoring case and punctuation', async () => {
    const userId = await newUser();
    const first = await facts.remember(userId, { category: 'preferences', content: 'Is vegetarian' });
    const again = await facts.remember(userId, { category: 'preferences', content: 'is VEGETARIAN.' });
    expect(again).toEqual({ effect: 'unchanged', fact: first.fact });
    // With a subject the repeat is still a repeat, whatever subject it now gives.
    const withSubject = await facts.remember(userId, { category: 'health', subject: 'diet', content: 'Is vegetarian!' });
    expect(withSubject.effect).toBe('unchanged');
    expect(await rows(userId)).toHaveLength(1);
  });

  it('replaces the fact about the same subject instead of contradicting it', async () => {
    const userId = await newUser();
    const vegetarian = await facts.remember(userId, { category: 'preferences', subject: 'diet', content: 'Is vegetarian' });
    const fish = await facts.remember(userId, { category: 'preferences', subject: 'Diet', content: 'Eats fish now (pescatarian)' });
    expect(fish.effect).toBe('updated');
    expect(fish.fact.id).toBe(vegetarian.fact.id);
    const stored = await rows(userId);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ id: vegetarian.fact.id, subject: 'diet', content: 'Eats fish now (pescatarian)' });
  });

  it('gives a subjectless fact the subject of its repeat, so a later fact about that subject replaces it', async () => {
    const userId = await newUser();
    const plain = await facts.remember(userId, { category: 'preferences', content: 'Is vegetarian' });
    const repeat = await facts.remember(userId, { category: 'preferences', subject: 'diet', content: 'Is vegetarian.' });
    expect(repeat).toEqual({ effect: 'unchanged', fact: { ...plain.fact, subject: 'diet' } });
    const fish = await facts.remember(userId, { category: 'preferences', subject: 'diet', content: 'Eats fish now' });
    expect(fish).toMatchObject({ effect: 'updated', fact: { id: plain.fact.id, content: 'Eats fish now' } });
    expect(await rows(userId)).toHaveLength(1);
  });

  it('leaves a repeat alone when another fact already has the subject', async () => {
    const userId = await newUser();
    await facts.remember(userId, { category: 'preferences', content: 'Likes jazz' });
    const keyed = await facts.remember(userId, { category: 'preferences', subject: 'music', content: 'Likes blues' });
    const repeat = await facts.remember(userId, { category: 'preferences', subject: 'music', content: 'likes jazz' });
    expect(repeat.effect).toBe('unchanged');
    expect(repeat.fact.subject).toBeNull();
    expect((await rows(userId)).map((fact) => [fact.subject, fact.content])).toEqual([
      [null, 'Likes jazz'],
      ['music', keyed.fact.content],
    ]);
  });

  it('normalizes subjects, so "Sister" and "sister." are the same subject', async () => {
    const userId = await newUser();
    await facts.remember(userId, { category: 'relationships', subject: 'Sister.', content: "Sister's name is Dana" });
    const renamed = await facts.remember(userId, { category: 'relationships', subject: ' sister ', content: "Sister's name is Dana Levi" });
    expect(renamed.effect).toBe('updated');
    expect(await rows(userId)).toHaveLength(1);
    expect((await rows(userId))[0]?.subject).toBe('sister');
  });

  it('keeps facts without a subject apart', async () => {
    const userId = await newUser();
    await facts.remember(userId, { category: 'other', content: 'Has a dog' });
    await facts.remember(userId, { category: 'other', content: 'Has a cat' });
    expect(await rows(userId)).toHaveLength(2);
  });

  it('turns concurrent writes about the same subject into one row', async () => {
    const userId = await newUser();
    const contents = ['Lives in Berlin', 'Lives in Paris', 'Lives in Rome', 'Lives in Madrid', 'Lives in Oslo'];
    const results = await Promise.all(contents.map((content) => facts.remember(userId, { category: 'personal', subject: 'home city', content })));
    const stored = await rows(userId);
    expect(stored).toHaveLength(1);
    expect(results.filter((result) => result.effect === 'created')).toHaveLength(1);
    expect(results.every((result) => result.fact.id === stored[0]!.id)).toBe(true);
    expect(contents).toContain(stored[0]!.content);
  });

  it('turns concurrent repeats of the same fact into one row, reported once as created and otherwise unchanged', async () => {
    const userId = await newUser();
    const withSubject = await Promise.all(
      Array.from({ length: 5 }, () => facts.remember(userId, { category: 'preferences', subject: 'coffee', content: 'Drinks coffee black' })),
    );
    const withoutSubject = await Promise.all(
      Array.from({ length: 5 }, () => facts.remember(userId, { category: 'preferences', content: 'Prefers window seats' })),
    );
    expect(await rows(userId)).toHaveLength(2);
    for (const results of [withSubject, withoutSubject]) {
      expect(results.map((result) => result.effect).sort()).toEqual(['created', 'unchanged', 'unchanged', 'unchanged', 'unchanged']);
    }
  });

  it('keeps users apart: one user cannot read, update or remove another user\'s fact', async () => {
    const alice = await newUser();
    const bob = await newUser();
    const bobFact = await facts.remember(bob, { category: 'health', subject: 'allergy', content: 'Allergic to peanuts' });
    // The same subject and content for another user is a new fact, not a repeat.
    const aliceFact = await facts.remember(alice, { category: 'health', subject: 'allergy', content: 'Allergic to peanuts' });
    expect(aliceFact.effect).toBe('created');
    expect(aliceFact.fact.id).not.toBe(bobFact.fact.id);

    expect((await facts.list(alice)).map((fact) => fact.id)).toEqual([aliceFact.fact.id]);
    expect(await facts.update(alice, bobFact.fact.id, { content: 'Not allergic' })).toBeUndefined();
    expect(await facts.remove(alice, bobFact.fact.id)).toBeUndefined();
    expect(await facts.update(alice, randomUUID(), { content: 'x' })).toBeUndefined();
    const bobRows = await rows(bob);
    expect(bobRows).toHaveLength(1);
    expect(bobRows[0]?.content).toBe('Allergic to peanuts');
  });

  it('keeps learned facts apart: never over an explicit one; saying or correcting one makes it explicit', async () => {
    const userId = await newUser();
    const message = await database.prisma.message.create({ data: { userId, role: 'user', content: 'I work at Globex now', channel: 'sms', tokenCount: 6 } });
    const learned = { learned: true, sourceMessageId: message.id };
    await facts.remember(userId, { category: 'work', subject: 'employer', content: 'Works at Acme' });
    // A learned fact about the same subject leaves the explicit one as it was.
    expect(await facts.remember(userId, { category: 'work', subject: 'employer', content: 'Works at Globex' }, undefined, learned)).toMatchObject({ effect: 'unchanged', fact: { content: 'Works at Acme', learned: false } });
    // A learned fact replaces a learned one.
    const diet = await facts.remember(userId, { category: 'preferences', subject: 'diet', content: 'Is vegetarian' }, undefined, learned);
    expect(diet).toMatchObject({ effect: 'created', fact: { learned: true } });
    expect(await facts.remember(userId, { category: 'preferences', subject: 'diet', content: 'Is vegan' }, undefined, learned)).toMatchObject({ effect: 'updated', fact: { learned: true } });
    // The user saying it makes it theirs.
    expect(await facts.remember(userId, { category: 'preferences', content: 'Is vegan' })).toMatchObject({ effect: 'unchanged', fact: { learned: false } });
    const sister = await facts.remember(userId, { category: 'relationships', subject: 'sister', content: 'Sister is Dana' }, undefined, learned);
    expect(await facts.update(userId, sister.fact.id, { content: 'Sister is Dana Katz' })).toMatchObject({ fact: { learned: false } });
    expect((await rows(userId)).map((fact) => [fact.content, fact.learned, fact.sourceMessageId])).toEqual([
      ['Works at Acme', false, null],
      ['Is vegan', false, null],
      ['Sister is Dana Katz', false, null],
    ]);
  });
});
