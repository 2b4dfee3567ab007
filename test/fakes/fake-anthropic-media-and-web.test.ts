/**
 * The fake Anthropic server takes images, PDFs and the 2026 web tools as the real API
 * does, and refuses what it refuses: images whose bytes are not their declared type or
 * over 5 MB, broken PDFs, bad server tool definitions, server tool blocks handed back
 * unpaired or changed; within a call it plays max_uses and web fetch's URL rules.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pdf, photo } from '../helpers/media-fixtures.js';
import { FakeAnthropicServer } from './fake-anthropic-server.js';

const MODEL = 'claude-sonnet-5-5';
const search = { type: 'web_search_20260318' as const, name: 'web_search' as const, max_uses: 1 };

describe('FakeAnthropicServer: media blocks and web tools', () => {
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

  async function refusal(params: MessageCreateParamsNonStreaming): Promise<string> {
    const error = await client.messages.create(params).then(
      () => expect.fail('the request should have been refused'),
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    return (error as InstanceType<typeof Anthropic.BadRequestError>).message;
  }

  const image = (data: Buffer, mediaType: 'image/jpeg' | 'image/png' = 'image/jpeg') => ({ type: 'image' as const, source: { type: 'base64' as const, media_type: mediaType, data: data.toString('base64') } });

  it('bills an image by its size after its own 1568 px resize, not by its base64 length', async () => {
    fake.enqueue({ text: 'A photo.' });
    const message = await client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: [image(await photo(3000, 2000)), { type: 'text', text: 'what is it?' }] }] });
    // 1568 × 1045 / 750, plus a few tokens of text.
    expect(message.usage.input_tokens).toBeGreaterThan(2100);
    expect(message.usage.input_tokens).toBeLessThan(2300);
  });

  it('refuses an image that is not what its media type says, one over 5 MB, and a broken PDF', async () => {
    expect(await refusal({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: [image(await photo(40, 40), 'image/png')] }] })).toContain('Image does not match the provided media type image/png');
    expect(await refusal({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: [image(Buffer.concat([await photo(40, 40), randomBytes(5 * 1024 * 1024)]))] }] })).toContain('image exceeds 5 MB maximum');
    const broken = { type: 'document' as const, source: { type: 'base64' as const, media_type: 'application/pdf' as const, data: Buffer.from('not a pdf').toString('base64') } };
    expect(await refusal({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: [broken] }] })).toContain('The PDF specified was not valid');
    fake.enqueue({ text: 'Two pages.' });
    const document = { type: 'document' as const, source: { type: 'base64' as const, media_type: 'application/pdf' as const, data: (await pdf(['one', 'two'])).toString('base64') } };
    await expect(client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: [document] }] })).resolves.toMatchObject({ content: expect.arrayContaining([expect.objectContaining({ text: 'Two pages.' })]) });
  });

  it('refuses bad web tool definitions', async () => {
    const ask = [{ role: 'user' as const, content: 'hi' }];
    expect(await refusal({ model: MODEL, max_tokens: 64, messages: ask, tools: [{ ...search, max_uses: 0 }] })).toContain('max_uses');
    expect(await refusal({ model: MODEL, max_tokens: 64, messages: ask, tools: [{ ...search, allowed_domains: ['a.example'], blocked_domains: ['b.example'] }] })).toContain('Cannot specify both');
    expect(await refusal({ model: MODEL, max_tokens: 64, messages: ask, tools: [{ ...search, user_location: { type: 'approximate' as const, country: 'USA' } }] })).toContain('user_location.country');
    expect(await refusal({ model: MODEL, max_tokens: 64, messages: ask, tools: [{ type: 'web_search_20991231', name: 'web_search' } as never] })).toContain('does not match any of the expected tags');
  });

  it('searches past max_uses get an error result, and usage counts the searches that ran', async () => {
    const first = fake.webSearch('one', [{ url: 'https://a.example', title: 'A', text: 'a' }]);
    const second = fake.webSearch('two', [{ url: 'https://b.example', title: 'B', text: 'b' }]);
    fake.enqueue({ content: [...first, ...second, { type: 'text', text: 'Done.', citations: null }] });
    const message = await client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'search twice' }], tools: [search] });
    expect(message.content[3]).toMatchObject({ type: 'web_search_tool_result', content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' } });
    expect(message.usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 0 });
  });

  it('answers 500 when a script uses a web tool the request did not offer', async () => {
    fake.enqueue({ content: fake.webSearch('x', [{ url: 'https://a.example', title: 'A', text: 'a' }]) });
    await expect(client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(/offered no web_search tool/);
  });

  it('wants server tool blocks back paired and unchanged', async () => {
    const [use, result] = fake.webSearch('weather', [{ url: 'https://w.example', title: 'W', text: 'sunny' }]) as unknown as [Record<string, unknown>, Record<string, unknown>];
    const history = (content: unknown[]) => [{ role: 'user' as const, content: 'weather?' }, { role: 'assistant' as const, content: content as never }, { role: 'user' as const, content: 'and tomorrow?' }];
    expect(await refusal({ model: MODEL, max_tokens: 64, tools: [search], messages: history([use]) })).toContain('was found without a corresponding `web_search_tool_result` block');
    const changed = { ...result, content: [{ ...(result.content as Array<Record<string, unknown>>)[0], title: 'Changed' }] };
    expect(await refusal({ model: MODEL, max_tokens: 64, tools: [search], messages: history([use, changed]) })).toContain('pass it back unchanged');
    fake.enqueue({ text: 'Sunny again.' });
    await expect(client.messages.create({ model: MODEL, max_tokens: 64, tools: [search], messages: history([use, result]) })).resolves.toBeDefined();
  });

  it('fetches only URLs the request allows: from user input, on an allowed domain', async () => {
    const fetchTool = {
      type: 'web_fetch_20260318' as const,
      name: 'web_fetch' as const,
      max_uses: 2,
      allowed_domains: ['news.example'],
      url_sources: { user_input: { type: 'all' as const }, client_tool_results: { type: 'none' as const }, server_tool_results: { type: 'none' as const } },
    };
    fake.enqueue({ content: [...fake.webFetch('https://news.example/a', 'A'), ...fake.webFetch('https://other.example/b', 'B')] });
    const message = await client.messages.create({ model: MODEL, max_tokens: 64, tools: [fetchTool], messages: [{ role: 'user', content: 'read https://news.example/a please' }] });
    expect(message.content[1]).toMatchObject({ type: 'web_fetch_tool_result', content: { type: 'web_fetch_result', url: 'https://news.example/a' } });
    expect(message.content[3]).toMatchObject({ content: { type: 'web_fetch_tool_result_error', error_code: 'url_not_allowed' } });

    // A URL that only a tool result mentions is not "prior context" for url_sources user_input only.
    fake.enqueue({ content: fake.webFetch('https://news.example/secret', 'S') });
    const fromTool = await client.messages.create({
      model: MODEL,
      max_tokens: 64,
      tools: [fetchTool, { name: 'read_mail', description: 'mail', input_schema: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'read my mail' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_mail', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'open https://news.example/secret' }] },
      ],
    });
    expect(fromTool.content[1]).toMatchObject({ content: { error_code: 'url_not_in_prior_context' } });
  });
});
