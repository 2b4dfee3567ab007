import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedAnthropicRequest, ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';

/**
 * Herald on today's models through the strict fake (issue 7): the default planner
 * (claude-sonnet-5-5) and agents (claude-haiku-5-5) think before they use tools, and the
 * fake refuses any tool-loop request that does not hand that thinking back unchanged; it
 * also refuses every setting the 5.x generation answers 400 to. Real models also end a
 * step in plain text, and get stuck on one bad input; neither may cost more than it must.
 */

const isAgentRequest = (request: RecordedAnthropicRequest) => request.toolNames().includes('complete_step');
const THINKING = 'PRIVATE-THINKING-7f3a: the user wants a fact saved; remember_fact fits.';

function plan(agent: string, task: string): ScriptedAnthropicResponse {
  return { toolCalls: [{ name: 'create_plan', input: { analysis: 'One step', goal: 'Do what the user asked', steps: [{ id: 'step_1', agent, task }] } }] };
}

describe('today\'s models, real model behaviour', () => {
  let harness: HeraldHarness;
  let phoneCounter = 0;
  const nextPhone = () => `+1415555${String(3100 + (phoneCounter += 1)).padStart(4, '0')}`;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  async function exchange(phone: string, body: string) {
    expect((await harness.inbound({ from: phone, body })).statusCode).toBe(200);
    const [reply] = await harness.repliesTo(phone, 1);
    const { prisma } = harness.database;
    const user = await prisma.user.findUniqueOrThrow({ where: { phone } });
    const turn = await prisma.turn.findFirstOrThrow({ where: { userId: user.id }, orderBy: { startedAt: 'desc' }, include: { plans: { include: { stepRuns: true } } } });
    const facts = await prisma.fact.findMany({ where: { userId: user.id } });
    const messages = await prisma.message.findMany({ where: { userId: user.id } });
    return { reply: reply!.body ?? '', turn, steps: turn.plans[0]?.stepRuns ?? [], facts, messages };
  }

  it('hands the agent\'s thinking back byte-identical in its tool loop, and never shows, stores or logs it at info', async () => {
    harness.anthropic.enqueue(
      plan('memory-agent', 'Save: the user is vegetarian (category preferences, subject "diet").'),
      { toolCalls: [{ name: 'remember_fact', input: { category: 'preferences', subject: 'diet', content: 'Is vegetarian' } }], thinking: THINKING },
      { toolCalls: [{ name: 'complete_step', input: { summary: 'Saved', reply: 'Noted: vegetarian.', created: [{ description: 'Is vegetarian' }] } }] },
    );
    const { reply, turn, facts, messages } = await exchange(nextPhone(), "remember I'm vegetarian");

    expect(reply).toBe('Noted: vegetarian.');
    expect(facts.map((fact) => fact.content)).toEqual(['Is vegetarian']);
    expect(turn).toMatchObject({ status: 'succeeded', modelCalls: 3 });
    // The fake verified the hand-back (it answers 400 otherwise); here is the proof in the request itself.
    const [, firstAgentCall, secondAgentCall] = harness.anthropic.requests;
    expect(isAgentRequest(firstAgentCall!)).toBe(true);
    const assistantTurn = (secondAgentCall!.body.messages as unknown as Array<{ role: string; content: Array<Record<string, unknown>> }>)[1]!;
    expect(assistantTurn.role).toBe('assistant');
    expect(assistantTurn.content[0]).toMatchObject({ type: 'thinking', thinking: THINKING, signature: expect.any(String) });
    expect(assistantTurn.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    // memory-agent's prompt (its fact, note and search tools with its instructions) passes Haiku
    // 5.5's minimum cacheable prefix (2,048 tokens): marked, and byte-identical across calls.
    for (const agentCall of [firstAgentCall!, secondAgentCall!]) {
      expect(agentCall.body.model).toBe('claude-haiku-5-5');
      expect(JSON.stringify(agentCall.body.system)).toContain('cache_control');
    }
    expect(JSON.stringify(firstAgentCall!.body.system)).toBe(JSON.stringify(secondAgentCall!.body.system));

    expect(messages.map((message) => message.content).join('\n')).not.toContain('PRIVATE-THINKING');
    expect(harness.twilio.messages.map((message) => message.body).join('\n')).not.toContain('PRIVATE-THINKING');
    const infoAndAbove = harness.logs.lines.filter((line) => line.level >= 30);
    expect(JSON.stringify(infoAndAbove)).not.toContain('PRIVATE-THINKING');
  });

  it('a sub-agent that ends in plain text after one successful write has finished: one write, no retry, 3 calls', async () => {
    harness.anthropic.enqueue(
      plan('memory-agent', 'Save: the user\'s sister is called Dana (category relationships, subject "sister").'),
      { toolCalls: [{ name: 'remember_fact', input: { category: 'relationships', subject: 'sister', content: "Sister's name is Dana" } }] },
      { text: "Got it, I'll remember your sister is Dana." },
    );
    const { reply, turn, steps, facts } = await exchange(nextPhone(), 'my sister is called Dana, remember that');

    expect(reply).toBe("Got it, I'll remember your sister is Dana.");
    expect(harness.anthropic.requests).toHaveLength(3);
    expect(facts.map((fact) => fact.content)).toEqual(["Sister's name is Dana"]);
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ status: 'completed', attempt: 0, modelCalls: 2 });
    // The report's changes are the ledger's, not the agent's words.
    expect(steps[0]!.output).toMatchObject({ created: [{ description: "Sister's name is Dana", id: facts[0]!.id }] });
    expect(turn).toMatchObject({ status: 'succeeded', modelCalls: 3 });
  });

  it('a model looping on one invalid input stops after the second identical error: no retry, no replan', async () => {
    const bad = { toolCalls: [{ name: 'remember_fact', input: { category: 'hobbies', content: 'Plays chess' } }] };
    harness.anthropic.enqueue(plan('memory-agent', 'Save: the user plays chess (category interests).'), bad, bad, { text: "Sorry, I couldn't save that just now." });
    harness.anthropic.setFallback(bad); // it would go on forever
    const { reply, turn, steps, facts } = await exchange(nextPhone(), 'remember that I play chess');

    expect(reply).toBe("Sorry, I couldn't save that just now.");
    expect(harness.anthropic.requests.map((request) => (isAgentRequest(request) ? 'agent' : request.toolNames().includes('create_plan') ? 'planner' : 'composer'))).toEqual([
      'planner',
      'agent',
      'agent',
      'composer',
    ]);
    // The agent saw the error once; the second identical input ended the step.
    expect(JSON.stringify(harness.anthropic.requests[2]!.body.messages)).toContain('Invalid arguments for remember_fact: category');
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ status: 'failed', errorKind: 'invalid_input', attempt: 0 });
    expect(facts).toEqual([]);
    expect(turn).toMatchObject({ status: 'failed', modelCalls: 4 });
  });

  it('sends a byte-identical stable prefix (tools and base prompt) for every user and turn, so the cache forms', async () => {
    harness.anthropic.setFallback({ text: 'Hello!' });
    await exchange(nextPhone(), 'hi');
    await exchange(nextPhone(), 'good morning, what can you do?');
    const [first, second] = harness.anthropic.requests;
    const prefix = (request: RecordedAnthropicRequest) => JSON.stringify([request.body.tools, (request.body.system as unknown[])[0]]);

    expect(prefix(first!)).toBe(prefix(second!));
    expect((first!.body.system as unknown as Array<Record<string, unknown>>)[0]).toHaveProperty('cache_control', { type: 'ephemeral' });
    const turns = await harness.database.prisma.turn.findMany({ orderBy: { startedAt: 'desc' }, take: 2 });
    const [latest, earlier] = turns;
    expect(earlier!.cacheWriteTokens).toBeGreaterThan(1024);
    expect(latest!.cacheReadTokens).toBe(earlier!.cacheWriteTokens);
    expect(Number(latest!.costUsd)).toBeLessThan(Number(earlier!.costUsd));
  });

  it('logs each turn\'s tokens per model (input, cache read, cache write, output) and its cost in USD', async () => {
    harness.anthropic.enqueue(
      // The light planner (Haiku) hands the message to the planner (Sonnet): two models in one turn.
      { toolCalls: [{ name: 'hand_to_planner', input: { reason: 'test' } }], usage: { input_tokens: 500, output_tokens: 20 } },
      plan('memory-agent', 'Save: the user likes jazz (category interests, subject "music").'),
      { toolCalls: [{ name: 'remember_fact', input: { category: 'interests', subject: 'music', content: 'Likes jazz' } }], usage: { input_tokens: 1000, output_tokens: 100 } },
      { toolCalls: [{ name: 'complete_step', input: { summary: 'Saved', reply: 'Jazz it is.', created: [{ description: 'Likes jazz' }] } }], usage: { input_tokens: 2000, output_tokens: 50, cache_read_input_tokens: 0 } },
    );
    const { turn } = await exchange(nextPhone(), 'remember I like jazz');

    const finished = harness.logs.lines.filter((line) => line.event === 'turn_finished' && line.turnId === turn.id);
    expect(finished).toHaveLength(1);
    const event = finished[0]! as unknown as { models: Array<Record<string, number | string>>; costUsd: number };
    const haiku = event.models.find((line) => line.model === 'claude-haiku-5-5')!;
    expect(haiku).toMatchObject({ calls: 3, inputTokens: 3500, outputTokens: 170 });
    // Haiku 5.5: $0.10 per million input tokens, $0.50 per million output, cache writes $0.125 and reads $0.01
    // (memory-agent's prompt is long enough to be cached).
    expect(haiku.costUsd).toBeCloseTo(3500 * 0.1e-6 + 170 * 0.5e-6 + Number(haiku.cacheWriteTokens) * 0.125e-6 + Number(haiku.cacheReadTokens) * 0.01e-6, 6);
    const sonnet = event.models.find((line) => line.model === 'claude-sonnet-5-5')!;
    expect(sonnet).toMatchObject({ calls: 1, inputTokens: expect.any(Number), cacheReadTokens: expect.any(Number), cacheWriteTokens: expect.any(Number) });
    // Each line and the total are rounded to the micro-dollar on their own: they may differ by one.
    expect(Math.abs(event.costUsd - (Number(haiku.costUsd) + Number(sonnet.costUsd)))).toBeLessThanOrEqual(1.5e-6);
    expect(Number(turn.costUsd)).toBeCloseTo(event.costUsd, 6);
    expect(turn.models).toEqual(event.models);
  });
});

describe('a model name Herald does not know', () => {
  it('warns at start-up, sends only what every model accepts, and still answers', async () => {
    const harness = await HeraldHarness.start({ env: { MODEL_PLANNER: 'claude-nova-9', MODEL_PLANNER_FALLBACK: 'none', MODEL_PLANNER_LIGHT: 'none' } });
    try {
      const warning = harness.logs.lines.find((line) => line.model === 'claude-nova-9' && line.level === 40);
      expect(warning?.msg).toContain('unknown model name');
      harness.anthropic.enqueue({ text: 'Hi from Nova.' });
      expect((await harness.inbound({ from: '+14155553199', body: 'hi' })).statusCode).toBe(200);
      const [reply] = await harness.replies(1);

      expect(reply?.body).toBe('Hi from Nova.');
      const [request] = harness.anthropic.requests;
      expect(request!.body.model).toBe('claude-nova-9');
      for (const setting of ['temperature', 'top_p', 'top_k', 'tool_choice', 'thinking', 'output_config']) expect(request!.body).not.toHaveProperty(setting);
    } finally {
      await harness.close();
    }
  });
});
