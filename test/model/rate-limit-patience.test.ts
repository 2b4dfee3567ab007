import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/model/model-client.js';
import { RateLimitPatience } from '../../src/model/rate-limit-patience.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { ModelError } from '../../src/shared/errors.js';
import { retryAfterMs } from '../../src/model/anthropic-model.js';

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'claude-haiku-5-5',
  system: [{ text: 'sys' }],
  messages: [{ role: 'user', content: 'hi' }],
  maxTokens: 64,
  purpose: 'planner',
  ...overrides,
});

const limited = (retryAfter?: number) => new ModelError('rate limited', 'rate_limited', { status: 429, retryAfterMs: retryAfter });

/** Waits are recorded, never slept: the test's sleep resolves at once. */
function patience(inner: ScriptedModel, options: { maxWaitMs?: number; random?: () => number } = {}) {
  const waits: number[] = [];
  const slept: number[] = [];
  const model = new RateLimitPatience(inner, {
    ...options,
    random: options.random ?? (() => 0),
    onWait: (_model, milliseconds) => waits.push(milliseconds),
    sleep: async (milliseconds) => {
      slept.push(milliseconds);
    },
  });
  return { model, waits, slept };
}

describe('RateLimitPatience', () => {
  it("waits the service's retry-after, with jitter, and tries again until the model answers", async () => {
    const inner = new ScriptedModel([{ error: limited(3_000) }, { error: limited(1_000) }, { text: 'finally' }]);
    const { model, waits, slept } = patience(inner, { random: () => 0.5 });
    const response = await model.generate(request());
    expect(response.content).toEqual([{ type: 'text', text: 'finally' }]);
    expect(waits).toEqual([3_375, 1_125]);
    expect(slept).toEqual(waits);
    expect(inner.calls).toHaveLength(3);
  });

  it('waits a default when the service names no wait', async () => {
    const inner = new ScriptedModel([{ error: limited() }, { text: 'ok' }]);
    const { model, waits } = patience(inner);
    await model.generate(request());
    expect(waits).toEqual([2_000]);
  });

  it('gives up with the rate-limit error once the waits would pass maxWaitMs', async () => {
    const inner = new ScriptedModel([{ error: limited(4_000) }, { error: limited(4_000) }, { error: limited(4_000) }]);
    const { model, waits } = patience(inner, { maxWaitMs: 10_000 });
    await expect(model.generate(request())).rejects.toMatchObject({ reason: 'rate_limited' });
    expect(waits).toEqual([4_000, 4_000]);
    expect(inner.calls).toHaveLength(3);
  });

  it('does not wait on other failures, nor once the request is cancelled', async () => {
    const overloaded = new ScriptedModel([{ error: new ModelError('overloaded', 'overloaded', { status: 529 }) }]);
    await expect(patience(overloaded).model.generate(request())).rejects.toMatchObject({ reason: 'overloaded' });
    const controller = new AbortController();
    controller.abort(new Error('step timed out'));
    const cancelled = new ScriptedModel([{ error: limited(1_000) }]);
    const { model, waits } = patience(cancelled);
    await expect(model.generate(request({ signal: controller.signal }))).rejects.toMatchObject({ reason: 'rate_limited' });
    expect(waits).toEqual([]);
  });

  it('stops waiting when the step runs out of time mid-wait, failing with the rate limit', async () => {
    const controller = new AbortController();
    const inner = new ScriptedModel([{ error: limited(60_000) }]);
    const model = new RateLimitPatience(inner, { maxWaitMs: 120_000 });
    const pending = model.generate(request({ signal: controller.signal }));
    controller.abort(new Error('step timed out'));
    await expect(pending).rejects.toMatchObject({ reason: 'rate_limited' });
  });
});

describe('retryAfterMs', () => {
  it('reads retry-after-ms, then retry-after in seconds or as a date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '7' }))).toBe(7_000);
    const now = Date.parse('2026-11-26T10:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 26 Nov 2026 10:00:05 GMT' }), now)).toBe(5_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });
});
