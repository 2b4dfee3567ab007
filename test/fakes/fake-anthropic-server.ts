import { randomBytes } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { recordFakeFailure, rethrowFakeFailures, takeFakeFailures, waitForCount } from './fake-failures.js';
import { checkModelRules, isFifthGeneration } from './anthropic/model-rules.js';
import { cacheControlViolation, fakeTokens, PromptCache } from './anthropic/prompt-cache.js';
import { checkRequestRules } from './anthropic/request-rules.js';
import { ThinkingSigner, type RedactedThinkingBlock, type SignedThinkingBlock } from './anthropic/thinking-signatures.js';
import { inspectMediaBlocks, withoutMediaData } from './anthropic/media-blocks.js';
import { ServerTools, type ScriptedSearchResult } from './anthropic/server-tools.js';
import type {
  ContentBlock,
  Message,
  MessageCreateParamsBase,
  MessageParam,
  StopReason,
  TextBlock,
  ToolUseBlock,
  Usage,
} from '@anthropic-ai/sdk/resources/messages/messages';

/** A content block as the fake sends it: any SDK block, or a hand-written one the SDK types would not accept. */
export type ScriptedContentBlock = ContentBlock | { type: string; [field: string]: unknown };

/**
 * The thinking a 5.x model shows before its answer: by default a short signed thinking
 * block (as current models think adaptively); a text of your own; "redacted" for a
 * redacted block; or false for none. Models before the 5.x generation never think unasked.
 */
type ScriptedThinking = string | 'redacted' | false;

/** Answer with one text block, stop_reason end_turn. */
export interface ScriptedTextResponse {
  text: string;
  thinking?: ScriptedThinking;
  usage?: Partial<Usage>;
}

/** Answer with tool_use blocks (after an optional text block), stop_reason tool_use. */
export interface ScriptedToolCallsResponse {
  toolCalls: Array<{ name: string; input: unknown; id?: string }>;
  text?: string;
  thinking?: ScriptedThinking;
  usage?: Partial<Usage>;
}

/** Answer with exactly this content. */
export interface ScriptedContentResponse {
  content: ScriptedContentBlock[];
  /** Defaults to tool_use when the content has a tool_use block, end_turn otherwise. */
  stopReason?: StopReason | (string & {});
  usage?: Partial<Usage>;
}

/** Answer with an Anthropic error body and this status. */
export interface ScriptedErrorResponse {
  error: {
    status: number;
    /** Defaults by status: 400 invalid_request_error, 401 authentication_error, 429 rate_limit_error, 529 overloaded_error… */
    type?: string;
    message?: string;
    /** Sent as a retry-after header, which the SDK honours when it retries. */
    retryAfterSeconds?: number;
    /** Sent as x-should-retry, which overrides the SDK's own decision to retry. */
    shouldRetry?: boolean;
  };
}

/** Never answer: the request stays open until the client gives up or the server closes. */
interface ScriptedHangResponse {
  hang: true;
}

/** Answer `then` after `delayMs`, to give the model a realistic latency in benchmarks. */
interface ScriptedDelayedResponse {
  delayMs: number;
  then: ScriptedAnthropicResponse;
}

/** Decides the answer from the request itself (e.g. to echo the user's text or branch on tools). */
export type ScriptedAnthropicResponseFunction = (
  request: RecordedAnthropicRequest,
) => ScriptedAnthropicResponse | Promise<ScriptedAnthropicResponse>;

/** One scripted answer to one POST /v1/messages. */
export type ScriptedAnthropicResponse =
  | ScriptedTextResponse
  | ScriptedToolCallsResponse
  | ScriptedContentResponse
  | ScriptedErrorResponse
  | ScriptedHangResponse
  | ScriptedDelayedResponse
  | ScriptedAnthropicResponseFunction;

/** The JSON body of a Messages request as received. Partial because invalid requests are recorded too. */
export type RecordedMessagesBody = Partial<MessageCreateParamsBase> & Record<string, unknown>;

/** One request the fake received, with helpers to read what the model was shown. */
export class RecordedAnthropicRequest {
  constructor(
    /** 1-based position since start or the last reset. */
    readonly number: number,
    readonly method: string,
    readonly path: string,
    /** Header names lowercased; repeated headers joined with ", ". */
    readonly headers: Record<string, string>,
    /** Parsed JSON body ({} when the body was not a JSON object). */
    readonly body: RecordedMessagesBody,
    readonly receivedAt: Date,
  ) {}

