import { HeraldError } from '../shared/errors.js';
import type { CountingModel } from './counting-model.js';
import type { ModelClient, ModelRequest, ModelResponse, ServerToolSpec } from './model-client.js';

/** How much model work one turn may do (TURN_MAX_MODEL_CALLS, TURN_MAX_INPUT_TOKENS). */
export interface TurnBudgetLimits {
  maxModelCalls: number;
  /** Prompt tokens over all calls (billed input plus cache reads and writes). */
  maxInputTokens: number;
  /** Web searches over all calls (each is billed); default 3. */
  maxWebSearches?: number;
  /** Web pages fetched over all calls; default 2. */
  maxWebFetches?: number;
}

/** The turn has used its model budget; what is done stands and the user gets an honest reply. */
export class TurnBudgetExceeded extends HeraldError {
  readonly blame = 'budget' as const;
}

/**
 * A per-turn cap on model work, so a model stuck in a loop cannot spend without end.
 * Planning and steps use {@link TurnBudget.work}, which stops one call short of the cap:
 * the last call is kept for {@link TurnBudget.reply}, so a turn cut short can still say,
 * in the user's words, what it did and what it did not.
 */
export class TurnBudget {
  /** For the planner and sub-agents. */
  readonly work: ModelClient;
  /** For the composer: may take the call the work left. */
  readonly reply: ModelClient;

  constructor(
    private readonly meter: CountingModel,
    private readonly limits: TurnBudgetLimits,
  ) {
    this.work = { generate: (request) => this.generate(request, 1) };
    this.reply = { generate: (request) => this.generate(request, 0) };
  }

  /** True once planning and steps may make no further call. */
  get exhausted(): boolean {
    return this.refusal(1) !== undefined;
  }

  private async generate(request: ModelRequest, reservedCalls: number): Promise<ModelResponse> {
    const refusal = this.refusal(reservedCalls);
    if (refusal) throw new TurnBudgetExceeded(refusal);
    return this.meter.generate(request.serverTools ? { ...request, serverTools: this.serverToolsLeft(request.serverTools) } : request);
  }

  /**
   * The server tools a call may still use: each tool's `max_uses` cut to what the turn has
   * left (the API enforces it within the call), and a tool with none left not offered at all.
   */
  private serverToolsLeft(tools: ServerToolSpec[]): ServerToolSpec[] {
    const left = {
      web_search: (this.limits.maxWebSearches ?? 3) - (this.meter.usage.webSearches ?? 0),
      web_fetch: (this.limits.maxWebFetches ?? 2) - (this.meter.usage.webFetches ?? 0),
    };
    return tools.flatMap((tool) => (left[tool.type] > 0 ? [{ ...tool, maxUses: Math.min(tool.maxUses, left[tool.type]) }] : []));
  }

  private refusal(reservedCalls: number): string | undefined {
    if (this.meter.calls >= this.limits.maxModelCalls - reservedCalls) {
      return `the turn reached its limit of ${this.limits.maxModelCalls} model calls`;
    }
    if (this.meter.promptTokens >= this.limits.maxInputTokens) {
      return `the turn reached its limit of ${this.limits.maxInputTokens} input tokens`;
    }
    return undefined;
  }
}
