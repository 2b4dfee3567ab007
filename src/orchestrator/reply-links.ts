import type { ExecutionPlan } from './plan-state.js';

/**
 * Links the user must receive: a successful tool call whose result carries `link` (a
 * page from render_page, later a connect link) made something only that URL opens. The
 * reply is written by a model, which may drop or garble it; the true URL comes from the
 * tool's result, never from the model's words.
 */
function toolLinks(plan: ExecutionPlan): string[] {
  const links: string[] = [];
  for (const step of plan.steps) {
    if (step.status !== 'completed') continue;
    for (const call of step.result?.toolCalls ?? []) {
      const link = !call.isError && typeof call.result === 'object' && call.result !== null ? (call.result as { link?: unknown }).link : undefined;
      if (typeof link === 'string' && !links.includes(link)) links.push(link);
    }
  }
  return links;
}

/** The reply with every tool link it lacks appended on its own line. */
export function withToolLinks(reply: string, plan: ExecutionPlan): string {
  const missing = toolLinks(plan).filter((link) => !reply.includes(link));
  return missing.length === 0 ? reply : `${reply.trimEnd()}\n${missing.join('\n')}`;
}