  /** The system prompt as one string: the `system` parameter, a string or text blocks (the API refuses "system" messages). */
  systemText(): string {
    return textOf(this.body.system);
  }

  /**
   * The text of the latest user message that has any, skipping messages that only carry
   * tool results: in a tool loop this is still what the person said. '' when there is none.
   */
  lastUserText(): string {
    const messages = this.messages();
    for (let index = messages.length - 1; index >= 0; index -= 1) {
      const message = messages[index];
      if (message?.role !== 'user') continue;
      const text = textOf(message.content);
      if (text.length > 0) return text;
    }
    return '';
  }

  /** The image and document blocks of every user message, in order, decoded. */
  mediaBlocks(): Array<{ type: 'image' | 'document'; mediaType: string; bytes: Buffer; messageIndex: number }> {
    return this.messages().flatMap((message, messageIndex) =>
      Array.isArray(message.content)
        ? (message.content as unknown[]).flatMap((block) => {
            if (!isRecord(block) || (block.type !== 'image' && block.type !== 'document') || !isRecord(block.source)) return [];
            return [{ type: block.type, mediaType: String(block.source.media_type), bytes: Buffer.from(String(block.source.data), 'base64'), messageIndex }];
          })
        : [],
    );
  }

  /** The server tool definitions offered (web search, web fetch), as sent. */
  serverTools(): Array<Record<string, unknown>> {
    const tools: unknown[] = Array.isArray(this.body.tools) ? this.body.tools : [];
    return tools.filter((tool): tool is Record<string, unknown> => isRecord(tool) && typeof tool.type === 'string' && /^web_(search|fetch)_/.test(tool.type));
  }

  /** The names of the tools offered, in order. */
  toolNames(): string[] {
    const tools: unknown[] = Array.isArray(this.body.tools) ? this.body.tools : [];
    return tools.flatMap((tool) => (isRecord(tool) && typeof tool.name === 'string' ? [tool.name] : []));
  }

  /**
   * Everything the model was shown as one string: the system prompt, then every message's text,
   * tool_result content and tool_use input (as JSON). For asserting what the model was NOT shown.
   */
  allText(): string {
    const parts = [textOf(this.body.system)];
    for (const message of this.messages()) parts.push(allTextOf(message.content));
    return parts.filter((part) => part.length > 0).join('\n');
  }

  private messages(): MessageParam[] {
    return Array.isArray(this.body.messages) ? this.body.messages : [];
  }
}

const defaultErrorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};
const defaultErrorMessages: Record<string, string> = {
  invalid_request_error: 'Invalid request',
  authentication_error: 'invalid x-api-key',
  rate_limit_error: 'Number of requests has exceeded your rate limit',
  api_error: 'Internal server error',
  overloaded_error: 'Overloaded',
};

interface PlannedAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Options for a fake server. */
export interface FakeAnthropicOptions {
  /** The clock the prompt cache ages by (default: the real one). */
  now?: () => number;
}

/**
 * A local stand-in for the Anthropic Messages API (POST /v1/messages, non-streaming), for running
 * the real @anthropic-ai/sdk against. Answers are scripted per request; an unscripted request gets
 * a 500 so a test that forgot to script fails loudly instead of hanging, and a script that throws
 * is recorded for the test to fail with (fake-failures.ts).
 *
 * It is as strict as the real service: it answers 400 (in Anthropic's error shape) to what the
 * API refuses in any request (anthropic/request-rules.ts: a "system" message, an empty text
 * block, a tool_use without its tool_result, a bad or repeated tool name, more than four
 * cache breakpoints), and for 5.x models to sampling parameters, forced tool choice, thinking budgets or "disabled", and assistant
 * prefill (anthropic/model-rules.ts); their answers start with signed thinking blocks, and a
 * tool-loop request whose last assistant turn does not carry them back unchanged is refused. Marked
 * prompt prefixes long enough for the model are cached for five minutes (or the hour a breakpoint's
 * `ttl: '1h'` asks for), and usage reports the
 * cache reads and writes (anthropic/prompt-cache.ts).
 */
export class FakeAnthropicServer {
  /** Every request received since start or the last reset, in order. */
  readonly requests: RecordedAnthropicRequest[] = [];

