import { describe, expect, it } from 'vitest';
import { CountingModel } from '../../src/model/counting-model.js';
import type { ModelClient, ModelRequest } from '../../src/model/model-client.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { TurnBudget, TurnBudgetExceeded } from '../../src/model/turn-budget.js';

const request = (model = 'claude-haiku-5-5'): ModelRequest => ({ model, system: [{ text: 's' }], messages: [{ role: 'user', content: 'hi' }], maxTokens: 16 });
const answer = (inputTokens: number) => ({ text: 'ok', usage: { inputTokens, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 } });

describe('TurnBudget', () => {
  it('lets work use all but the last call, which only the reply may take', async () => {
    const inner = new ScriptedModel(Array.from({ length: 5 }, () => answer(10)));
    const budget = new TurnBudget(new CountingModel(inner), { maxModelCalls: 3, maxInputTokens: 1_000 });
    await budget.work.generate(request());
    await budget.work.generate(request());
    expect(budget.exhausted).toBe(true);
    await expect(budget.work.generate(request())).rejects.toBeInstanceOf(TurnBudgetExceeded);
    await budget.reply.generate(request());
    await expect(budget.reply.generate(request())).rejects.toThrow('the turn reached its limit of 3 model calls');
    expect(inner.calls).toHaveLength(3);
  });

  it('stops once the prompt tokens sent (input, cache reads and writes) reach the limit', async () => {
    const inner = new ScriptedModel([{ text: 'ok', usage: { inputTokens: 400, cacheReadTokens: 500, cacheWriteTokens: 100, outputTokens: 1 } }, answer(1)]);
    const budget = new TurnBudget(new CountingModel(inner), { maxModelCalls: 10, maxInputTokens: 1_000 });
    await budget.work.generate(request());
    const refusal = await budget.reply.generate(request()).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(TurnBudgetExceeded);
    expect(refusal).toMatchObject({ blame: 'budget', message: 'the turn reached its limit of 1000 input tokens' });
  });
});

describe('CountingModel', () => {
  it('keeps calls, tokens and cost per model that answered', async () => {
    const inner = new ScriptedModel([answer(1000), answer(2000), { text: 'x', usage: { inputTokens: 100, outputTokens: 100, cacheReadTokens: 1000, cacheWriteTokens: 0 } }]);
    const meter = new CountingModel(inner);
    await meter.generate(request('claude-haiku-5-5'));
    await meter.generate(request('claude-haiku-5-5'));
    await meter.generate(request('claude-sonnet-5-5'));

    expect(meter.calls).toBe(3);
    expect(meter.byModel()).toEqual([
      { model: 'claude-haiku-5-5', calls: 2, usage: { inputTokens: 3000, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd: expect.closeTo((3000 * 0.1 + 20 * 0.5) / 1e6, 12) },
      { model: 'claude-sonnet-5-5', calls: 1, usage: { inputTokens: 100, outputTokens: 100, cacheReadTokens: 1000, cacheWriteTokens: 0 }, costUsd: expect.closeTo((100 * 2 + 100 * 10 + 1000 * 0.1) / 1e6, 12) },
    ]);
    expect(meter.costUsd).toBeCloseTo((3000 * 0.1 + 20 * 0.5 + 100 * 2 + 100 * 10 + 1000 * 0.1) / 1e6, 12);
  });

  it('counts the time calls made at once (parallel steps) were waited for once, not once per call', async () => {
    let now = 0;
    const releases: Array<() => void> = [];
    // Each call answers when the test says so.
    const held: ModelClient = {
      generate: (req) => new Promise((resolve) => releases.push(() => resolve({ model: req.model, stopReason: 'end_turn', content: [], usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } }))),
    };
    const meter = new CountingModel(held, () => now);
    const first = meter.generate(request());
    now = 100;
    const second = meter.generate(request());
    now = 1_000;
    releases[0]!();
    await first;
    now = 2_000;
    releases[1]!();
    await second;
    // 0 → 2000 with at least one call in flight; summed per call it would be 2000 + 1900.
    expect(meter.waitingMs).toBe(2_000);
  });
});
