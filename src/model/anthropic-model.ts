import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, MessageParam, Tool, ContentBlockParam, TextBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { ModelError, TimeoutError } from '../shared/errors.js';
import type { ContentBlock, ModelClient, ModelRequest, ModelResponse, StopReason, TextBlock, ToolUseBlock } from './model-client.js';

/** How to reach Anthropic. */
export interface AnthropicModelOptions {
  apiKey: string;
  /** A Messages-API-compatible server; unset means the SDK's default (or ANTHROPIC_BASE_URL). */
  baseUrl?: string | undefined;
  /** Per-request timeout. The SDK retries timeouts too, so the worst case is timeout × (retries + 1). */
  timeoutMs: number;
  /** Retries for 408/409/429/5xx/529 and connection errors, with the SDK's backoff. */
  maxRetries: number;
}

/** The one adapter between Herald's ModelClient and the official Anthropic SDK. */
export class AnthropicModel implements ModelClient {
  private readonly client: Anthropic;

  constructor(options: AnthropicModelOptions) {
    this.client = new Anthropic({
      apiKey: options.apiKey,
      ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
      timeout: options.timeoutMs,
      maxRetries: options.maxRetries,
    });
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const params: MessageCreateParamsNonStreaming = {
      model: request.model,
      max_tokens: request.maxTokens,
      system: request.system.map(
        (block): TextBlockParam => ({ type: 'text', text: block.text, ...(block.cache ? { cache_control: { type: 'ephemeral' } } : {}) }),
      ),
      messages: request.messages.map(toMessageParam),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.tools && request.tools.length > 0 ? { tools: request.tools.map(toToolParam) } : {}),
      ...(request.toolChoice && request.tools && request.tools.length > 0 ? { tool_choice: request.toolChoice } : {}),
    };
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
        },
        content: message.content.flatMap((block): Array<TextBlock | ToolUseBlock> => {
          if (block.type === 'text') return [{ type: 'text', text: block.text }];
          if (block.type === 'tool_use') return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
          return [];
        }),
      };
    } catch (error) {
      throw translateError(error, request.signal);
    }
  }
}

function toMessageParam(message: ModelRequest['messages'][number]): MessageParam {
  if (typeof message.content === 'string') return { role: message.role, content: message.content };
  return { role: message.role, content: message.content.map(toContentBlockParam) };
}

function toContentBlockParam(block: ContentBlock): ContentBlockParam {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'tool_result':
      return { type: 'tool_result', tool_use_id: block.toolUseId, content: block.content, ...(block.isError ? { is_error: true } : {}) };
  }
}

function toToolParam(tool: NonNullable<ModelRequest['tools']>[number]): Tool {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema as Tool['input_schema'] };
}

function toStopReason(reason: string | null): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'tool_use':
    case 'max_tokens':
    case 'stop_sequence':
    case 'refusal':
      return reason;
    default:
      return 'other';
  }
}

/** Maps SDK errors to Herald's errors by blame. */
function translateError(error: unknown, signal: AbortSignal | undefined): Error {
  if (error instanceof Anthropic.APIConnectionTimeoutError) {
    return new TimeoutError('the model did not answer in time', { cause: error });
  }
  if (error instanceof Anthropic.APIUserAbortError) {
    const reason = signal?.reason;
    return reason instanceof Error ? reason : new TimeoutError('the model call was cancelled', { cause: error });
  }
  if (error instanceof Anthropic.APIConnectionError) {
    return new ModelError('could not reach the model service', 'unavailable', { cause: error });
  }
  if (error instanceof Anthropic.APIError) {
    const status = error.status;
    if (status === 429) return new ModelError('the model service is rate limiting us', 'rate_limited', { cause: error, status });
    if (status === 529) return new ModelError('the model service is overloaded', 'overloaded', { cause: error, status });
    if (status !== undefined && status >= 500) return new ModelError(`the model service failed (${status})`, 'unavailable', { cause: error, status });
    // 408 (request timeout) and 409 (conflict) are transient: the SDK itself retries them.
    if (status === 408 || status === 409) return new ModelError(`the model service could not take the request (${status})`, 'unavailable', { cause: error, status });
    // 400/401/403/404: our request or our credentials are wrong; retrying will not help.
    return new ModelError(`the model service rejected the request (${status ?? 'no status'})`, 'rejected', { cause: error, status });
  }
  return error instanceof Error ? error : new Error(String(error));
}
