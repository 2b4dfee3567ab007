import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/model/model-client.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { ModelError } from '../../src/shared/errors.js';

function request(text: string, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { model: 'claude-test', system: [{ text: 'sys' }], messages: [{ role: 'user', content: text }], maxTokens: 64, ...overrides };
}

describe('ScriptedModel', () => {
  it('answers queued turns in order and records every call', async () => {
    const model = new ScriptedModel([{ text: 'first' }]);
    model.enqueue({ text: 'second' });

    const one = await model.generate(request('a'));
    const two = await model.generate(request('b', { model: 'claude-other' }));

    expect(one).toMatchObject({ content: [{ type: 'text', text: 'first' }], stopReason: 'end_turn', model: 'claude-test' });
    expect(two).toMatchObject({ content: [{ type: 'text', text: 'second' }], model: 'claude-other' });
    expect(model.calls.map((call) => call.messages[0]?.content)).toEqual(['a', 'b']);
    expect(model.remaining).toBe(0);
  });

  it('scripts tool calls with generated ids, text before them, and usage overrides', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'remember_fact', input: { content: 'x' } }, { name: 'get_user_facts', input: {}, id: 'toolu_fixed' }], text: 'One moment.', usage: { inputTokens: 99, cacheReadTokens: 40 } },
    ]);
    const response = await model.generate(request('remember x'));

    expect(response.stopReason).toBe('tool_use');
    expect(response.content).toEqual([
      { type: 'text', text: 'One moment.' },
      { type: 'tool_use', id: expect.stringMatching(/^toolu_scripted_/), name: 'remember_fact', input: { content: 'x' } },
      { type: 'tool_use', id: 'toolu_fixed', name: 'get_user_facts', input: {} },
    ]);
    expect(response.usage.inputTokens).toBe(99);
    expect(response.usage.cacheReadTokens).toBe(40);
    expect(response.usage.outputTokens).toBeGreaterThan(0);
  });

  it('answers from a function of the request, and throws scripted errors', async () => {
    const failure = new ModelError('scripted outage', 'unavailable');
    const model = new ScriptedModel([(seen) => ({ text: `echo: ${String(seen.messages[0]?.content)}` }), { error: failure }]);

    await expect(model.generate(request('ping'))).resolves.toMatchObject({ content: [{ text: 'echo: ping' }] });
    await expect(model.generate(request('again'))).rejects.toBe(failure);
    expect(model.calls).toHaveLength(2);
  });

  it('throws a ModelError naming the call when the queue is empty', async () => {
    const model = new ScriptedModel();
    const error = await model.generate(request('unscripted', { purpose: 'planner' })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ reason: 'behaviour' });
    expect((error as Error).message).toMatch(/call #1 \(planner\)/);
    expect(model.calls).toHaveLength(1);
  });

  it('answers after delayMs', async () => {
    const model = new ScriptedModel([{ delayMs: 20, then: { text: 'late' } }]);
    const started = Date.now();
    await expect(model.generate(request('x'))).resolves.toMatchObject({ content: [{ text: 'late' }] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
  });

  it('rejects with the abort reason when aborted during delayMs', async () => {
    const model = new ScriptedModel([{ delayMs: 60_000, then: { text: 'never' } }]);
    const controller = new AbortController();
    const reason = new Error('plan timed out');
    const pending = model.generate(request('x', { signal: controller.signal }));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('rejects at once when the signal was already aborted', async () => {
    const model = new ScriptedModel([{ delayMs: 60_000, then: { text: 'never' } }]);
    const reason = new Error('already gone');
    await expect(model.generate(request('x', { signal: AbortSignal.abort(reason) }))).rejects.toBe(reason);
  });
});
