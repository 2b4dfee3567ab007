/**
 * Herald's own model interface. The orchestrator and agents speak only this; the
 * Anthropic adapter (anthropic-model.ts) translates it to the SDK, and ScriptedModel
 * (scripted-model.ts) stands in for it in tests.
 */

import type { Effort } from './model-profiles.js';

/**
 * A block of the system prompt. `cache` marks the end of a stable prefix worth caching;
 * the adapter marks it for the API only when the prefix (tools and system up to here)
 * reaches the model's minimum cacheable length.
 */
export interface SystemBlock {
  text: string;
  cache?: boolean;
}

/** Plain text. */
interface TextBlock {
  type: 'text';
  text: string;
  /**
   * Where the text came from, when the model cited web search results or fetched pages:
   * the API's citation objects, kept exactly as received (they are handed back unchanged
   * within a tool loop); {@link webSourcesOf} reads their URLs.
   */
  citations?: unknown[];
}

/** A photo the user sent (downscaled by src/media), for the model to look at. */
interface ImageBlock {
  type: 'image';
  mediaType: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
  /** Base64. */
  data: string;
}

/** A PDF the user sent, for the model to read. */
interface DocumentBlock {
  type: 'document';
  mediaType: 'application/pdf';
  /** Base64. */
  data: string;
  title?: string;
}

/**
 * The API running one of its own tools (web search, web fetch) inside the response.
 * Opaque to Herald: `raw` is the block exactly as received, handed back unchanged.
 */
interface ServerToolUseBlock {
  type: 'server_tool_use';
  id: string;
  name: string;
  input: unknown;
  raw: Record<string, unknown>;
}

/** What a server tool gave the model (search results, a fetched page), kept exactly as received in `raw`. */
interface ServerToolResultBlock {
  type: 'server_tool_result';
  /** The API's block type: `web_search_tool_result` or `web_fetch_tool_result`. */
  resultType: string;
  toolUseId: string;
  raw: Record<string, unknown>;
}

/** The model asking to run a tool. */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

/** A tool's answer, sent back to the model. */
export interface ToolResultBlock {
  type: 'tool_result';
  toolUseId: string;
  content: string;
  isError?: boolean;
}

/**
 * The model's reasoning before it answered (current models think by default). Opaque to
 * Herald: it is handed back to the model unchanged and in order within a tool loop, as
 * the API requires, and never shown to the user, stored in history or logged at info.
 */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  /** Verifies the block came from the model; a modified block is refused with 400. */
  signature: string;
}

/** Reasoning the API encrypted (safety-redacted); handed back unchanged like thinking. */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/** What a model may answer with. */
export type ResponseBlock = TextBlock | ToolUseBlock | ThinkingBlock | RedactedThinkingBlock | ServerToolUseBlock | ServerToolResultBlock;

export type ContentBlock = ResponseBlock | ToolResultBlock | ImageBlock | DocumentBlock;

/** One conversation turn as the model sees it. */
export interface ModelMessage {
  role: 'user' | 'assistant';
  content: string | ContentBlock[];
}

/** A tool offered to the model, described by JSON Schema. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/**
 * Anthropic's server-side tools, run by the API itself within one call: web search
 * (`web_search_20260318`) and web fetch (`web_fetch_20260318`).
 */
export type ServerToolSpec =
  | {
      type: 'web_search';
      maxUses: number;
      /** Localises results: the user's time zone and country (ISO 3166-1 alpha-2). */
      userLocation?: { timezone?: string; country?: string };
    }
  | {
      type: 'web_fetch';
      maxUses: number;
      /** Only these domains (and their subdomains) may be fetched. */
      allowedDomains: string[];
    };

