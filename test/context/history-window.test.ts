import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { applyHistoryWindow, loadHistoryWindow, type WindowCandidate } from '../../src/context/history-window.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const HOUR = 3_600_000;
const NOW = new Date('2026-03-10T12:00:00.000Z');

/** Candidates newest first, as the query returns them: index 0 is the newest, one minute apart. */
function candidates(tokenCounts: number[]): WindowCandidate[] {
  return tokenCounts.map((tokenCount, index) => ({
    role: index % 2 === 0 ? 'assistant' : 'user',
    content: `m${index}`,
    createdAt: new Date(NOW.getTime() - index * 60_000),
    tokenCount,
  }));
}

const contents = (messages: Array<{ content: string }>) => messages.map((message) => message.content);

describe('applyHistoryWindow', () => {
  const roomy = { maxAgeHours: 24, maxMessages: 100, maxTokens: 100_000 };

  it('returns nothing for no messages', () => {
    expect(applyHistoryWindow([], roomy)).toEqual([]);
  });

  it('returns everything, oldest first, when it all fits', () => {
    const window = applyHistoryWindow(candidates([1, 1, 1]), roomy);
    expect(contents(window)).toEqual(['m2', 'm1', 'm0']);
    expect(window.map((message) => message.createdAt.getTime())).toEqual([...window.map((message) => message.createdAt.getTime())].sort());
  });

  it('keeps only the newest maxMessages', () => {
    expect(contents(applyHistoryWindow(candidates([1, 1, 1, 1, 1]), { ...roomy, maxMessages: 2 }))).toEqual(['m1', 'm0']);
  });

  it('drops the oldest until the total fits maxTokens, keeping the newest', () => {
    // Newest first: 10 + 10 = 20 fits 25; adding the third (30) would not.
    expect(contents(applyHistoryWindow(candidates([10, 10, 10, 10]), { ...roomy, maxTokens: 25 }))).toEqual(['m1', 'm0']);
  });

  it('keeps a window that fills maxTokens exactly', () => {
    expect(contents(applyHistoryWindow(candidates([10, 10, 10, 10]), { ...roomy, maxTokens: 30 }))).toEqual(['m2', 'm1', 'm0']);
  });

  it('never leaves a gap: once one message does not fit, nothing older is kept', () => {
    // m1 is too big for what is left; m2 would fit on its own but would skip over m1.
    expect(contents(applyHistoryWindow(candidates([5, 30, 5]), { ...roomy, maxTokens: 20 }))).toEqual(['m0']);
  });

  it('applies both limits together', () => {
    const window = applyHistoryWindow(candidates([1, 1, 1, 1, 1, 1]), { ...roomy, maxMessages: 4, maxTokens: 3 });
    expect(contents(window)).toEqual(['m2', 'm1', 'm0']);
  });

  it('returns role, content and time only', () => {
    const [message] = applyHistoryWindow(candidates([7]), roomy);
    expect(message).toEqual({ role: 'assistant', content: 'm0', createdAt: NOW });
  });
});

