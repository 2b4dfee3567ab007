import Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { ModelError, TimeoutError } from '../shared/errors.js';
import { messageParams } from './anthropic-request.js';
import type { ModelClient, ModelRequest, ModelResponse, ResponseBlock, StopReason } from './model-client.js';
import { profileFor } from './model-profiles.js';

/** How to reach Anthropic. */
export interface AnthropicModelOptions {
  apiKey: string;
  /** A Messages-API-compatible server; unset means the SDK's default (or ANTHROPIC_BASE_URL). */
  baseUrl?: string | undefined;
  /** Per-request timeout. The SDK retries timeouts too, so the worst case is timeout × (retries + 1). */
  timeoutMs: number;
  /** Retries for 408/409/429/5xx/529 and connection errors, with the SDK's backoff. */
  maxRetries: number;
  /**
   * Told of every 429 the service answers, the SDK's own retries included (metrics: a burst
   * against the rate limit shows even when the retries absorb it), with the wait it asked for.
   */
  onRateLimited?: (model: string, retryAfterMs: number | undefined) => void;
}

/**
 * The one adapter between Herald's ModelClient and the official Anthropic SDK. Each
 * request is shaped by the target model's profile (anthropic-request.ts); the SDK retries
 * transient failures itself, and what is left is translated into errors by blame.
 */
export class AnthropicModel implements ModelClient {
  private readonly client: Anthropic;

  constructor(options: AnthropicModelOptions) {
    this.client = new Anthropic({
      apiKey: options.apiKey,
      ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
      timeout: options.timeoutMs,
      maxRetries: options.maxRetries,
      ...(options.onRateLimited ? { fetch: rateLimitWatchingFetch(options.onRateLimited) } : {}),
    });
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const params = messageParams(request, profileFor(request.model));
    try {
      const message = await this.client.messages.create(params, request.signal ? { signal: request.signal } : undefined);
      return {
        model: message.model,
        stopReason: toStopReason(message.stop_reason),
        usage: {
          inputTokens: message.usage.input_tokens,
          outputTokens: message.usage.output_tokens,
          cacheReadTokens: message.usage.cache_read_input_tokens ?? 0,
          cacheWriteTokens: message.usage.cache_creation_input_tokens ?? 0,
          ...(message.usage.cache_creation?.ephemeral_1h_input_tokens ? { cacheWrite1hTokens: message.usage.cache_creation.ephemeral_1h_input_tokens } : {}),
          ...(message.usage.server_tool_use?.web_search_requests ? { webSearches: message.usage.server_tool_use.web_search_requests } : {}),
          ...(message.usage.server_tool_use?.web_fetch_requests ? { webFetches: message.usage.server_tool_use.web_fetch_requests } : {}),
        },
        content: message.content.flatMap((block): ResponseBlock[] => {
          switch (block.type) {
            case 'text':
              return [block.citations && block.citations.length > 0 ? { type: 'text', text: block.text, citations: [...block.citations] } : { type: 'text', text: block.text }];
            case 'tool_use':
              return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
            // Kept exactly as received: the next request of a tool loop must carry them back.
            case 'thinking':
              return [{ type: 'thinking', thinking: block.thinking, signature: block.signature }];
            case 'redacted_thinking':
              return [{ type: 'redacted_thinking', data: block.data }];
            // Server tools ran inside the call; their blocks go back with the rest, untouched.
            case 'server_tool_use':
              return [{ type: 'server_tool_use', id: block.id, name: block.name, input: block.input, raw: { ...block } }];
            case 'web_search_tool_result':
            case 'web_fetch_tool_result':
              return [{ type: 'server_tool_result', resultType: block.type, toolUseId: block.tool_use_id, raw: { ...block } }];
            default:
              return [];
          }
        }),
      };
    } catch (error) {
      throw translateError(error, request.signal);
    }
  }
}

function toStopReason(reason: string | null): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'tool_use':
    case 'max_tokens':
    case 'stop_sequence':
    case 'refusal':
    case 'pause_turn':
      return reason;
    default:
      return 'other';
  }
}

/** `instanceof` alone types the class's parameters as `any`; this keeps their declared defaults. */
function isApiError(error: unknown): error is InstanceType<typeof Anthropic.APIError> {
  return error instanceof Anthropic.APIError;
}

/** Maps SDK errors to Herald's errors by blame. */
function translateError(error: unknown, signal: AbortSignal | undefined): Error {
  if (error instanceof Anthropic.APIConnectionTimeoutError) {
    return new TimeoutError('the model did not answer in time', { cause: error });
  }
  if (error instanceof Anthropic.APIUserAbortError) {
    const reason: unknown = signal?.reason;
    return reason instanceof Error ? reason : new TimeoutError('the model call was cancelled', { cause: error });
  }
  if (error instanceof Anthropic.APIConnectionError) {
    return new ModelError('could not reach the model service', 'unavailable', { cause: error });
  }
  if (isApiError(error)) {
    const status = error.status;
    if (status === 429) return new ModelError('the model service is rate limiting us', 'rate_limited', { cause: error, status, retryAfterMs: retryAfterMs(error.headers) });
    if (status === 529) return new ModelError('the model service is overloaded', 'overloaded', { cause: error, status });
    if (status !== undefined && status >= 500) return new ModelError(`the model service failed (${status})`, 'unavailable', { cause: error, status });
    // 408 (request timeout) and 409 (conflict) are transient: the SDK itself retries them.
    if (status === 408 || status === 409) return new ModelError(`the model service could not take the request (${status})`, 'unavailable', { cause: error, status });
    const detail = apiErrorDetail(error.error);
    // The model does not exist or this account cannot use it: another model may answer.
    if (status === 404) return new ModelError(`the model service does not offer this model (404${detail})`, 'model_not_found', { cause: error, status });
    // 400/401/403: our request or our credentials are wrong; retrying will not help.
    return new ModelError(`the model service rejected the request (${status ?? 'no status'}${detail})`, 'rejected', { cause: error, status });
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** Global fetch, reporting each 429 (and the model the request named) before the SDK decides whether to retry it. */
function rateLimitWatchingFetch(onRateLimited: NonNullable<AnthropicModelOptions['onRateLimited']>): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 429) {
      // Only on a 429, so the request body is read back rarely.
      const model = typeof init?.body === 'string' ? (/"model":"([^"]{1,100})"/.exec(init.body)?.[1] ?? 'unknown') : 'unknown';
      onRateLimited(model, retryAfterMs(response.headers));
    }
    return response;
  };
}

/** The wait a 429 asks for: `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const milliseconds = Number(headers?.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** The error body the API sends: its own type and message (they name fields, never the prompt). */
const apiErrorBody = z.object({ error: z.object({ type: z.string().optional(), message: z.string().optional() }) });

/** The API's own error type and message, shortened; empty when the body is not the API's. */
function apiErrorDetail(body: unknown): string {
  const parsed = apiErrorBody.safeParse(body);
  if (!parsed.success) return '';
  const parts = [parsed.data.error.type, parsed.data.error.message?.slice(0, 200)].filter(Boolean);
  return parts.length > 0 ? ` ${parts.join(': ')}` : '';
}
