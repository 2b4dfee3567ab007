import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import type { RecordedAnthropicRequest, ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { eventually } from '../helpers/eventually.js';
import { textingUser } from '../helpers/texting-user.js';
import { parseScrape, sampleValue } from '../observability/scrape.js';

/**
 * Background fact learning (issue 21 item 5), through the webhook: the user texts, Herald
 * answers, and once the conversation pauses one cheap model call reads only the user's own
 * words and proposes facts, which are checked in code before the fact service keeps them.
 * The pass is the job's handler (`herald.learning.learn`), run here by hand once the fake
 * clock is past the pause, so each test says exactly which model calls happen.
 */

const DELAY_MS = 60 * 60 * 1000;
const isLearning = (request: RecordedAnthropicRequest) => request.systemText().includes('<fact-learning>');

function proposals(facts: unknown): ScriptedAnthropicResponse {
  return { toolCalls: [{ name: 'save_learned_facts', input: { facts } }], usage: { input_tokens: 600, output_tokens: 80 } };
}

/** A learning counter from the deployment's /metrics (cumulative: tests read it before and after). */
async function learningCounter(chat: ReturnType<typeof textingUser>, name: string, labels: Record<string, string> = {}): Promise<number> {
  return sampleValue(parseScrape((await chat.harness.herald.metrics.scrape()).body), name, labels);
}

describe('fact learning', () => {
  // The fake clock starts at the real now, so the pass the webhook schedules (an hour later) never fires by itself.
  const clock = new ManualClock(new Date());
  const chat = textingUser({ clock, startAt: new Date().toISOString(), firstPhone: 7100, harness: { env: { FACT_LEARNING: 'on', FACT_LEARNING_DELAY_MS: String(DELAY_MS), METRICS_TOKEN: 'learning-metrics-token' } } });

  /** Texts Herald; the planner answers directly. */
  async function say(text: string): Promise<string> {
    chat.harness.anthropic.enqueue({ text: 'Noted!' });
    const reply = await chat.send(text);
    chat.harness.anthropic.rethrowScriptErrors();
    clock.advance(1_000);
    return reply;
  }
  /** The conversation pauses; the pass runs with the model answering `answer`. */
  async function pause(answer?: ScriptedAnthropicResponse) {
    clock.advance(DELAY_MS + 1_000);
    const before = chat.harness.anthropic.requests.length;
    if (answer) chat.harness.anthropic.enqueue(answer);
    const outcome = await chat.harness.herald.learning.learn(chat.userId);
    chat.harness.anthropic.rethrowScriptErrors();
    const calls = chat.harness.anthropic.requests.slice(before);
    return { outcome, calls };
  }
  const facts = () => chat.harness.database.prisma.fact.findMany({ where: { userId: chat.userId }, orderBy: { createdAt: 'asc' } });
  const userMessage = (content: string) => chat.harness.database.prisma.message.findFirstOrThrow({ where: { userId: chat.userId, role: 'user', content } });

  it('learns durable facts from what the user wrote, marked learned with their message, in one model call counted against the budget', async () => {
    await say("By the way, I'm vegetarian");
    await say('My sister Dana lives in Haifa');
    // One waiting pass per user, however many messages.
    const waiting = await eventually(async () => {
      const { rows } = await chat.harness.database.pool.query(`SELECT start_after FROM pgboss.job WHERE name = 'fact-learning' AND data->>'userId' = $1 AND state = 'created'`, [chat.userId]);
      return rows.length > 0 ? rows : undefined;
    }, 'the learning pass scheduled');
    expect(waiting).toHaveLength(1);

    const { outcome, calls } = await pause(
      proposals([
        { category: 'preferences', subject: 'diet', content: 'Is vegetarian', message: 1 },
        { category: 'relationships', subject: 'sister', content: 'Sister Dana lives in Haifa', message: 2 },
      ]),
    );
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(isLearning(call!)).toBe(true);
    // Only the user's own words: Herald's replies are not read.
    expect(call!.lastUserText()).toContain("I'm vegetarian");
    expect(call!.lastUserText()).toContain('My sister Dana lives in Haifa');
    expect(call!.allText()).not.toContain('Noted!');
    expect(outcome).toMatchObject({ kind: 'learned', stored: 2 });

    const stored = await facts();
    expect(stored.map((fact) => [fact.content, fact.learned])).toEqual([
      ['Is vegetarian', true],
      ['Sister Dana lives in Haifa', true],
    ]);
    expect(stored[0]!.sourceMessageId).toBe((await userMessage("By the way, I'm vegetarian")).id);
    // The pass is a turn of its own for the daily budget.
    const turns = await chat.harness.database.prisma.turn.findMany({ where: { userId: chat.userId, modelCalls: 1 }, orderBy: { startedAt: 'desc' } });
    expect(Number(turns[0]!.costUsd)).toBeGreaterThan(0);

    // Nothing new since: no second call.
    expect((await pause()).calls).toHaveLength(0);
  });

  it('never reads a message that says "remember nothing about this"', async () => {
    await say("Remember nothing about this: I'm interviewing at Globex next week");
    const { outcome, calls } = await pause();
    expect(calls).toHaveLength(0);
    expect(outcome.kind).toBe('nothing_new');
    expect(await facts()).toEqual([]);

    // Next to other messages, it is left out of the prompt.
    await say('I run every morning before work');
    await say("Don't remember this: my salary is 90k");
    const next = await pause(proposals([{ category: 'routine', subject: 'exercise', content: 'Runs every morning before work', message: 1 }]));
    expect(next.calls).toHaveLength(1);
    expect(next.calls[0]!.allText()).not.toContain('salary');
    expect((await facts()).map((fact) => fact.content)).toEqual(['Runs every morning before work']);
  });

  it('never lets a learned fact replace one the user asked Herald to keep', async () => {
    await chat.harness.database.prisma.fact.create({ data: { userId: chat.userId, category: 'work', subject: 'employer', content: 'Works at Acme' } });
    await say('Ugh, Globex called again about that job');
    const { outcome } = await pause(proposals([{ category: 'work', subject: 'employer', content: 'Works at Globex', message: 1 }]));
    expect(outcome).toMatchObject({ kind: 'learned', stored: 0 });
    expect((await facts()).map((fact) => [fact.content, fact.learned])).toEqual([['Works at Acme', false]]);
  });

  it('keeps at most 10 of 200 proposed facts', async () => {
    await say('Let me tell you everything about me');
    const many = Array.from({ length: 200 }, (_, index) => ({ category: 'preferences', subject: `thing ${index}`, content: `Likes thing number ${index}`, message: 1 }));
    const { outcome } = await pause(proposals(many));
    expect(outcome).toMatchObject({ kind: 'learned', proposed: 200, stored: 10 });
    expect(await facts()).toHaveLength(10);
  });

  it('stores nothing when the model answers garbage, and says so in the log', async () => {
    await say('I love jazz');
    const first = await pause({ text: 'Sure! The user likes jazz, I think?' });
    expect(first.outcome.kind).toBe('unreadable');
    await say('And I hate mornings');
    const second = await pause(proposals([{ category: 'astrology', content: 42 }, 'jazz', null]));
    expect(second.outcome).toMatchObject({ kind: 'learned', stored: 0, dropped: 3 });
    await say('Also cats');
    const third = await pause({ toolCalls: [{ name: 'save_learned_facts', input: { facts: 'lots of them' } }] });
    expect(third.outcome.kind).toBe('unreadable');
    expect(await facts()).toEqual([]);
    expect(chat.harness.logs.lines.some((line) => line.event === 'learning_unreadable')).toBe(true);
  });

  it('keeps health and the other special categories only when the user asked to remember, and never a one-off state', async () => {
    await say("I'm so tired today");
    await say('My doctor says my blood pressure is high');
    await say("Please remember that I'm diabetic");
    const { outcome } = await pause(
      proposals([
        { category: 'one_off', subject: 'mood', content: 'Is tired', message: 1 },
        { category: 'health', subject: 'blood pressure', content: 'Has high blood pressure', message: 2 },
        { category: 'health', subject: 'diabetes', content: 'Is diabetic', message: 3 },
        { category: 'religion', subject: 'faith', content: 'Is Catholic', message: 2 },
      ]),
    );
    expect(outcome).toMatchObject({ kind: 'learned', stored: 1, dropped: 3 });
    expect((await facts()).map((fact) => [fact.category, fact.content])).toEqual([['health', 'Is diabetic']]);
  });

  it('reads nothing for a user past the daily budget', async () => {
    await say('I live in Boston');
    // Spent at the moment the pass runs: the fake clock may cross the user's midnight meanwhile (tests run shuffled).
    const passAt = new Date(clock.now().getTime() + DELAY_MS + 1_000);
    await chat.harness.database.prisma.turn.create({ data: { userId: chat.userId, status: 'succeeded', costUsd: 5, startedAt: passAt } });
    const { outcome, calls } = await pause();
    expect(outcome.kind).toBe('budget');
    expect(calls).toHaveLength(0);
    expect(await facts()).toEqual([]);
  });

  it('makes one model call however many passes run at once', async () => {
    await say('I work as a nurse');
    clock.advance(DELAY_MS + 1_000);
    chat.harness.anthropic.setFallback(proposals([{ category: 'work', subject: 'job', content: 'Is a nurse', message: 1 }]));
    const before = chat.harness.anthropic.requests.length;
    const outcomes = await Promise.all([chat.harness.herald.learning.learn(chat.userId), chat.harness.herald.learning.learn(chat.userId), chat.harness.herald.learning.learn(chat.userId)]);
    expect(chat.harness.anthropic.requests.length - before).toBe(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'learned')).toHaveLength(1);
    expect((await facts()).map((fact) => fact.content)).toEqual(['Is a nurse']);
  });

  it('waits while the user is still talking', async () => {
    await say('I have two kids');
    clock.advance(DELAY_MS / 2);
    const outcome = await chat.harness.herald.learning.learn(chat.userId);
    expect(outcome.kind).toBe('not_yet');
  });
  it('counts a pass whose model call fails, the next one that learns, and one with nothing new', async () => {
    const count = (outcome: string) => learningCounter(chat, 'herald_learning_passes_total', { outcome });
    const [failed, learned, nothing] = [await count('failed'), await count('learned'), await count('nothing_new')];
    await say('I run every Tuesday');
    // The agent model and its fallback both fail: the job fails (pg-boss retries it) and is counted.
    chat.harness.anthropic.enqueue({ error: { status: 500 } });
    await expect(pause({ error: { status: 500 } })).rejects.toThrow();
    expect(await count('failed')).toBe(failed + 1);
    // The next window reads the same message again.
    expect((await pause(proposals([{ category: 'routine', subject: 'running', content: 'Runs every Tuesday', message: 1 }]))).outcome).toMatchObject({ kind: 'learned', stored: 1 });
    expect(await count('learned')).toBe(learned + 1);
    expect((await pause()).outcome.kind).toBe('nothing_new');
    expect(await count('nothing_new')).toBe(nothing + 1);
  });
});