/** One call to the model. */
export interface ModelRequest {
  model: string;
  /**
   * Models tried in order when `model` stays unavailable after the SDK's own retries
   * (429, 529, 5xx, a timeout, or a model the account cannot use); each is sent with its
   * own profile's settings.
   */
  fallbackModels?: readonly string[];
  system: SystemBlock[];
  messages: ModelMessage[];
  tools?: ToolSpec[];
  /** Server tools the API may run during this call; their blocks come back in the response. */
  serverTools?: ServerToolSpec[];
  /**
   * `auto` (default), `any` (must call some tool), or a specific tool by name. Models that
   * refuse forced tool choice (the 5.x generation) get `auto`.
   */
  toolChoice?: { type: 'auto' } | { type: 'any' } | { type: 'tool'; name: string };
  maxTokens: number;
  /** Sent only to models that accept sampling parameters (not the 5.x generation). */
  temperature?: number;
  /** How hard the model works (`output_config.effort`), for models that accept it. */
  effort?: Effort;
  /** Aborting cancels the HTTP request in flight. */
  signal?: AbortSignal;
  /** A short label for logs and metrics ("planner", "memory-agent"). */
  purpose?: string;
  /**
   * How long the stable prefix (blocks marked `cache`) is cached: `5m` (the default), `1h`, or
   * `none` (no marker: sent plainly). Chosen from the prefix's measured pace (prompt-cache-policy.ts).
   */
  cacheTtl?: 'none' | '5m' | '1h';
}

/** Tokens a call consumed (and the server tools it ran, which are billed per use). */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Of `cacheWriteTokens`, those written for an hour (billed at twice the input price); absent: none. */
  cacheWrite1hTokens?: number;
  /** Web searches the API ran for the call; absent when none. */
  webSearches?: number;
  /** Pages the API fetched for the call (billed as tokens only); absent when none. */
  webFetches?: number;
}

/** `pause_turn`: the API paused a long server-tool turn; sending the response back lets the model go on. */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'pause_turn' | 'other';

/** What the model answered. */
export interface ModelResponse {
  content: ResponseBlock[];
  stopReason: StopReason;
  usage: TokenUsage;
  /** The model that answered (a fallback, when the requested one was unavailable). */
  model: string;
}

/**
 * Anything that can answer a ModelRequest. Implementations throw `ModelError` (blame
 * "model") when the model cannot be reached or refuses, and `TimeoutError` on timeout.
 */
export interface ModelClient {
  generate(request: ModelRequest): Promise<ModelResponse>;
}

/** Concatenated text of a response. */
export function responseText(response: ModelResponse): string {
  return response.content
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('')
    .trim();
}

/** The tool calls in a response, in order. */
export function toolCallsOf(response: ModelResponse): ToolUseBlock[] {
  return response.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
}

/** Zero usage, to add to. */
export const emptyUsage = (): TokenUsage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

/** Sum of two usages. Server-tool counts appear only when there are some. */
export function addUsage(total: TokenUsage, more: TokenUsage): TokenUsage {
  const webSearches = (total.webSearches ?? 0) + (more.webSearches ?? 0);
  const webFetches = (total.webFetches ?? 0) + (more.webFetches ?? 0);
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    cacheReadTokens: total.cacheReadTokens + more.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens + more.cacheWriteTokens,
    ...(total.cacheWrite1hTokens || more.cacheWrite1hTokens ? { cacheWrite1hTokens: (total.cacheWrite1hTokens ?? 0) + (more.cacheWrite1hTokens ?? 0) } : {}),
    ...(webSearches > 0 ? { webSearches } : {}),
    ...(webFetches > 0 ? { webFetches } : {}),
  };
}

/** A web page the model cited. */
export interface WebSource {
  url: string;
  title: string | undefined;
}

/** The web pages a response's text cites (web search results, fetched pages), in order, each once. */
export function webSourcesOf(content: readonly ContentBlock[]): WebSource[] {
  const sources: WebSource[] = [];
  for (const block of content) {
    if (block.type !== 'text' || !block.citations) continue;
    for (const citation of block.citations) {
      const record = citation as { url?: unknown; title?: unknown };
      if (typeof record.url !== 'string' || sources.some((source) => source.url === record.url)) continue;
      sources.push({ url: record.url, title: typeof record.title === 'string' ? record.title : undefined });
    }
  }
  return sources;
}
