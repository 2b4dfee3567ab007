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
    it('marks a block cache only when the prefix up to it reaches the model\'s minimum cacheable length', async () => {
      const long = 'Stable instructions. '.repeat(250); // ~1,300 tokens: over Sonnet 5.5's 1,024, under Haiku 5.5's 2,048
      fake.enqueue({ text: 'ok' }, { text: 'ok' }, { text: 'ok' });
      const system = [{ text: long, cache: true }, { text: 'per-turn context' }, { text: 'explicitly uncached', cache: false }];
      await model.generate(request({ model: 'claude-sonnet-5-5', system }));
      await model.generate(request({ model: 'claude-haiku-5-5', system }));
      await model.generate(request({ model: 'claude-sonnet-5-5', system: [{ text: 'short stable part', cache: true }, { text: 'per-turn' }] }));

      expect(fake.requests[0]!.body.system).toEqual([
        { type: 'text', text: long, cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'per-turn context' },
        { type: 'text', text: 'explicitly uncached' },
      ]);
      expect(fake.requests[1]!.body.system).toEqual(system.map((block) => ({ type: 'text', text: block.text })));
      expect(fake.requests[2]!.body.system).toEqual([
        { type: 'text', text: 'short stable part' },
        { type: 'text', text: 'per-turn' },
      ]);
    });

    it('counts the tools into the cached prefix (they come first)', async () => {
      const tools = Array.from({ length: 12 }, (_, index) => ({
        name: `tool_${index}`,
        description: 'A tool with a fairly long description that takes up room in the prompt. '.repeat(5),
        inputSchema: { type: 'object', properties: { value: { type: 'string', description: 'The value to use.' } } },
      }));
      fake.enqueue({ text: 'ok' });
      await model.generate(request({ model: 'claude-sonnet-5-5', tools, system: [{ text: 'Short instructions.', cache: true }, { text: 'per-turn' }] }));
      expect(fake.requests[0]!.body.system).toEqual([
        { type: 'text', text: 'Short instructions.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'per-turn' },
      ]);
    });

    it('sends model, max_tokens, temperature, tools as input_schema and the tool choice to a model that accepts them', async () => {
      fake.enqueue({ text: 'ok' });
      const inputSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
      await model.generate(
        request({
          model: 'claude-sonnet-4-6',
          maxTokens: 321,
          temperature: 0,
          effort: 'low',
          tools: [{ name: 'get_weather', description: 'Weather for a city', inputSchema }],
          toolChoice: { type: 'tool', name: 'get_weather' },
        }),
      );

      const { body } = fake.requests[0]!;
      expect(body.model).toBe('claude-sonnet-4-6');
      expect(body.max_tokens).toBe(321);
      expect(body.temperature).toBe(0);
      expect(body.output_config).toEqual({ effort: 'low' });
      expect(body.tools).toEqual([{ name: 'get_weather', description: 'Weather for a city', input_schema: inputSchema }]);
      expect(body.tool_choice).toEqual({ type: 'tool', name: 'get_weather' });
      expect(body.stream).toBeUndefined();
    });

    it.each(['claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-opus-5-5'])(
      'sends %s nothing it answers 400 to: no sampling parameters, no forced tool choice, no thinking setting; effort as output_config',
      async (name) => {
        fake.enqueue({ text: 'ok' });
        const tools = [{ name: 'get_weather', description: 'Weather for a city', inputSchema: { type: 'object', properties: {} } }];
        const response = await model.generate(request({ model: name, temperature: 0, effort: 'medium', tools, toolChoice: { type: 'any' } }));

        const { body } = fake.requests[0]!;
        expect(response.content.at(-1)).toEqual({ type: 'text', text: 'ok' });
        expect(body).not.toHaveProperty('temperature');
        expect(body).not.toHaveProperty('tool_choice');
        expect(body).not.toHaveProperty('thinking');
        expect(body.output_config).toEqual({ effort: 'medium' });
      },
    );

    it('sends an unknown model only what every model accepts', async () => {
      fake.enqueue({ text: 'ok' });
      await model.generate(request({ model: 'claude-nova-9', temperature: 0, effort: 'low', toolChoice: { type: 'any' }, tools: [{ name: 't', description: 'd', inputSchema: { type: 'object' } }] }));
      const { body } = fake.requests[0]!;
      expect(body).not.toHaveProperty('temperature');
      expect(body).not.toHaveProperty('output_config');
      expect(body).not.toHaveProperty('tool_choice');
    });

    it('refuses to send an assistant prefill to a model that rejects it (a bug, not a request)', async () => {
      const prefill = request({ model: 'claude-haiku-5-5', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Sure' }] });
      await expect(model.generate(prefill)).rejects.toThrow(/prefill/);
      expect(fake.requests).toHaveLength(0);
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

    it('keeps thinking, redacted thinking and server tool blocks exactly as sent, in order, and the citations on text', async () => {
      const thinking = fake.thinkingBlock('The user wants the weather.');
      const search = fake.webSearch('weather Oslo', [{ url: 'https://weather.example/oslo', title: 'Oslo', text: 'Cold, 2°C.' }]);
      const cited = fake.citedText('Cold, 2°C.', 'https://weather.example/oslo', 'Oslo');
      fake.enqueue({ content: [thinking, { type: 'redacted_thinking', data: 'opaque-data' }, ...search, cited] });
      const response = await model.generate(request({ serverTools: [{ type: 'web_search', maxUses: 3 }] }));
      expect(response.content.map((block) => block.type)).toEqual(['thinking', 'redacted_thinking', 'server_tool_use', 'server_tool_result', 'text']);
      expect(response.content[0]).toEqual({ type: 'thinking', thinking: 'The user wants the weather.', signature: thinking.signature });
      expect(response.content[2]).toMatchObject({ type: 'server_tool_use', name: 'web_search', input: { query: 'weather Oslo' }, raw: search[0] });
      expect(response.content[3]).toMatchObject({ type: 'server_tool_result', resultType: 'web_search_tool_result', raw: search[1] });
      expect(response.content[4]).toEqual({ type: 'text', text: 'Cold, 2°C.', citations: (cited as { citations: unknown[] }).citations });
      expect(response.usage.webSearches).toBe(1);
    });

    it('drops block types Herald does not use', async () => {
      fake.enqueue({ content: [{ type: 'container_upload', file_id: 'file_1' }, { type: 'text', text: 'Answer.', citations: null }] });
      const response = await model.generate(request());
      expect(response.content).toEqual([{ type: 'text', text: 'Answer.' }]);
    });

    it('hands thinking blocks back byte-identical on the next request of a tool loop', async () => {
      fake.enqueue({ toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' } }] }, { text: 'Cold.' });
      const tools = [{ name: 'get_weather', description: 'Weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }];
      const first = await model.generate(request({ model: 'claude-sonnet-5-5', tools }));
      const toolUse = first.content.find((block) => block.type === 'tool_use')!;
      expect(first.content[0]).toMatchObject({ type: 'thinking' });

      const second = await model.generate(
        request({
          model: 'claude-sonnet-5-5',
          tools,
          messages: [
            { role: 'user', content: 'weather in Oslo?' },
            { role: 'assistant', content: first.content },
            { role: 'user', content: [{ type: 'tool_result', toolUseId: toolUse.id, content: '{"temp":-3}' }] },
          ],
        }),
      );

      expect(second.content.at(-1)).toEqual({ type: 'text', text: 'Cold.' });
      const sentBack = (fake.requests[1]!.body.messages as Array<{ content: unknown[] }>)[1]!.content[0];
      expect(JSON.stringify(sentBack)).toBe(JSON.stringify(first.content[0]));
    });

    it.each([
      ['end_turn', 'end_turn'],
      ['tool_use', 'tool_use'],
      ['max_tokens', 'max_tokens'],
      ['stop_sequence', 'stop_sequence'],
      ['refusal', 'refusal'],
      ['pause_turn', 'pause_turn'],
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
      [404, 'model_not_found'],
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