describe('fact learning by the queue', () => {
  // The real clock and a short pause: the job pg-boss holds runs the pass by itself.
  const clock = new ManualClock(new Date());
  const chat = textingUser({ clock, startAt: new Date().toISOString(), firstPhone: 7180, harness: { env: { FACT_LEARNING: 'on', FACT_LEARNING_DELAY_MS: '300', METRICS_TOKEN: 'learning-metrics-token' } } });

  it('runs one pass once the conversation pauses, after the reply', async () => {
    // pg-boss runs the job by the database's clock; the pass then checks the pause by Herald's (this one, moved on below).
    chat.harness.anthropic.setFallback((request) =>
      isLearning(request) ? proposals([{ category: 'preferences', subject: 'drink', content: 'Drinks oat milk', message: 1 }]) : { text: 'Noted!' },
    );
    expect(await chat.send('I only drink oat milk')).toBe('Noted!');
    clock.advance(1_000);
    const facts = await eventually(async () => {
      const found = await chat.harness.database.prisma.fact.findMany({ where: { userId: chat.userId } });
      return found.length > 0 ? found : undefined;
    }, 'a fact learned by the queued pass');
    expect(facts.map((fact) => [fact.content, fact.learned])).toEqual([['Drinks oat milk', true]]);
    expect(chat.harness.anthropic.requests.filter(isLearning)).toHaveLength(1);
    // An operator sees passes and what they stored (the counters are the deployment's, so they only grow).
    await eventually(async () => ((await learningCounter(chat, 'herald_learning_passes_total', { outcome: 'learned' })) >= 1 ? true : undefined), 'the pass counted');
    expect(await learningCounter(chat, 'herald_facts_learned_total')).toBeGreaterThanOrEqual(1);
  });
});
