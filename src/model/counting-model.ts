import { addUsage, emptyUsage, type ModelClient, type ModelRequest, type ModelResponse, type TokenUsage } from './model-client.js';
import { costOfUsage } from './model-cost.js';

/** One model's share of a turn: calls, tokens and cost. */
export interface ModelUsageLine {
  model: string;
  calls: number;
  usage: TokenUsage;
  costUsd: number;
}

/**
 * Wraps a model to count every call and its tokens, whichever component made it, so a
 * turn's totals are exact even when a step fails midway. Usage and cost are also kept
 * per model that answered (a fallback model shows up as its own line), priced call by
 * call from the model's profile.
 */
export class CountingModel implements ModelClient {
  calls = 0;
  usage: TokenUsage = emptyUsage();
  costUsd = 0;
  /**
   * Time spent waiting for the model, in milliseconds (benchmarks subtract it): while at
   * least one call is in flight, so calls made at once (parallel steps) count once.
   */
  waitingMs = 0;
  private readonly lines = new Map<string, ModelUsageLine>();
  private inFlight = 0;
  private waitingSince = 0;

  constructor(
    private readonly inner: ModelClient,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async generate(request: ModelRequest): Promise<ModelResponse> {
    this.calls += 1;
    if (this.inFlight++ === 0) this.waitingSince = this.now();
    try {
      const response = await this.inner.generate(request);
      this.record(response.model || request.model, response.usage);
      return response;
    } finally {
      if (--this.inFlight === 0) this.waitingMs += this.now() - this.waitingSince;
    }
  }

  /**
   * Adds what a tool's paid service (embeddings) cost to the turn: its cost counts in the
   * turn's total and budget, and it gets a line of its own; its tokens are not prompt
   * tokens, so they do not count against TURN_MAX_INPUT_TOKENS.
   */
  recordService(service: string, tokens: number, costUsd: number): void {
    this.costUsd += costUsd;
    const line = this.lines.get(service) ?? { model: service, calls: 0, usage: emptyUsage(), costUsd: 0 };
    this.lines.set(service, { model: service, calls: line.calls + 1, usage: { ...line.usage, inputTokens: line.usage.inputTokens + tokens }, costUsd: line.costUsd + costUsd });
  }

  /** Calls, tokens and cost per model that answered, in order of first answer. */
  byModel(): ModelUsageLine[] {
    return [...this.lines.values()].map((line) => ({ ...line, usage: { ...line.usage } }));
  }

  /** Tokens of every prompt sent so far: billed input plus cache reads and writes. */
  get promptTokens(): number {
    return this.usage.inputTokens + this.usage.cacheReadTokens + this.usage.cacheWriteTokens;
  }

  private record(model: string, usage: TokenUsage): void {
    const cost = costOfUsage(model, usage);
    this.usage = addUsage(this.usage, usage);
    this.costUsd += cost;
    const line = this.lines.get(model) ?? { model, calls: 0, usage: emptyUsage(), costUsd: 0 };
    this.lines.set(model, { model, calls: line.calls + 1, usage: addUsage(line.usage, usage), costUsd: line.costUsd + cost });
  }
}
