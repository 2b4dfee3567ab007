/**
 * The fake Anthropic server is as strict as the real service for the 5.x generation
 * (issue 7): what Claude Sonnet/Haiku 5.5 answer 400 to, it answers 400 to, in Anthropic's
 * error shape; their answers carry signed thinking blocks that a tool loop must hand back
 * unchanged; and a marked prefix long enough for the model is cached for five minutes, or an hour
 * when its breakpoint says `ttl: '1h'`. Whatever the model, it refuses what the Messages API
 * refuses in any request (issue 18): "system" messages, empty text, unanswered tool uses, bad
 * tool names, too many breakpoints.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeAnthropicServer } from './fake-anthropic-server.js';

const weatherTool = { name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } };
const hello = { role: 'user' as const, content: 'hello' };

describe('FakeAnthropicServer: the current generation\'s rules', () => {
  let fake: FakeAnthropicServer;
  let client: Anthropic;
  let clock = 0;

  beforeAll(async () => {
    fake = await FakeAnthropicServer.start({ now: () => clock });
    client = new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 });
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await fake.close();
  });

  async function refusal(params: MessageCreateParamsNonStreaming): Promise<InstanceType<typeof Anthropic.BadRequestError>> {
    // Nothing is scripted: a request that got past the rules would meet the fake's 500 instead.
    const error = await client.messages.create(params).then(
      () => expect.fail('the request should have been refused'),
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    return error as InstanceType<typeof Anthropic.BadRequestError>;
  }

  describe.each(['claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-opus-5-5'])('%s answers 400 to', (model) => {
    it.each([
      ['temperature', { temperature: 0 }],
      ['top_p', { top_p: 0.9 }],
      ['top_k', { top_k: 5 }],
    ])('a sampling parameter (%s)', async (name, extra) => {
      const error = await refusal({ model, max_tokens: 64, messages: [hello], ...extra });
      expect(error.status).toBe(400);
      expect(error.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining(name) } });
    });

    it.each([{ type: 'any' as const }, { type: 'tool' as const, name: 'get_weather' }])('forced tool choice (%o)', async (toolChoice) => {
      const error = await refusal({ model, max_tokens: 64, messages: [hello], tools: [weatherTool], tool_choice: toolChoice });
      expect(error.message).toContain('tool_choice');
    });

    it('a thinking budget, and thinking "disabled"', async () => {
      await refusal({ model, max_tokens: 4096, messages: [hello], thinking: { type: 'enabled', budget_tokens: 2048 } });
      await refusal({ model, max_tokens: 64, messages: [hello], thinking: { type: 'disabled' } });
    });

    it('assistant prefill', async () => {
      const error = await refusal({ model, max_tokens: 64, messages: [hello, { role: 'assistant', content: 'Sure, here' }] });
      expect(error.message).toContain('prefill');
    });

    it('but accepts effort, auto tool choice and adaptive thinking', async () => {
      fake.enqueue({ text: 'fine' });
      const message = await client.messages.create({ model, max_tokens: 64, messages: [hello], tools: [weatherTool], tool_choice: { type: 'auto' }, thinking: { type: 'adaptive' }, output_config: { effort: 'low' } });
      expect(message.content.at(-1)).toMatchObject({ type: 'text', text: 'fine' });
    });
  });

  it('last generation takes sampling parameters and forced tool choice, and refuses effort where it had none', async () => {
    fake.enqueue({ text: 'ok' }, { text: 'ok' });
    // SDK 1.x no longer types sampling parameters (the current models refuse them); older models still take them.
    const withTemperature = (params: MessageCreateParamsNonStreaming) => ({ ...params, temperature: 0 }) as MessageCreateParamsNonStreaming;
    await client.messages.create(withTemperature({ model: 'claude-sonnet-4-6', max_tokens: 64, messages: [hello], tools: [weatherTool], tool_choice: { type: 'any' }, output_config: { effort: 'low' } }));
    await client.messages.create(withTemperature({ model: 'claude-haiku-4-5', max_tokens: 64, messages: [hello] }));
    expect(fake.requests.map((request) => request.body.temperature)).toEqual([0, 0]);
    const error = await refusal({ model: 'claude-haiku-4-5', max_tokens: 64, messages: [hello], output_config: { effort: 'low' } });
    expect(error.message).toContain('effort');
  });

  describe('thinking blocks', () => {
    it('come first in a 5.x answer, signed; older models do not think unasked', async () => {
      fake.enqueue({ toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' } }] }, { toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' } }] });
      const current = await client.messages.create({ model: 'claude-haiku-5-5', max_tokens: 256, messages: [hello], tools: [weatherTool] });
      const older = await client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 256, messages: [hello], tools: [weatherTool] });
      expect(current.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
      expect(current.content[0]).toMatchObject({ thinking: expect.any(String), signature: expect.any(String) });
      expect(older.content.map((block) => block.type)).toEqual(['tool_use']);
    });

    it('must come back unchanged with the tool use in the next request of the loop', async () => {
      fake.enqueue({ toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' } }] });
      const first = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 256, messages: [hello], tools: [weatherTool] });
      const [thinking, toolUse] = first.content as [Anthropic.ThinkingBlock, Anthropic.ToolUseBlock];
      const result = { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: toolUse.id, content: '-3°C' }] };
      const next = (assistant: Anthropic.ContentBlockParam[]): MessageCreateParamsNonStreaming => ({
        model: 'claude-sonnet-5-5',
        max_tokens: 256,
        tools: [weatherTool],
        messages: [hello, { role: 'assistant', content: assistant }, result],
      });

      const dropped = await refusal(next([{ type: 'tool_use', id: toolUse.id, name: toolUse.name, input: toolUse.input }]));
      expect(dropped.message).toContain('must start with a thinking block');
      const edited = await refusal(next([{ ...thinking, thinking: `${thinking.thinking} (edited)` }, { type: 'tool_use', id: toolUse.id, name: toolUse.name, input: toolUse.input }]));
      expect(edited.message).toContain('signature');

      fake.enqueue({ text: 'Cold.' });
      const answer = await client.messages.create(next([thinking, { type: 'tool_use', id: toolUse.id, name: toolUse.name, input: toolUse.input }]));
      expect(answer.content.at(-1)).toMatchObject({ type: 'text', text: 'Cold.' });
    });

    it('may be redacted, and a redacted block too must come back as it was', async () => {
      fake.enqueue({ toolCalls: [{ name: 'get_weather', input: {} }], thinking: 'redacted' }, { text: 'done' });
      const first = await client.messages.create({ model: 'claude-haiku-5-5', max_tokens: 256, messages: [hello], tools: [weatherTool] });
      const [redacted, toolUse] = first.content as [Anthropic.RedactedThinkingBlock, Anthropic.ToolUseBlock];
      expect(redacted.type).toBe('redacted_thinking');
      const answer = await client.messages.create({
        model: 'claude-haiku-5-5',
        max_tokens: 256,
        tools: [weatherTool],
        messages: [hello, { role: 'assistant', content: [redacted, toolUse] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'ok' }] }],
      });
      expect(answer.content.at(-1)).toMatchObject({ type: 'text', text: 'done' });
    });
  });

  describe('the prompt cache', () => {
    const longSystem = 'Herald answers text messages. '.repeat(200); // ~1,500 tokens
    const params = (model: string, marked: boolean, user = 'hello'): MessageCreateParamsNonStreaming => ({
      model,
      max_tokens: 64,
      system: [{ type: 'text', text: longSystem, ...(marked ? { cache_control: { type: 'ephemeral' as const } } : {}) }, { type: 'text', text: `per-user ${user}` }],
      messages: [{ role: 'user', content: user }],
    });

    it('writes a marked prefix once, reads it when it repeats within five minutes, and writes it again after', async () => {
      fake.setFallback({ text: 'ok', thinking: false });
      clock = 0;
      const first = await client.messages.create(params('claude-sonnet-5-5', true, 'one'));
      clock = 4 * 60_000;
      const second = await client.messages.create(params('claude-sonnet-5-5', true, 'two'));
      clock += 5 * 60_000 + 1;
      const third = await client.messages.create(params('claude-sonnet-5-5', true, 'three'));

      expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(1024);
      expect(first.usage.cache_read_input_tokens).toBe(0);
      expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
      expect(second.usage.cache_creation_input_tokens).toBe(0);
      // What is billed at the full rate is only the part after the cached prefix, on both.
      expect(Math.abs(second.usage.input_tokens - first.usage.input_tokens)).toBeLessThan(10);
      expect(third.usage.cache_read_input_tokens).toBe(0);
      expect(third.usage.cache_creation_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    });

    const hourParams = (user: string, ttl: '5m' | '1h' | undefined): MessageCreateParamsNonStreaming => ({
      model: 'claude-sonnet-5-5',
      max_tokens: 64,
      system: [{ type: 'text', text: longSystem, cache_control: ttl ? { type: 'ephemeral', ttl } : { type: 'ephemeral' } }, { type: 'text', text: `per-user ${user}` }],
      messages: [{ role: 'user', content: user }],
    });

    it("keeps a ttl: '1h' entry for an hour after each use, and reports its write as a one-hour write", async () => {
      fake.setFallback({ text: 'ok', thinking: false });
      clock = 0;
      const first = await client.messages.create(hourParams('one', '1h'));
      clock = 50 * 60_000; // past five minutes, within the hour
      const second = await client.messages.create(hourParams('two', '1h'));
      clock += 59 * 60_000; // 109 minutes from the write, 59 from the last read: still there
      const third = await client.messages.create(hourParams('three', '1h'));
      clock += 60 * 60_000 + 1;
      const fourth = await client.messages.create(hourParams('four', '1h'));

      expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(1024);
      expect(first.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: first.usage.cache_creation_input_tokens });
      expect(second.usage).toMatchObject({ cache_read_input_tokens: first.usage.cache_creation_input_tokens, cache_creation_input_tokens: 0 });
      expect(third.usage).toMatchObject({ cache_read_input_tokens: first.usage.cache_creation_input_tokens, cache_creation_input_tokens: 0 });
      expect(fourth.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: first.usage.cache_creation_input_tokens });
    });

    it("lets a five-minute entry lapse after five minutes, whether the ttl is '5m' or left out", async () => {
      fake.setFallback({ text: 'ok', thinking: false });
      for (const ttl of ['5m', undefined] as const) {
        fake.reset();
        fake.setFallback({ text: 'ok', thinking: false });
        clock = 0;
        const first = await client.messages.create(hourParams('one', ttl));
        clock = 5 * 60_000 + 1;
        const second = await client.messages.create(hourParams('two', ttl));
        expect(first.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: first.usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 });
        expect(second.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: first.usage.cache_creation_input_tokens });
      }
    });

    it("refuses a ttl the API does not know, and a one-hour breakpoint after a five-minute one", async () => {
      const badTtl = { ...hourParams('x', '1h'), system: [{ type: 'text' as const, text: longSystem, cache_control: { type: 'ephemeral' as const, ttl: '2h' as '1h' } }] };
      expect((await refusal(badTtl)).message).toMatch(/ttl: Input should be '5m' or '1h'/);
      const inverted: MessageCreateParamsNonStreaming = {
        ...hourParams('x', '5m'),
        system: [
          { type: 'text', text: longSystem, cache_control: { type: 'ephemeral', ttl: '5m' } },
          { type: 'text', text: longSystem, cache_control: { type: 'ephemeral', ttl: '1h' } },
        ],
      };
      expect((await refusal(inverted)).message).toMatch(/must not come after/);
    });

    it('caches nothing unmarked, nothing below the model\'s floor, and nothing across models', async () => {
      fake.setFallback({ text: 'ok', thinking: false });
      await client.messages.create(params('claude-sonnet-5-5', false));
      const unmarked = await client.messages.create(params('claude-sonnet-5-5', false));
      await client.messages.create(params('claude-haiku-5-5', true)); // ~1,500 tokens is under Haiku 5.5's 2,048
      const belowFloor = await client.messages.create(params('claude-haiku-5-5', true));
      await client.messages.create(params('claude-sonnet-5-5', true));
      const otherModel = await client.messages.create(params('claude-opus-5-5', true));

      expect(unmarked.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
      expect(belowFloor.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
      expect(otherModel.usage.cache_read_input_tokens).toBe(0);
      expect(otherModel.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    });
  });

  describe('what the API refuses in any request', () => {
    const model = 'claude-sonnet-5-5';

    /** The API's 400 message for `params` (nothing is scripted: a request that passed would get a 500). */
    async function refusedWith(params: Record<string, unknown>): Promise<string> {
      const error = await client.messages.create({ model, max_tokens: 64, ...params } as unknown as MessageCreateParamsNonStreaming).then(
        () => expect.fail('the request should have been refused'),
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      return ((error as InstanceType<typeof Anthropic.BadRequestError>).error as { error: { message: string } }).error.message;
    }

    const toolTurn = (id: string) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'get_weather', input: { city: 'Oslo' } }] });
    const resultTurn = (id: string, extra: unknown[] = []) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'sunny' }, ...extra] });

    it('a "system" message, and any other role', async () => {
      expect(await refusedWith({ messages: [{ role: 'system', content: 'You are Herald.' }, hello] })).toBe(
        'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.',
      );
      expect(await refusedWith({ messages: [{ role: 'tool', content: 'x' }] })).toBe("messages.0.role: Input should be 'user' or 'assistant'");
    });

    it('an empty message, an empty or blank text block, in a message, the system prompt or a tool result', async () => {
      expect(await refusedWith({ messages: [{ role: 'user', content: '' }] })).toBe('messages.0: all messages must have non-empty content except for the optional final assistant message');
      expect(await refusedWith({ messages: [{ role: 'user', content: [] }] })).toContain('must have non-empty content');
      expect(await refusedWith({ messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] })).toBe('messages: text content blocks must be non-empty');
      expect(await refusedWith({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'text', text: ' \n ' }] }] })).toBe('messages: text content blocks must contain non-whitespace text');
      expect(await refusedWith({ system: [{ type: 'text', text: '' }], messages: [hello] })).toBe('system: text content blocks must be non-empty');
      expect(await refusedWith({ tools: [weatherTool], messages: [hello, toolTurn('toolu_1'), { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '' }] }] }] })).toBe(
        'messages: text content blocks must be non-empty',
      );
    });

    it('a tool_use without its tool_result in the next message, or with text before it', async () => {
      const missing = 'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.';
      expect(await refusedWith({ tools: [weatherTool], messages: [hello, toolTurn('toolu_1'), { role: 'user', content: 'and?' }] })).toBe(missing);
      expect(await refusedWith({ tools: [weatherTool], messages: [hello, toolTurn('toolu_1'), { role: 'user', content: [{ type: 'text', text: 'here:' }, ...resultTurn('toolu_1').content] }] })).toBe(missing);
      expect(await refusedWith({ tools: [weatherTool], messages: [hello, toolTurn('toolu_1'), { role: 'assistant', content: 'hm' }, resultTurn('toolu_1')] })).toBe(missing);
    });

    it('a tool_result with no tool_use in the message before it', async () => {
      expect(await refusedWith({ tools: [weatherTool], messages: [hello, { role: 'assistant', content: 'ok' }, resultTurn('toolu_9')] })).toBe(
        'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
      );
    });

    it('a tool name outside the pattern, and two tools of one name', async () => {
      const named = (name: string) => ({ ...weatherTool, name });
      expect(await refusedWith({ tools: [named('get weather')], messages: [hello] })).toBe("tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'");
      expect(await refusedWith({ tools: [weatherTool, named('x'.repeat(129))], messages: [hello] })).toBe("tools.1.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'");
      expect(await refusedWith({ tools: [weatherTool, named('get_weather')], messages: [hello] })).toBe('tools: Tool names must be unique.');
    });

    it('more than four cache breakpoints, wherever they are', async () => {
      const marked = { cache_control: { type: 'ephemeral' } };
      expect(
        await refusedWith({
          tools: [{ ...weatherTool, ...marked }],
          system: [{ type: 'text', text: 'one', ...marked }, { type: 'text', text: 'two', ...marked }],
          messages: [{ role: 'user', content: [{ type: 'text', text: 'three', ...marked }, { type: 'text', text: 'four', ...marked }] }],
        }),
      ).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
    });

    it('and takes the same request shapes when they are right', async () => {
      const marked = { cache_control: { type: 'ephemeral' } };
      fake.enqueue({ text: 'sunny in Oslo' });
      const message = await client.messages.create({
        model,
        max_tokens: 64,
        tools: [{ ...weatherTool, ...marked }],
        system: [{ type: 'text', text: 'You are Herald.', ...marked }],
        messages: [
          hello,
          { role: 'assistant', content: [fake.thinkingBlock('weather'), { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }, { type: 'text', text: 'thanks', ...marked }] },
        ],
      } as MessageCreateParamsNonStreaming);
      expect(message.content.at(-1)).toMatchObject({ type: 'text', text: 'sunny in Oslo' });
    });
  });
});
