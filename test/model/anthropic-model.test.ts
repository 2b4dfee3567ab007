import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicModel } from '../../src/model/anthropic-model.js';
import type { ModelRequest } from '../../src/model/model-client.js';
import { ModelError, TimeoutError } from '../../src/shared/errors.js';
import { FakeAnthropicServer, type ScriptedErrorResponse } from '../fakes/fake-anthropic-server.js';
import { freePort } from '../helpers/herald-process.js';

/** The smallest valid request; tests override what they look at. */
function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'claude-test',
    system: [{ text: 'You are Herald.' }],
    messages: [{ role: 'user', content: 'hello' }],
    maxTokens: 128,
    ...overrides,
  };
}

describe('AnthropicModel against the fake Anthropic API', () => {
  let fake: FakeAnthropicServer;
  let model: AnthropicModel;

  beforeAll(async () => {
    fake = await FakeAnthropicServer.start();
    model = new AnthropicModel({ apiKey: 'test-key', baseUrl: fake.url, timeoutMs: 5_000, maxRetries: 0 });
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await fake.close();
  });

  describe('request mapping', () => {
    it('sends system blocks as text blocks, with cache_control only on the blocks marked cache', async () => {
      fake.enqueue({ text: 'ok' });
      await model.generate(
        request({ system: [{ text: 'stable instructions', cache: true }, { text: 'per-turn context' }, { text: 'explicitly uncached', cache: false }] }),
      );

      expect(fake.requests[0]!.body.system).toEqual([
        { type: 'text', text: 'stable instructions', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'per-turn context' },
        { type: 'text', text: 'explicitly uncached' },
      ]);
    });

    it('sends model, max_tokens, temperature, tools as input_schema and the tool choice', async () => {
      fake.enqueue({ text: 'ok' });
      const inputSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
      await model.generate(
        request({
          model: 'claude-planner-x',
          maxTokens: 321,
          temperature: 0,
          tools: [{ name: 'get_weather', description: 'Weather for a city', inputSchema }],
          toolChoice: { type: 'tool', name: 'get_weather' },
        }),
      );

      const { body } = fake.requests[0]!;
      expect(body.model).toBe('claude-planner-x');
      expect(body.max_tokens).toBe(321);
      expect(body.temperature).toBe(0);
      expect(body.tools).toEqual([{ name: 'get_weather', description: 'Weather for a city', input_schema: inputSchema }]);
      expect(body.tool_choice).toEqual({ type: 'tool', name: 'get_weather' });
      expect(body.stream).toBeUndefined();
    });

    it('leaves out temperature, tools and tool_choice when not given (or no tools)', async () => {
      fake.enqueue({ text: 'ok' }, { text: 'ok' });
      await model.generate(request());
      await model.generate(request({ tools: [], toolChoice: { type: 'any' } }));

      for (const { body } of fake.requests) {
        expect(body).not.toHaveProperty('temperature');
        expect(body).not.toHaveProperty('tools');
        expect(body).not.toHaveProperty('tool_choice');
      }
    });

    it('maps text, tool_use and tool_result blocks (tool_use_id, is_error only on errors)', async () => {
      fake.enqueue({ text: 'ok' });
      await model.generate(
        request({
          messages: [
            { role: 'user', content: 'weather in Oslo and Rome?' },
            {
              role: 'assistant',
              content: [
                { type: 'text', text: 'Checking.' },
                { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
                { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
              ],
            },
            {
              role: 'user',
              content: [
                { type: 'tool_result', toolUseId: 'toolu_1', content: '{"temp":3}' },
                { type: 'tool_result', toolUseId: 'toolu_2', content: 'service down', isError: true },
              ],
            },
          ],
        }),
      );

      expect(fake.requests[0]!.body.messages).toEqual([
        { role: 'user', content: 'weather in Oslo and Rome?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"temp":3}' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: 'service down', is_error: true },
          ],
        },
      ]);
    });
  });

  describe('response mapping', () => {
    it('maps text and tool_use blocks, usage with cache tokens, and the model name', async () => {
      fake.enqueue({
        content: [
          { type: 'text', text: 'Let me check.', citations: null },
          { type: 'tool_use', id: 'toolu_abc', name: 'get_weather', input: { city: 'Oslo' } },
        ],
        usage: { input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 100, cache_creation_input_tokens: 7 },
      });
      const response = await model.generate(request({ model: 'claude-mapped' }));

      expect(response).toEqual({
        model: 'claude-mapped',
        stopReason: 'tool_use',
        usage: { inputTokens: 120, outputTokens: 30, cacheReadTokens: 100, cacheWriteTokens: 7 },
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_abc', name: 'get_weather', input: { city: 'Oslo' } },
        ],
      });
    });

    it('treats missing cache token counts as zero', async () => {
      fake.enqueue({ text: 'hi', usage: { input_tokens: 5, output_tokens: 1, cache_read_input_tokens: null, cache_creation_input_tokens: null } });
      const response = await model.generate(request());
      expect(response.usage).toEqual({ inputTokens: 5, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 });
    });

    it('drops block types Herald does not use (thinking, server tools)', async () => {
      fake.enqueue({
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'text', text: 'Answer.', citations: null },
        ],
      });
      const response = await model.generate(request());
      expect(response.content).toEqual([{ type: 'text', text: 'Answer.' }]);
    });

    it.each([
      ['end_turn', 'end_turn'],
      ['tool_use', 'tool_use'],
      ['max_tokens', 'max_tokens'],
      ['stop_sequence', 'stop_sequence'],
      ['refusal', 'refusal'],
      ['pause_turn', 'other'],
      ['model_context_window_exceeded', 'other'],
    ])('maps stop reason %s to %s', async (apiReason, expected) => {
      fake.enqueue({ content: [{ type: 'text', text: 'x', citations: null }], stopReason: apiReason });
      const response = await model.generate(request());
      expect(response.stopReason).toBe(expected);
    });
  });

  describe('errors, by blame', () => {
    async function failureFor(error: ScriptedErrorResponse['error']): Promise<unknown> {
      fake.enqueue({ error });
      return model.generate(request()).then(
        () => expect.fail('generate should have failed'),
        (caught: unknown) => caught,
      );
    }

    it.each([
      [429, 'rate_limited'],
      [529, 'overloaded'],
      [500, 'unavailable'],
      [502, 'unavailable'],
      [503, 'unavailable'],
      [408, 'unavailable'],
      [409, 'unavailable'],
      [400, 'rejected'],
      [401, 'rejected'],
      [403, 'rejected'],
      [404, 'rejected'],
      [413, 'rejected'],
    ] as const)('HTTP %i becomes a ModelError with reason %s', async (status, reason) => {
      const error = await failureFor({ status });
      expect(error).toBeInstanceOf(ModelError);
      expect(error).toMatchObject({ reason, status, blame: 'model' });
    });

    it('a refused connection is an unavailable model', async () => {
      const closedPort = await freePort();
      const unreachable = new AnthropicModel({ apiKey: 'k', baseUrl: `http://127.0.0.1:${closedPort}`, timeoutMs: 2_000, maxRetries: 0 });
      const error = await unreachable.generate(request()).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ModelError);
      expect(error).toMatchObject({ reason: 'unavailable', blame: 'model' });
    });

    it('an SDK timeout becomes a TimeoutError', async () => {
      fake.enqueue({ hang: true });
      const impatient = new AnthropicModel({ apiKey: 'k', baseUrl: fake.url, timeoutMs: 200, maxRetries: 0 });
      const error = await impatient.generate(request()).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({ blame: 'timeout' });
    });

    it('an abort with a reason throws that reason', async () => {
      fake.enqueue({ hang: true });
      const controller = new AbortController();
      const reason = new TimeoutError('the plan ran out of time');
      const pending = model.generate(request({ signal: controller.signal })).catch((caught: unknown) => caught);
      await fake.waitForRequests(1);
      controller.abort(reason);
      expect(await pending).toBe(reason);
    });

    it('a signal aborted before the call also throws its reason, without a request', async () => {
      const reason = new Error('shutting down');
      const error = await model.generate(request({ signal: AbortSignal.abort(reason) })).catch((caught: unknown) => caught);
      expect(error).toBe(reason);
      expect(fake.requests).toHaveLength(0);
    });

    it('an abort whose reason is not an Error is reported as a timeout', async () => {
      fake.enqueue({ hang: true });
      const controller = new AbortController();
      const pending = model.generate(request({ signal: controller.signal })).catch((caught: unknown) => caught);
      await fake.waitForRequests(1);
      controller.abort('just a string');
      expect(await pending).toBeInstanceOf(TimeoutError);
    });
  });
});
