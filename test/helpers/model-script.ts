import type { RecordedAnthropicRequest, ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { rethrowFakeFailures } from '../fakes/fake-failures.js';

/** The planner's answer: one step for `agent`. */
export function singleStepPlan(agent: string, task: string, goal = task): ScriptedAnthropicResponse {
  return { toolCalls: [{ name: 'create_plan', input: { analysis: `A request for ${agent}`, goal, steps: [{ id: 'step_1', agent, task }] } }] };
}

/**
 * Kept only for the connect tests (test/e2e/calendar-connect.test.ts, email-connect.test.ts)
 * while they are being reworked elsewhere: the fakes now record what a script throws
 * themselves (test/fakes/fake-failures.ts), so `checked` passes a script through unchanged and
 * `rethrow()` rethrows what the fakes recorded. New tests enqueue plain scripts and call
 * `harness.anthropic.rethrowScriptErrors()` where they want a failure at once.
 */
export class CheckedScript {
  checked(script: (request: RecordedAnthropicRequest) => ScriptedAnthropicResponse): ScriptedAnthropicResponse {
    return script;
  }

  /** Throws the first error a fake's script threw, if any (and forgets them all). */
  rethrow(): void {
    rethrowFakeFailures();
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
