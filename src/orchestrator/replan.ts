import type { OrchestratorContext } from '../context/orchestrator-context.js';
import { blameOf, describeError } from '../shared/errors.js';
import type { ExecutionOutcome, ExecutorDependencies } from './executor-types.js';
import { logPlanEvent } from './plan-events.js';
import type { PlannedStep } from './plan-schema.js';
import type { ExecutionPlan } from './plan-state.js';
import type { PlanTotals } from './plan-store.js';
import type { PlanningOutcome } from './planner.js';
import { replanningRequest } from './prompts/planner-prompt.js';
import { skipPending, timedOut, untrustedTextSeen } from './plan-steps.js';

/** How a replanning round left the plan: new steps to run, or the outcome to finish with. */
export type Revision = { kind: 'continue'; added: number } | { kind: 'stop'; outcome: ExecutionOutcome };

/**
 * One replanning round (FR-2) about the part of the plan that went wrong: the replanner sees
 * every step that completed (kept, never redone), the steps of this version that failed and
 * the ones that did not run because they needed them, and plans only the latter again. Its
 * steps join the plan (see {@link mergeSteps}); a plain-text answer ends the plan with it.
 */
export async function replan(plan: ExecutionPlan, context: OrchestratorContext, reason: string, deps: ExecutorDependencies, stepsLeft: number, signal: AbortSignal): Promise<Revision> {
  plan.status = 'replanning';
  const current = plan.steps.filter((step) => step.version === plan.version);
  const request = replanningRequest({
    reason,
    goal: plan.goal,
    completed: plan.steps.flatMap((step) => (step.status === 'completed' ? [{ stepId: step.id, agent: step.agent, task: step.task, summary: step.result?.output?.summary ?? '' }] : [])),
    failed: current.flatMap((step) => (step.status === 'failed' ? [{ stepId: step.id, agent: step.agent, task: step.task, error: step.result?.error ?? 'failed' }] : [])),
    notRun: current.flatMap((step) => (step.status === 'skipped' || step.status === 'pending' ? [{ stepId: step.id, agent: step.agent, task: step.task }] : [])),
    stepsLeft,
  });
  let outcome: PlanningOutcome;
  try {
    outcome = await deps.replan({
      replanning: request,
      stepsAllowed: stepsLeft,
      knownStepIds: plan.steps.filter((step) => step.status === 'completed').map((step) => step.id),
      untrustedTextSeen: untrustedTextSeen(plan, deps.registry),
    });
  } catch (error) {
    // The replanning call failed or was cut off: the finished steps' results still stand (FR-3, NFR-5).
    if (signal.aborted) return { kind: 'stop', outcome: await timedOut(plan, deps) };
    const blame = blameOf(error);
    deps.logger.warn({ planId: plan.id, blame, error: describeError(error) }, 'replanning failed; keeping the results so far');
    plan.status = 'failed';
    await skipPending(plan, deps);
    logPlanEvent(deps.logger, 'plan_failed', plan, { reason: 'replan failed' });
    const note = blame === 'budget' ? `Stopped early: ${error instanceof Error ? error.message : String(error)}. Say what was done and that the rest was not.` : 'The request could not be completed.';
    return { kind: 'stop', outcome: { plan, note } };
  }
  if (signal.aborted) return { kind: 'stop', outcome: await timedOut(plan, deps) };
  // Steps of the old version still waiting (none, unless they could never run) are replaced by the revision.
  await skipPending(plan, deps);
  plan.version += 1;
  if (outcome.kind === 'direct') {
    // The replanner chose to stop: the plan failed if a step did, else it is complete.
    plan.status = plan.steps.some((step) => step.status === 'failed') ? 'failed' : 'completed';
    logPlanEvent(deps.logger, 'plan_replanned', plan, { reason: 'replanner answered directly', ...totalsFields(deps.totals()) });
    await deps.store.planUpdated(plan, 'executing', deps.totals());
    return { kind: 'stop', outcome: { plan, replannerReply: outcome.reply } };
  }
  if (outcome.kind === 'invalid') {
    plan.status = 'failed';
    logPlanEvent(deps.logger, 'plan_failed', plan, { reason: 'replan invalid' });
    return { kind: 'stop', outcome: { plan, note: 'The request could not be completed.' } };
  }
  const added = mergeSteps(plan, outcome.plan.steps);
  if (outcome.plan.responseHint) plan.responseHint = outcome.plan.responseHint;
  plan.status = 'executing';
  logPlanEvent(deps.logger, 'plan_replanned', plan, { added, ...totalsFields(deps.totals()) });
  await deps.store.planUpdated(plan, 'executing', deps.totals());
  return { kind: 'continue', added };
}

/** A step of a revision as merged: `dependsOn` may be left out (it then needs nothing). */
export type RevisionStep = Omit<PlannedStep, 'dependsOn'> & { dependsOn?: readonly string[] | undefined };

/**
 * Adds a revision's steps after the kept ones, with fresh ids (seed 000 mergeSteps); a
 * step repeating a completed one (same agent and task) is dropped rather than redone, and
 * the steps depending on it get the completed one's result. Dependencies may point forward
 * in the revision, so every id is renamed before any step is added.
 */
export function mergeSteps(plan: ExecutionPlan, revision: readonly RevisionStep[]): number {
  const renamed = new Map<string, string>();
  const taken = new Set(plan.steps.map((step) => step.id));
  const fresh: RevisionStep[] = [];
  for (const planned of revision) {
    const repeated = plan.steps.find((step) => step.status === 'completed' && step.agent === planned.agent && step.task.trim() === planned.task.trim());
    if (repeated) {
      renamed.set(planned.id, repeated.id);
      continue;
    }
    let id = `${planned.id}_v${plan.version}`;
    while (taken.has(id)) id = `${id}_`;
    taken.add(id);
    renamed.set(planned.id, id);
    fresh.push(planned);
  }
  for (const planned of fresh) {
    plan.steps.push({
      id: renamed.get(planned.id)!,
      agent: planned.agent,
      task: planned.task,
      dependsOn: (planned.dependsOn ?? []).map((dependency) => renamed.get(dependency) ?? dependency),
      ...(planned.attachments && planned.attachments.length > 0 ? { attachments: planned.attachments } : {}),
      status: 'pending',
      retryCount: 0,
      version: plan.version,
    });
  }
  return fresh.length;
}

function totalsFields(totals: PlanTotals): Record<string, number> {
  return { modelCalls: totals.modelCalls, inputTokens: totals.usage.inputTokens, outputTokens: totals.usage.outputTokens };
}
