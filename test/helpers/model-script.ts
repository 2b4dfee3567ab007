import type { RecordedAnthropicRequest, ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';

/** The planner's answer: one step for `agent`. */
export function singleStepPlan(agent: string, task: string, goal = task): ScriptedAnthropicResponse {
  return { toolCalls: [{ name: 'create_plan', input: { analysis: `A request for ${agent}`, goal, steps: [{ id: 'step_1', agent, task }] } }] };
}

/**
 * Scripted model answers that check the request they answer. A failing expectation inside
 * one reaches the test only as a 500 from the fake; `checked` keeps the real assertion so
 * the test can rethrow it (`rethrow()` after the reply arrived).
 */
export class CheckedScript {
  private readonly failures: unknown[] = [];

  checked(script: (request: RecordedAnthropicRequest) => ScriptedAnthropicResponse): ScriptedAnthropicResponse {
    return (request) => {
      try {
        return script(request);
      } catch (error) {
        this.failures.push(error);
        throw error;
      }
    };
  }

  /** Throws the first assertion a script failed, if any (and forgets them all). */
  rethrow(): void {
    const [failure] = this.failures.splice(0);
    if (failure) throw failure;
  }
}

/** The tool results in the request's last message, as the model sees them. */
export function lastToolResults(request: RecordedAnthropicRequest): Array<{ content: string; isError: boolean }> {
  const messages = request.body.messages ?? [];
  const last = messages[messages.length - 1];
  if (!last || !Array.isArray(last.content)) return [];
  return last.content.flatMap((block) => {
    if (block.type !== 'tool_result') return [];
    const content = typeof block.content === 'string' ? block.content : (block.content ?? []).map((part) => ('text' in part ? part.text : '')).join('');
    return [{ content, isError: block.is_error === true }];
  });
}
