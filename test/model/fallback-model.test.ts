import { describe, expect, it } from 'vitest';
import { FallbackModel } from '../../src/model/fallback-model.js';
import type { ModelRequest } from '../../src/model/model-client.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { ConfigurationError, ModelError, TimeoutError } from '../../src/shared/errors.js';
import { capturingLogger } from '../helpers/herald-harness.js';

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'claude-sonnet-5-5',
  fallbackModels: ['claude-sonnet-4-6', 'claude-opus-4-6'],
  system: [{ text: 'sys' }],
  messages: [{ role: 'user', content: 'hi' }],
  maxTokens: 64,
  purpose: 'planner',
  ...overrides,
});

/** FallbackModel (issue 7): the next model is tried only when the one before is unavailable. */
describe('FallbackModel', () => {
  it.each([
    ['overloaded (529)', new ModelError('overloaded', 'overloaded', { status: 529 })],
    ['rate limited (429)', new ModelError('rate limited', 'rate_limited', { status: 429 })],
    ['a 5xx', new ModelError('failed', 'unavailable', { status: 503 })],
    ['a timeout', new TimeoutError('the model did not answer in time')],
    ['an unknown model (404)', new ModelError('no such model', 'model_not_found', { status: 404 })],
  ])('tries the next model after %s, which answers', async (_name, error) => {
    const inner = new ScriptedModel([{ error }, { text: 'from the fallback' }]);
    const { logger, logs } = capturingLogger();
    const response = await new FallbackModel(inner, logger).generate(request());

    expect(response.model).toBe('claude-sonnet-4-6');
    expect(inner.calls.map((call) => [call.model, call.fallbackModels])).toEqual([
      ['claude-sonnet-5-5', []],
      ['claude-sonnet-4-6', []],
    ]);
    expect(logs.lines.find((line) => line.msg === 'model unavailable; trying the next one')).toMatchObject({ level: 40, model: 'claude-sonnet-5-5', next: 'claude-sonnet-4-6', purpose: 'planner' });
  });

  it('throws the last error when every model is unavailable', async () => {
    const last = new ModelError('overloaded too', 'overloaded');
    const inner = new ScriptedModel([{ error: new ModelError('a', 'overloaded') }, { error: new ModelError('b', 'unavailable') }, { error: last }]);
    await expect(new FallbackModel(inner, capturingLogger().logger).generate(request())).rejects.toBe(last);
    expect(inner.calls).toHaveLength(3);
  });

  it.each([
    ['a rejected request (400)', new ModelError('bad request', 'rejected', { status: 400 })],
    ['a nonsense answer', new ModelError('no text', 'behaviour')],
    ['a missing key', new ConfigurationError('no key')],
  ])('does not fall back after %s: any model would fail the same way', async (_name, error) => {
    const inner = new ScriptedModel([{ error }, { text: 'never' }]);
    await expect(new FallbackModel(inner, capturingLogger().logger).generate(request())).rejects.toBe(error);
    expect(inner.calls).toHaveLength(1);
  });

  it('does not fall back when the caller cancelled (a step or plan time limit)', async () => {
    const controller = new AbortController();
    const reason = new TimeoutError('step took too long');
    const inner = new ScriptedModel([
      () => {
        controller.abort(reason);
        return { error: reason };
      },
      { text: 'never' },
    ]);
    await expect(new FallbackModel(inner, capturingLogger().logger).generate(request({ signal: controller.signal }))).rejects.toBe(reason);
    expect(inner.calls).toHaveLength(1);
  });
});
