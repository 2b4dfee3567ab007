import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import { describeError, HeraldError } from '../shared/errors.js';
import type { ConfirmationRequest, ToolDefinition } from '../tools/tool.js';

/** Finds the tool a held action names (an agent's tool, or one of Herald's own "system" actions). */
export type ToolResolver = (agent: string, tool: string) => ToolDefinition | undefined;

/** A call Herald runs without a model: held for a YES, or picked from a "Which one?". */
export interface ActionCall {
  agent: string;
  tool: string;
  input: unknown;
}

/** Who it runs for. */
export interface ActionTurn {
  userId: string;
  timezone: string;
  /** The language of Herald's own words (src/texts). */
  language: string;
}

/** What running one action gave: it worked, or why not (and whether its item is gone). */
export type ActionResult = { ok: true; output: unknown } | { ok: false; error: string; gone?: boolean };

/**
 * Runs an agent's tool outside any model loop, with its exact stored arguments: a held
 * action after the user's YES (`confirmed`), or a choice's call on the picked candidate.
 * Failures are reported, never thrown: one of Herald's own errors (a calendar that could
 * not be reached) is told as it is, anything else as a plain failure.
 */
export class ActionRunner {
  constructor(
    private readonly resolveTool: ToolResolver,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Runs one action; `confirmed`: the user said YES to this exact call. */
  async run(action: ActionCall, turn: ActionTurn, confirmed: boolean): Promise<ActionResult> {
    const tool = this.resolveTool(action.agent, action.tool);
    if (!tool) return { ok: false, error: `that action is no longer available (${action.tool})` };
    const parsed = tool.inputSchema.safeParse(action.input);
    if (!parsed.success) return { ok: false, error: 'the saved request is no longer valid' };
    try {
      const result = await tool.run(parsed.data, { userId: turn.userId, timezone: turn.timezone, language: turn.language, clock: this.clock, logger: this.logger, confirmed });
      return result.isError ? { ok: false, error: result.error, ...(result.gone ? { gone: true } : {}) } : { ok: true, output: result.output };
    } catch (error) {
      this.logger.warn({ tool: action.tool, error: describeError(error) }, 'an action Herald ran without a model threw');
      // Herald's own errors are worded to be read (a calendar that could not be reached); anything else is a bug.
      return { ok: false, error: error instanceof HeraldError ? error.message : 'something went wrong while doing it' };
    }
  }

  /**
   * Whether the call must wait for the user's YES (a delete does, whatever led to it), and
   * what to ask; undefined when it can run now. A failed check runs nothing: it asks.
   */
  async confirmationFor(action: ActionCall, turn: ActionTurn): Promise<(ConfirmationRequest & { input: unknown }) | undefined> {
    const tool = this.resolveTool(action.agent, action.tool);
    if (!tool?.confirmation) return undefined;
    const parsed = tool.inputSchema.safeParse(action.input);
    if (!parsed.success) return undefined;
    const request = await tool.confirmation(parsed.data, { userId: turn.userId, timezone: turn.timezone, language: turn.language, clock: this.clock, logger: this.logger });
    return request ? { ...request, input: request.input ?? parsed.data } : undefined;
  }
}
