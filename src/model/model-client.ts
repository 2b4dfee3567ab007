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
export interface TextBlock {
  type: 'text';
  text: string;
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
export type ResponseBlock = TextBlock | ToolUseBlock | ThinkingBlock | RedactedThinkingBlock;

export type ContentBlock = ResponseBlock | ToolResultBlock;

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

/** Tokens a call consumed. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Of `cacheWriteTokens`, those written for an hour (billed at twice the input price); absent: none. */
  cacheWrite1hTokens?: number;
}

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'other';

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

/** Sum of two usages. */
export function addUsage(total: TokenUsage, more: TokenUsage): TokenUsage {
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    cacheReadTokens: total.cacheReadTokens + more.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens + more.cacheWriteTokens,
    ...(total.cacheWrite1hTokens || more.cacheWrite1hTokens ? { cacheWrite1hTokens: (total.cacheWrite1hTokens ?? 0) + (more.cacheWrite1hTokens ?? 0) } : {}),
  };
}
