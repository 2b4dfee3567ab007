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

/** Which requests a route answers. */
export type RequestMatch = (request: RecordedAnthropicRequest) => boolean;

/** The planner's first round (it offers create_plan; no replanning request). */
export const plannerRequest: RequestMatch = (request) => request.toolNames().includes('create_plan') && !request.lastUserText().includes('<replanning>');

/** A replanning round. */
const replannerRequest: RequestMatch = (request) => request.toolNames().includes('create_plan') && request.lastUserText().includes('<replanning>');

/** The composer writing the reply. */
export const composerRequest: RequestMatch = (request) => request.systemText().includes('<composing>');

/** A sub-agent working on the step whose task contains `words` (every call of its tool loop). */
export const stepRequest =
  (words: string): RequestMatch =>
  (request) =>
    !request.toolNames().includes('create_plan') && /<task>/.test(request.lastUserText()) && request.lastUserText().includes(words);

/**
 * Scripted answers by who asks, for plans whose steps run at once: the order in which their
 * requests reach the fake is not fixed, so each route answers the requests it matches from its
 * own queue, in order (the first route that matches takes a request). Give `answer` to the fake
 * as its fallback (`fake.setFallback(routes.answer)`). A request no route matches, or one whose
 * route has run dry, gets a 500 naming it, so a test that forgot a call fails loudly; `unused()`
 * names the answers left over.
 */
export class RoutedScript {
  private readonly routes: Array<{ name: string; when: RequestMatch; answers: ScriptedAnthropicResponse[] }>;

  constructor(routes: Array<[name: string, when: RequestMatch, answers: ScriptedAnthropicResponse[]]>) {
    this.routes = routes.map(([name, when, answers]) => ({ name, when, answers: [...answers] }));
  }

  readonly answer = (request: RecordedAnthropicRequest): ScriptedAnthropicResponse => {
    const route = this.routes.find((candidate) => candidate.when(request));
    const next = route?.answers.shift();
    if (next !== undefined) return next;
    const why = route ? `route "${route.name}" has no answer left` : 'no route matches it';
    return { error: { status: 500, type: 'api_error', message: `RoutedScript: request #${request.number} unanswered: ${why}` } };
  };

  /** The routes with answers left over ("name ×2"), for asserting every scripted answer was used. */
  unused(): string[] {
    return this.routes.filter((route) => route.answers.length > 0).map((route) => `${route.name} ×${route.answers.length}`);
  }
}
