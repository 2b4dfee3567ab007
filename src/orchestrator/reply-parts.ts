import type { ExecutionPlan } from './plan-state.js';

/** The most independent steps whose own replies, told in plan order, are the answer. */
const MAX_PARTS = 3;

/** What a step is asked to write for the user: the whole reply, its part of it, or nothing. */
export type StepReply = 'whole' | 'part' | undefined;

/**
 * Which steps write the user's reply themselves, so that it needs no composer call (a whole
 * model call on the critical path): the only step of a one-step plan writes the whole answer;
 * each step of a first plan of two or three steps that need nothing from each other writes
 * its own part. Any other plan (steps feeding each other, a replanned or resumed one) is
 * composed from the steps' reports.
 */
export function stepReply(plan: Pick<ExecutionPlan, 'steps' | 'version'>): StepReply {
  if (plan.steps.length === 1) return 'whole';
  if (plan.version === 1 && plan.steps.length <= MAX_PARTS && plan.steps.every((step) => step.dependsOn.length === 0)) return 'part';
  return undefined;
}

/**
 * The reply when no model call is needed: every step finished and wrote its reply (the whole
 * one, or its part: the parts are joined in plan order, whichever finished first). Undefined
 * when the composer must run.
 */
export function replyWithoutComposing(plan: ExecutionPlan): string | undefined {
  if (!stepReply(plan) || !plan.steps.every((step) => step.status === 'completed')) return undefined;
  const replies = plan.steps.map((step) => step.result?.output?.reply?.trim());
  return replies.every((reply): reply is string => Boolean(reply)) ? replies.join('\n') : undefined;
}
