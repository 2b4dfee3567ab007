import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/model/model-client.js';
import { messageParams } from '../../src/model/anthropic-request.js';
import { profileFor } from '../../src/model/model-profiles.js';
import { PromptCachePolicy, PromptCacheTtlModel } from '../../src/model/prompt-cache-policy.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { costOfUsage } from '../../src/model/model-cost.js';

const MINUTE = 60_000;

/** Uses `prefix` at the given gaps (minutes) and returns the choice made for each use. */
function paced(gaps: number[], prefix = 'claude-sonnet-5-5|planner'): string[] {
  let now = 0;
  const policy = new PromptCachePolicy(() => now);
  const choices = [policy.choose(prefix)];
  for (const gap of gaps) {
    now += gap * MINUTE;
    choices.push(policy.choose(prefix));
  }
  return choices;
}

describe('PromptCachePolicy', () => {
  it('starts with the API default, five minutes', () => {
    expect(paced([])).toEqual(['5m']);
  });

  it('chooses five minutes for a busy prefix (uses seconds apart)', () => {
    expect(paced(Array(30).fill(0.2)).at(-1)).toBe('5m');
  });

  it('chooses an hour for a prefix used every 10 to 50 minutes', () => {
    expect(paced([10, 30, 50, 20, 40, 15, 45, 25, 35, 30]).at(-1)).toBe('1h');
  });

  it('stops marking a prefix that is almost never reused within an hour: a write would cost more than none', () => {
    expect(paced([90, 120, 180, 75, 240, 100, 130, 95]).at(-1)).toBe('none');
  });

  it('follows a changing pace: the recent gaps decide', () => {
    const choices = paced([...Array(40).fill(30), ...Array(40).fill(0.1)]);
    expect(choices[40]).toBe('1h');
    expect(choices[45]).toBe('1h');
    expect(choices.at(-1)).toBe('5m');
  });

  it('keeps each prefix to its own pace', () => {
    let now = 0;
    const policy = new PromptCachePolicy(() => now);
    for (let index = 0; index < 40; index += 1) {
      policy.choose('sonnet|planner');
      if (index % 4 === 0) policy.choose('haiku|memory-agent');
      now += 20 * MINUTE;
    }
    expect(policy.decide('sonnet|planner')).toBe('1h');
    expect(policy.decide('haiku|memory-agent')).toBe('none');
  });
});

describe('PromptCacheTtlModel and the request', () => {
  const request = (cache: boolean): ModelRequest => ({
    model: 'claude-sonnet-5-5',
    system: [{ text: 'x'.repeat(8_000), cache }, { text: 'per user' }],
    messages: [{ role: 'user', content: 'hi' }],
    maxTokens: 64,
    purpose: 'planner',
  });

  it('sets the chosen lifetime on requests with a cached prefix only', async () => {
    const inner = new ScriptedModel([{ text: 'a' }, { text: 'b' }]);
    let now = 0;
    const model = new PromptCacheTtlModel(inner, new PromptCachePolicy(() => now));
    await model.generate(request(true));
    now += 30 * MINUTE;
    await model.generate(request(false));
    expect(inner.calls.map((call) => call.cacheTtl)).toEqual(['5m', undefined]);
  });

  it("sends ttl '1h', the default marker for 5m, and no marker for none", () => {
    const profile = profileFor('claude-sonnet-5-5');
    const marker = (cacheTtl: ModelRequest['cacheTtl']) => (messageParams({ ...request(true), ...(cacheTtl ? { cacheTtl } : {}) }, profile).system as Array<{ cache_control?: unknown }>)[0]!.cache_control;
    expect(marker('1h')).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(marker('5m')).toEqual({ type: 'ephemeral' });
    expect(marker(undefined)).toEqual({ type: 'ephemeral' });
    expect(marker('none')).toBeUndefined();
  });

  it('prices one-hour writes at twice the input price, five-minute ones at the profile\'s write price', () => {
    const prices = profileFor('claude-sonnet-5-5').prices;
    const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 1_000_000 };
    expect(costOfUsage('claude-sonnet-5-5', usage)).toBeCloseTo(prices.cacheWrite);
    expect(costOfUsage('claude-sonnet-5-5', { ...usage, cacheWrite1hTokens: 1_000_000 })).toBeCloseTo(prices.input * 2);
    expect(costOfUsage('claude-sonnet-5-5', { ...usage, cacheWrite1hTokens: 400_000 })).toBeCloseTo(0.6 * prices.cacheWrite + 0.4 * prices.input * 2);
  });
});
