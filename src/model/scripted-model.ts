import { ModelError } from '../shared/errors.js';
import type { ModelClient, ModelRequest, ModelResponse, RedactedThinkingBlock, ResponseBlock, ThinkingBlock, TokenUsage } from './model-client.js';
import { abortableSleep } from '../shared/abortable-sleep.js';

/** Thinking the scripted model "did" before answering: its text, or exact blocks. */
type ScriptedThinking = string | Array<ThinkingBlock | RedactedThinkingBlock>;

/** One scripted answer: a response, a thrown error, or a function of the request. */
export type ScriptedTurn =
  | { text: string; thinking?: ScriptedThinking; usage?: Partial<TokenUsage> }
  | { toolCalls: Array<{ name: string; input: unknown; id?: string }>; text?: string; thinking?: ScriptedThinking; usage?: Partial<TokenUsage> }
  | { error: Error }
  | { delayMs: number; then: ScriptedTurn }
  | ((request: ModelRequest) => ScriptedTurn | Promise<ScriptedTurn>);

/**
 * A fake ModelClient for unit tests and benchmarks: it answers from a queue of scripted
 * turns and records every request, so tests can assert what the model was shown and
 * how many calls were made. An empty queue is a test bug and throws.
 */
export class ScriptedModel implements ModelClient {
  readonly calls: ModelRequest[] = [];
  private readonly queue: ScriptedTurn[] = [];
  private toolIds = 0;

  constructor(turns: ScriptedTurn[] = []) {
    this.queue.push(...turns);
  }

  /** Adds turns to the end of the queue. */
  enqueue(...turns: ScriptedTurn[]): this {
    this.queue.push(...turns);
    return this;
  }

  /** Scripted turns not yet consumed. */
  get remaining(): number {
    return this.queue.length;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    this.calls.push(request);
    const next = this.queue.shift();
    if (next === undefined) {
      throw new ModelError(`ScriptedModel: no scripted turn for call #${this.calls.length} (${request.purpose ?? 'unlabelled'})`, 'behaviour');
    }
    return this.play(next, request);
  }

  private async play(turn: ScriptedTurn, request: ModelRequest): Promise<ModelResponse> {
    if (typeof turn === 'function') {
      // Await only a real promise: `{ delayMs, then }` has a `then` key and is not a thenable here.
      const next = turn(request);
      return this.play(next instanceof Promise ? await next : next, request);
    }
    if ('error' in turn) throw turn.error;
    if ('delayMs' in turn) {
      await abortableSleep(turn.delayMs, request.signal);
      return this.play(turn.then, request);
    }
    const content: ResponseBlock[] = [];
    if (turn.thinking !== undefined) {
      content.push(...(typeof turn.thinking === 'string' ? [{ type: 'thinking' as const, thinking: turn.thinking, signature: `scripted-signature-${++this.toolIds}` }] : turn.thinking));
    }
    if ('text' in turn && turn.text) content.push({ type: 'text', text: turn.text });
    if ('toolCalls' in turn) {
      for (const call of turn.toolCalls) {
        content.push({ type: 'tool_use', id: call.id ?? `toolu_scripted_${++this.toolIds}`, name: call.name, input: call.input });
      }
    }
    const hasTools = content.some((block) => block.type === 'tool_use');
    return {
      model: request.model,
      stopReason: hasTools ? 'tool_use' : 'end_turn',
      content,
      usage: {
        inputTokens: turn.usage?.inputTokens ?? estimateTokens(JSON.stringify([request.system, request.messages, request.tools ?? []])),
        outputTokens: turn.usage?.outputTokens ?? estimateTokens(JSON.stringify(content)),
        cacheReadTokens: turn.usage?.cacheReadTokens ?? 0,
        cacheWriteTokens: turn.usage?.cacheWriteTokens ?? 0,
        ...(turn.usage?.webSearches ? { webSearches: turn.usage.webSearches } : {}),
        ...(turn.usage?.webFetches ? { webFetches: turn.usage.webFetches } : {}),
      },
    };
  }
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