describe('loadHistoryWindow (Postgres, injected clock, default limits)', () => {
  let database: TestDatabase;
  const clock = new ManualClock(NOW);
  // docs/ARCHITECTURE.md: 24 h, 20 messages, 4000 tokens; taken from the configuration defaults.
  const defaults = loadConfig({}).history;
  let userId: string;
  let otherUserId: string;

  beforeAll(async () => {
    database = await createTestDatabase(2);
  });
  afterAll(async () => {
    await database.drop();
  });

  beforeEach(async () => {
    clock.set(NOW);
    await database.prisma.message.deleteMany();
    await database.prisma.user.deleteMany();
    userId = (await database.prisma.user.create({ data: { phone: '+447400123456', timezone: 'Europe/London' } })).id;
    otherUserId = (await database.prisma.user.create({ data: { phone: '+447400654321', timezone: 'Europe/London' } })).id;
  });

  interface Seed {
    content: string;
    /** Milliseconds before NOW. */
    ago: number;
    role?: 'user' | 'assistant';
    inboundStatus?: 'pending' | 'handled' | 'ignored';
    tokenCount?: number;
    user?: string;
  }

  async function seed(...messages: Seed[]): Promise<string[]> {
    const ids: string[] = [];
    for (const message of messages) {
      const role = message.role ?? 'user';
      const created = await database.prisma.message.create({
        data: {
          userId: message.user ?? userId,
          role,
          content: message.content,
          channel: 'sms',
          tokenCount: message.tokenCount ?? 5,
          inboundStatus: role === 'user' ? (message.inboundStatus ?? 'handled') : null,
          createdAt: new Date(NOW.getTime() - message.ago),
        },
        select: { id: true },
      });
      ids.push(created.id);
    }
    return ids;
  }

  const load = (exclude: string[] = [], config = defaults) => loadHistoryWindow(database.prisma, clock, userId, exclude, config);

  it('uses the documented defaults', () => {
    expect(defaults).toEqual({ maxAgeHours: 24, maxMessages: 20, maxTokens: 4000 });
  });

  it('returns nothing for a user without messages', async () => {
    expect(await load()).toEqual([]);
  });

  it('keeps the last 24 hours by the injected clock, oldest first', async () => {
    await seed(
      { content: 'too old', ago: 24 * HOUR + 1 },
      { content: 'exactly 24 h', ago: 24 * HOUR },
      { content: 'this morning', ago: 3 * HOUR, role: 'assistant' },
      { content: 'just now', ago: 60_000 },
    );
    const window = await load();
    expect(contents(window)).toEqual(['exactly 24 h', 'this morning', 'just now']);
    expect(window[1]).toEqual({ role: 'assistant', content: 'this morning', createdAt: new Date(NOW.getTime() - 3 * HOUR) });

    // The window moves with the clock, not with the wall clock.
    clock.advance(21 * HOUR);
    expect(contents(await load())).toEqual(['this morning', 'just now']);
    clock.advance(4 * HOUR);
    expect(contents(await load())).toEqual([]);
  });

  it('leaves out the messages being answered', async () => {
    const [, current, burst] = await seed(
      { content: 'earlier', ago: 10 * 60_000 },
      { content: 'current', ago: 60_000, inboundStatus: 'pending' },
      { content: 'burst', ago: 30_000, inboundStatus: 'handled' },
    );
    expect(contents(await load([current!, burst!]))).toEqual(['earlier']);
  });

  it('leaves out inbound messages still pending or deliberately ignored, and other users\' messages', async () => {
    await seed(
      { content: 'answered', ago: 5 * 60_000, inboundStatus: 'handled' },
      { content: 'reply', ago: 4 * 60_000, role: 'assistant' },
      { content: 'STOP', ago: 3 * 60_000, inboundStatus: 'ignored' },
      { content: 'waiting for its turn', ago: 2 * 60_000, inboundStatus: 'pending' },
      { content: 'someone else', ago: 60_000, user: otherUserId },
    );
    expect(contents(await load())).toEqual(['answered', 'reply']);
  });

  it('keeps at most the newest 20 messages', async () => {
    await seed(...Array.from({ length: 25 }, (_, index) => ({ content: `n${index}`, ago: (25 - index) * 60_000 })));
    const window = await load();
    expect(window).toHaveLength(20);
    expect(contents(window)).toEqual(Array.from({ length: 20 }, (_, index) => `n${index + 5}`));
  });

  it('keeps at most 4000 tokens, dropping the oldest', async () => {
    // Ten messages of 500 tokens (~2000 characters each): only the newest eight fit.
    await seed(...Array.from({ length: 10 }, (_, index) => ({ content: `t${index}`, ago: (10 - index) * 60_000, tokenCount: 500 })));
    expect(contents(await load())).toEqual(['t2', 't3', 't4', 't5', 't6', 't7', 't8', 't9']);
  });

  it('fills the 20 places with qualifying messages only: newer pending ones take none', async () => {
    // 20 qualifying small messages plus newer pending/ignored ones that must not take their places.
    await seed(
      ...Array.from({ length: 20 }, (_, index) => ({ content: `q${index}`, ago: (40 - index) * 60_000 })),
      ...Array.from({ length: 5 }, (_, index) => ({ content: `p${index}`, ago: (10 - index) * 60_000, inboundStatus: 'pending' as const })),
    );
    const window = await load();
    expect(window).toHaveLength(20);
    expect(contents(window)[0]).toBe('q0');
  });
});