  private readonly signer = new ThinkingSigner();
  /** Web search and fetch as the API runs them (anthropic/server-tools.ts). */
  private readonly webTools = new ServerTools();
  /** What each request's images and PDFs cost in tokens (billed by size, not by base64 length). */
  private readonly mediaTokens = new WeakMap<RecordedAnthropicRequest, number>();
  private readonly cache: PromptCache;
  /** The thinking blocks sent with each tool_use id, which the next request must hand back. */
  private readonly issuedThinking = new Map<string, ThinkingContent[]>();
  private readonly queue: ScriptedAnthropicResponse[] = [];
  private fallback: ScriptedAnthropicResponse = unscripted;
  private readonly events = new EventEmitter();
  // Delayed answers still waiting, so close() can cancel them instead of leaving timers behind.
  private readonly delays = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: Server,
    /** Base URL to give the SDK as `baseURL`, e.g. http://127.0.0.1:54321. */
    readonly url: string,
    options: FakeAnthropicOptions,
  ) {
    // Any number of tests may wait at once; the default limit of 10 would only produce warnings.
    this.events.setMaxListeners(0);
    this.cache = new PromptCache(options.now ?? Date.now);
  }

  /** Starts a server on 127.0.0.1 on a free port. */
  static async start(options: FakeAnthropicOptions = {}): Promise<FakeAnthropicServer> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const fake = new FakeAnthropicServer(server, `http://127.0.0.1:${port}`, options);
    server.on('request', (request, response) => fake.handle(request, response));
    return fake;
  }

  /** Queues answers, consumed in order, one per valid request. */
  enqueue(...responses: ScriptedAnthropicResponse[]): void {
    this.queue.push(...responses);
  }

  /** What to answer once the queue is empty (by default, a 500 naming the unscripted request). */
  setFallback(response: ScriptedAnthropicResponse): void {
    this.fallback = response;
  }

  /** How many queued answers are left. */
  pending(): number {
    return this.queue.length;
  }

  /**
   * Resolves with `requests` once at least `count` arrived. It waits as long as the test
   * does; `timeoutMs` makes it reject after that long instead (fake-failures.ts).
   */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedAnthropicRequest[]> {
    return waitForCount(this, this.events, 'request', () => this.requests, count, timeoutMs);
  }

  /**
   * Throws, unchanged, the first error a scripted answer of this server threw (an `expect`
   * inside it), for a test that wants it at once rather than after it ends (when the
   * shared afterEach of test/helpers/fake-failures-setup.ts rethrows it anyway).
   */
  rethrowScriptErrors(): void {
    rethrowFakeFailures(this);
  }

  /** Removes and returns the errors this server's scripts threw, for a test that means them to throw. */
  takeScriptErrors(): unknown[] {
    return takeFakeFailures(this);
  }

  /** Forgets recorded requests, queued answers and the prompt cache, and restores the default fallback. */
  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
    this.fallback = unscripted;
    this.cache.clear();
  }

  /** Blocks of a web search the model ran (server_tool_use + web_search_tool_result), for scripting `content`. */
  webSearch(query: string, results: ScriptedSearchResult[]): ScriptedContentBlock[] {
    return this.webTools.search(query, results);
  }

  /** Blocks of a page the model fetched (server_tool_use + web_fetch_tool_result), for scripting `content`. */
  webFetch(url: string, pageText: string, title?: string): ScriptedContentBlock[] {
    return this.webTools.fetch(url, pageText, title);
  }

  /** A text block citing a scripted search result, by its URL. */
  citedText(text: string, url: string, title?: string): ScriptedContentBlock {
    return this.webTools.cite(text, url, title);
  }

  /** A thinking block signed as this server signs them, for scripting exact `content`. */
  thinkingBlock(text: string): SignedThinkingBlock {
    return this.signer.thinking(text);
  }

  /** Stops the server, cutting hanging and kept-alive connections and cancelling delayed answers. */
  async close(): Promise<void> {
    for (const delay of this.delays) clearTimeout(delay);
    this.delays.clear();
    const closed = new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
    this.server.closeAllConnections();
    await closed;
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.route(request, response, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => this.scriptFailed(response, error));
    });
    // A client that gives up mid-request is not the fake's problem; without a listener it would crash the process.
    request.on('error', () => undefined);
  }

  private async route(request: IncomingMessage, response: ServerResponse, rawBody: string): Promise<void> {
    const path = new URL(request.url ?? '/', this.url).pathname;
    const parsed = parseJson(rawBody);
    const recorded = new RecordedAnthropicRequest(
      this.requests.length + 1,
      request.method ?? 'GET',
      path,
      flattenHeaders(request),
      isRecord(parsed) ? (parsed as RecordedMessagesBody) : {},
      new Date(),
    );
    // Recorded before answering, so a client that awaited the SDK call always finds it here.
    this.requests.push(recorded);
    this.events.emit('request');

    if (Buffer.byteLength(rawBody) > REQUEST_MAX_BYTES) {
      send(response, errorAnswer({ status: 413, type: 'request_too_large', message: `Request exceeds the maximum allowed number of bytes (${REQUEST_MAX_BYTES})` }));
      return;
    }
    const invalid = validate(request.method, path, parsed) ?? this.checkRules(parsed as Record<string, unknown>) ?? this.checkServerTools(parsed as Record<string, unknown>);
    if (invalid) {
      send(response, errorAnswer(invalid));
      return;
    }
    const media = await inspectMediaBlocks(parsed as Record<string, unknown>);
    if (media.violation) {
      send(response, errorAnswer({ status: 400, message: media.violation }));
      return;
    }
    this.mediaTokens.set(recorded, media.tokens);
    const scripted = this.queue.shift() ?? this.fallback;
    await this.answer(response, recorded, scripted);
  }

  private async answer(response: ServerResponse, recorded: RecordedAnthropicRequest, scripted: ScriptedAnthropicResponse): Promise<void> {
    if (typeof scripted === 'function') {
      // Await only a real promise: a scripted `{ delayMs, then }` has a `then` key, and
      // awaiting it as a thenable would hang.
      const next = scripted(recorded);
      await this.answer(response, recorded, next instanceof Promise ? await next : next);
      return;
    }
    if ('hang' in scripted) return; // closeAllConnections() in close(), or the client aborting, ends it.
    if ('delayMs' in scripted) {
      const delay = setTimeout(() => {
        this.delays.delete(delay);
        // The client may have timed out meanwhile; answering a closed socket would only throw.
        if (response.destroyed) return;
        this.answer(response, recorded, scripted.then).catch((error: unknown) => this.scriptFailed(response, error));
      }, scripted.delayMs);
      this.delays.add(delay);
      return;
    }
    if ('error' in scripted) {
      send(response, errorAnswer(scripted.error));
      return;
    }
    const message = this.message(recorded, scripted);
    // Server tools run inside the call: searches past max_uses and fetches the request does not allow get the API's error results.
    const played = this.webTools.apply(recorded.body, message.content as unknown as Array<{ type: string; [field: string]: unknown }>);
    if ('error' in played) {
      send(response, errorAnswer({ status: 500, message: played.error }));
      return;
    }
    message.content = played.content as unknown as ContentBlock[];
    if (played.webSearches > 0 || played.webFetches > 0) {
      message.usage.server_tool_use = { web_search_requests: played.webSearches, web_fetch_requests: played.webFetches };
      // What the results add to the prompt the model read.
      if (scripted.usage?.input_tokens === undefined) message.usage.input_tokens += 800 * (played.webSearches + played.webFetches);
    }
    send(response, { status: 200, body: message, headers: { 'request-id': requestId() } });
  }

  /** Server tool definitions and blocks handed back, as the API checks them. */
  private checkServerTools(body: Record<string, unknown>): ScriptedErrorResponse['error'] | undefined {
    const violation = this.webTools.checkTools(body) ?? this.webTools.checkMessages(body);
    return violation ? { status: 400, message: violation } : undefined;
  }

  /**
   * A script threw (a failing `expect`, most often): a test bug. It is recorded for the
   * test to fail with (fake-failures.ts), and answered as a 500 so the call fails too.
   */
  private scriptFailed(response: ServerResponse, error: unknown): void {
    recordFakeFailure(this, error);
    const message = `FakeAnthropicServer: scripted response failed: ${error instanceof Error ? error.message : String(error)}`;
    send(response, errorAnswer({ status: 500, message }));
  }

  /** The request's shape, the model's rules, then the thinking hand-back: what the real API checks before answering. */
  private checkRules(body: Record<string, unknown>): ScriptedErrorResponse['error'] | undefined {
    // A turn the API paused mid server tool (pause_turn) is continued by sending it back: not a prefill.
    const messages0 = Array.isArray(body.messages) ? (body.messages as Array<{ role?: unknown; content?: unknown }>) : [];
    const final = messages0.at(-1);
    const paused = final?.role === 'assistant' && Array.isArray(final.content) && (final.content as Array<{ type?: unknown }>).some((block) => block.type === 'server_tool_use');
    const violation = checkRequestRules(body) ?? checkModelRules(paused ? { ...body, messages: messages0.slice(0, -1) } : body);
    if (violation) return { status: 400, message: violation.message };
    const cacheViolation = cacheControlViolation(body);
    if (cacheViolation) return { status: 400, message: cacheViolation };
    const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: unknown; content?: unknown }>) : [];
    for (const [messageIndex, message] of messages.entries()) {
      if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
      for (const [blockIndex, block] of (message.content as Array<Record<string, unknown>>).entries()) {
        if ((block.type === 'thinking' || block.type === 'redacted_thinking') && !this.signer.isGenuine(block)) {
          return { status: 400, message: `messages.${messageIndex}.content.${blockIndex}: Invalid \`signature\` in \`${String(block.type)}\` block` };
        }
      }
    }
    // In a tool loop, the final assistant turn must start with the thinking that came with its tool use.
    const lastIndex = messages.map((message) => message.role).lastIndexOf('assistant');
    const last = messages[lastIndex];
    if (!last || !Array.isArray(last.content)) return undefined;
    const blocks = last.content as Array<Record<string, unknown>>;
    const toolUse = blocks.find((block) => block.type === 'tool_use');
    const issued = typeof toolUse?.id === 'string' ? this.issuedThinking.get(toolUse.id) : undefined;
    if (!issued) return undefined;
    const handedBack = blocks.slice(0, issued.length).map(thinkingKey);
    if (handedBack.join('\n') !== issued.map(thinkingKey).join('\n')) {
      return {
        status: 400,
        message: `messages.${lastIndex}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(blocks[0]?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceding the lastmost set of \`tool_use\` and \`tool_result\` blocks). Pass the thinking blocks back unchanged.`,
      };
    }
    return undefined;
  }

  /** The Message for a scripted answer: thinking first for 5.x models, usage with the prompt cache applied. */
  private message(recorded: RecordedAnthropicRequest, scripted: ScriptedTextResponse | ScriptedToolCallsResponse | ScriptedContentResponse): Message {
    const message = buildMessage(recorded, scripted);
    const model = String(recorded.body.model);
    if (!('content' in scripted) && isFifthGeneration(model) && scripted.thinking !== false) {
      const thinking = scripted.thinking === 'redacted' ? this.signer.redacted() : this.signer.thinking(scripted.thinking ?? 'The user wants this; I will do it.');
      message.content = [thinking as ContentBlock, ...message.content];
      if (thinking.type === 'thinking' && scripted.usage?.output_tokens === undefined) message.usage.output_tokens += Math.ceil(thinking.thinking.length / 4);
    }
    const thinkingBlocks = (message.content as Array<{ type: string }>).filter((block): block is ThinkingContent => block.type === 'thinking' || block.type === 'redacted_thinking');
    for (const block of message.content) {
      if (block.type === 'tool_use' && thinkingBlocks.length > 0) this.issuedThinking.set(block.id, thinkingBlocks);
    }
    const cache = this.cache.use(recorded.body);
    if (scripted.usage?.input_tokens === undefined) {
      message.usage.input_tokens = Math.max(0, message.usage.input_tokens + (this.mediaTokens.get(recorded) ?? 0) - cache.cacheReadTokens - cache.cacheWriteTokens);
    }
    message.usage.cache_read_input_tokens = scripted.usage?.cache_read_input_tokens ?? cache.cacheReadTokens;
    message.usage.cache_creation_input_tokens = scripted.usage?.cache_creation_input_tokens ?? cache.cacheWriteTokens;
    message.usage.cache_creation = scripted.usage?.cache_creation ?? cache.cacheCreation;
    return message;
  }
}

