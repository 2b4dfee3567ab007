import { stableJson } from '../shared/stable-json.js';
import { questionFor, type ConfirmationAsk, type PendingAction } from '../questions/pending-action.js';
import type { ExecutionPlan } from './plan-state.js';

/**
 * The actions a plan's tools held for the user's YES (docs/ARCHITECTURE.md "The orchestrator", step 6), in the order they
 * were asked for: from the final attempt of each completed step (a failed step's held
 * actions are not offered, since its outcome is unclear), the same call asked twice once.
 */
export function heldActions(plan: ExecutionPlan): ConfirmationAsk | undefined {
  const actions: PendingAction[] = [];
  const seen = new Set<string>();
  for (const step of plan.steps) {
    if (step.status !== 'completed') continue;
    for (const call of step.result?.toolCalls ?? []) {
      if (!call.pendingConfirmation) continue;
      const key = `${step.agent}:${call.name}:${stableJson(call.input)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      actions.push({ agent: step.agent, tool: call.name, input: call.input, question: call.pendingConfirmation.question, done: call.pendingConfirmation.done });
    }
  }
  return actions.length > 0 ? { actions, question: questionFor(actions) } : undefined;
}
