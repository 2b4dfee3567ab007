import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { FakeAnthropicServer } from './fake-anthropic-server.js';

const model = 'claude-test-model';
const weatherTool = { name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } };

describe('FakeAnthropicServer with the real Anthropic SDK', () => {
  let fake: FakeAnthropicServer;
  let client: Anthropic;

  beforeAll(async () => {
    fake = await FakeAnthropicServer.start();
    client = new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 });
  });

  afterEach(() => fake.reset());

  afterAll(async () => {
    await fake.close();
  });

  it('answers a scripted text response and records what the model was shown', async () => {
    fake.enqueue({ text: 'Hi there!' });

    const message = await client.messages.create({
      model,
      max_tokens: 256,
      system: [{ type: 'text', text: 'You are Herald.' }, { type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: 'hello' }],
      tools: [weatherTool],
    });

    expect(message).toMatchObject({ type: 'message', role: 'assistant', model, stop_reason: 'end_turn', stop_sequence: null });
    expect(message.id).toMatch(/^msg_/);
    expect(message.content).toEqual([{ type: 'text', text: 'Hi there!', citations: null }]);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBe(Math.ceil('Hi there!'.length / 4));
    expect(message.usage.cache_read_input_tokens).toBe(0);

    const [request] = fake.requests;
    expect(request?.systemText()).toBe('You are Herald.\nBe brief.');
    expect(request?.lastUserText()).toBe('hello');
    expect(request?.toolNames()).toEqual(['get_weather']);
    expect(request?.body.max_tokens).toBe(256);
    // SDK 1.x sends the API key as a bearer token, not as x-api-key.
    expect(request?.headers.authorization).toBe('Bearer test');
    expect(fake.pending()).toBe(0);
  });

  it('answers scripted tool calls and lets usage be overridden', async () => {
    fake.enqueue({ toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' }, id: 'toolu_fixed' }, { name: 'get_weather', input: { city: 'Rome' } }], text: 'Checking.', usage: { input_tokens: 1000, cache_read_input_tokens: 800 } });

    const message = await client.messages.create({ model, max_tokens: 256, messages: [{ role: 'user', content: 'weather?' }], tools: [weatherTool] });

    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Checking.' });
    expect(message.content[1]).toMatchObject({ type: 'tool_use', id: 'toolu_fixed', name: 'get_weather', input: { city: 'Oslo' } });
    expect(message.content[2]).toMatchObject({ type: 'tool_use', id: expect.stringMatching(/^toolu_/), input: { city: 'Rome' } });
    expect(message.usage).toMatchObject({ input_tokens: 1000, cache_read_input_tokens: 800, cache_creation_input_tokens: 0 });
  });

  it('answers raw content, computed responses and a delayed response, in queue order', async () => {
    fake.enqueue(
      { content: [{ type: 'text', text: 'raw' }], stopReason: 'max_tokens' },
      (request) => ({ text: `you said: ${request.lastUserText()}` }),
      { delayMs: 10, then: { text: 'late' } },
    );
    const ask = (content: string) => client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content }] });

    await expect(ask('one')).resolves.toMatchObject({ content: [{ text: 'raw' }], stop_reason: 'max_tokens' });
    await expect(ask('two')).resolves.toMatchObject({ content: [{ text: 'you said: two' }] });
    await expect(ask('three')).resolves.toMatchObject({ content: [{ text: 'late' }] });
  });

  it('flattens everything the model saw, tool results included', async () => {
    fake.enqueue({ text: 'done' });

    await client.messages.create({
      model,
      max_tokens: 64,
      system: 'SYSTEM PROMPT',
      messages: [
        { role: 'user', content: 'What is the weather in Oslo?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Rainy, 7°C' }] }] },
      ],
    });

    const [request] = fake.requests;
    // The last user message only carries a tool result, so the person's words are the earlier one.
    expect(request?.lastUserText()).toBe('What is the weather in Oslo?');
    expect(request?.allText()).toContain('SYSTEM PROMPT');
    expect(request?.allText()).toContain('Rainy, 7°C');
    expect(request?.allText()).toContain('"city":"Oslo"');
    expect(request?.allText()).not.toContain('secret');
  });

  it('surfaces a scripted 529 as an APIError with that status, request id and retry-after', async () => {
    fake.enqueue({ error: { status: 529, retryAfterSeconds: 3 } });

    const error: unknown = await client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    expect(apiError.status).toBe(529);
    expect(apiError.type).toBe('overloaded_error');
    expect(apiError.requestID).toMatch(/^req_/);
    expect(apiError.headers?.get('retry-after')).toBe('3');
  });

  it('times out on a hanging response with APIConnectionTimeoutError', async () => {
    fake.enqueue({ hang: true });

    const error: unknown = await client.messages
      .create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }, { timeout: 200 })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    expect(fake.requests).toHaveLength(1);
  });

  it('fails loudly when nothing was scripted, and uses a fallback when one is set', async () => {
    const call = () => client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });

    await expect(call()).rejects.toMatchObject({ status: 500, message: expect.stringContaining('no scripted response for request #1') });

    fake.setFallback({ text: 'fallback' });
    await expect(call()).resolves.toMatchObject({ content: [{ text: 'fallback' }] });
  });

  it('refuses streaming requests with a 400 that says why, without using the script', async () => {
    fake.enqueue({ text: 'kept for later' });

    const error: unknown = await client.messages
      .create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], stream: true })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toContain('streaming is not supported');
    expect(fake.pending()).toBe(1);
  });

  it('records what a script threw, answers 500, and gives the error back unchanged', async () => {
    const failure = new Error('expected the planner to be offered create_plan');
    fake.enqueue(() => {
      throw failure;
    });

    const error: unknown = await client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught);

    expect(error).toMatchObject({ status: 500, message: expect.stringContaining('scripted response failed: expected the planner to be offered create_plan') });
    // The shared afterEach would rethrow it; this test meant it, so takes it.
    expect(fake.takeScriptErrors()).toEqual([failure]);
    expect(fake.takeScriptErrors()).toEqual([]);
  });

  it('rethrows a script\'s failing expect with its own message, once', async () => {
    fake.enqueue((request) => {
      expect(request.lastUserText()).toBe('something else');
      return { text: 'unreachable' };
    });

    await client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).catch(() => undefined);

    expect(() => fake.rethrowScriptErrors()).toThrow("expected 'hi' to be 'something else'");
    expect(() => fake.rethrowScriptErrors()).not.toThrow();
  });

  it('waits for requests as they arrive and rejects descriptively when they do not', async () => {
    fake.enqueue({ text: 'a' }, { text: 'b' });
    const arrived = fake.waitForRequests(2);
    const ask = () => client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    await Promise.all([ask(), ask()]);

    await expect(arrived).resolves.toHaveLength(2);
    await expect(fake.waitForRequests(3, 20)).rejects.toThrow('FakeAnthropicServer: expected 3 request(s) within 20 ms, got 2');
  });
});