/** A thinking block as sent and as handed back. */
type ThinkingContent = SignedThinkingBlock | RedactedThinkingBlock;

/** What identifies a thinking block, whatever order its fields were serialized in. */
function thinkingKey(block: Record<string, unknown> | ThinkingContent): string {
  const record = block as Record<string, unknown>;
  return JSON.stringify([record.type, record.thinking ?? null, record.signature ?? null, record.data ?? null]);
}

/** The Messages API's request size limit. */
const REQUEST_MAX_BYTES = 32 * 1024 * 1024;

/** The default fallback: fail loudly, naming the request nobody scripted. */
const unscripted: ScriptedAnthropicResponseFunction = (request) => ({
  error: { status: 500, type: 'api_error', message: `FakeAnthropicServer: no scripted response for request #${request.number}` },
});

/** Checks what the real API would refuse before it ever reached a model. */
function validate(method: string | undefined, path: string, body: unknown): ScriptedErrorResponse['error'] | undefined {
  if (method !== 'POST' || path !== '/v1/messages') {
    return { status: 404, type: 'not_found_error', message: `FakeAnthropicServer: no route for ${method} ${path}` };
  }
  if (!isRecord(body)) return { status: 400, message: 'FakeAnthropicServer: the body must be a JSON object' };
  if (body.stream === true) {
    return { status: 400, message: 'FakeAnthropicServer: streaming is not supported by the fake; call messages.create without stream: true' };
  }
  if (typeof body.model !== 'string') return { status: 400, message: 'model: Field required' };
  if (typeof body.max_tokens !== 'number') return { status: 400, message: 'max_tokens: Field required' };
  if (!Array.isArray(body.messages)) return { status: 400, message: 'messages: Field required' };
  return undefined;
}

function buildMessage(
  recorded: RecordedAnthropicRequest,
  scripted: ScriptedTextResponse | ScriptedToolCallsResponse | ScriptedContentResponse,
): Message {
  let content: ScriptedContentBlock[];
  let stopReason: string;
  if ('content' in scripted) {
    content = scripted.content;
    stopReason = scripted.stopReason ?? (content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn');
  } else if ('toolCalls' in scripted) {
    const toolUses = scripted.toolCalls.map(
      (call): ToolUseBlock => ({ type: 'tool_use', id: call.id ?? 'toolu_' + randomBytes(12).toString('hex'), name: call.name, input: call.input, caller: { type: 'direct' } }),
    );
    content = scripted.text === undefined ? toolUses : [textBlock(scripted.text), ...toolUses];
    stopReason = 'tool_use';
  } else {
    content = [textBlock(scripted.text)];
    stopReason = 'end_turn';
  }
  const { system, messages, tools } = recorded.body;
  const usage: Usage = {
    input_tokens: fakeTokens(withoutMediaData({ system, messages, tools })),
    output_tokens: Math.ceil(outputLength(content) / 4),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: 'standard',
    speed: null,
    ...scripted.usage,
  };
  return {
    id: 'msg_' + randomBytes(12).toString('hex'),
    type: 'message',
    role: 'assistant',
    model: recorded.body.model ?? 'unknown',
    // Scripted raw blocks are sent as written; the cast only tells the compiler the test knows what it sends.
    content: content as ContentBlock[],
    stop_reason: stopReason as StopReason,
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage,
  };
}

function textBlock(text: string): TextBlock {
  return { type: 'text', text, citations: null };
}

function outputLength(content: ScriptedContentBlock[]): number {
  return content.reduce((total, block) => {
    if (block.type === 'text' && typeof block.text === 'string') return total + block.text.length;
    if (block.type === 'tool_use') return total + JSON.stringify(block.input ?? null).length;
    return total;
  }, 0);
}

function errorAnswer(error: ScriptedErrorResponse['error']): PlannedAnswer {
  const type = error.type ?? defaultErrorTypes[error.status] ?? 'api_error';
  const id = requestId();
  const headers: Record<string, string> = { 'request-id': id };
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  if (error.shouldRetry !== undefined) headers['x-should-retry'] = String(error.shouldRetry);
  return {
    status: error.status,
    body: { type: 'error', error: { type, message: error.message ?? defaultErrorMessages[type] ?? type }, request_id: id },
    headers,
  };
}

function send(response: ServerResponse, answer: PlannedAnswer): void {
  if (response.destroyed || response.headersSent) return;
  const payload = JSON.stringify(answer.body);
  response.writeHead(answer.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    ...answer.headers,
  });
  response.end(payload);
}

function requestId(): string {
  return 'req_' + randomBytes(12).toString('hex');
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function flattenHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text of a string or of the text blocks in a block array. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .flatMap((block: unknown) => (isRecord(block) && block.type === 'text' && typeof block.text === 'string' ? [block.text] : []))
    .join('\n');
}

/** Text, tool_result content and tool_use input of a message's content. */
function allTextOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .flatMap((block: unknown): string[] => {
      if (!isRecord(block)) return [];
      if (block.type === 'text' && typeof block.text === 'string') return [block.text];
      if (block.type === 'tool_result') return [textOf(block.content)];
      if (block.type === 'tool_use') return [JSON.stringify(block.input ?? null)];
      return [];
    })
    .filter((part) => part.length > 0)
    .join('\n');
}
