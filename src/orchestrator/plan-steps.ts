import type { AgentRegistry } from '../agents/agent-registry.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import { dependentsOf } from './plan-graph.js';
import { logStepEvent } from './plan-events.js';
import { completedOutputs, type ExecutionPlan, type PlanStep } from './plan-state.js';
import type { PlanStore } from './plan-store.js';

/** What moving steps along needs: where transitions are recorded and logged. */
interface StepBookkeeping {
  store: PlanStore;
  clock: Clock;
  logger: Logger;
}

/** Pending steps whose dependencies have all completed, in plan order: the ones that may start now. */
export function readySteps(plan: ExecutionPlan): PlanStep[] {
  const completed = new Set(plan.steps.filter((step) => step.status === 'completed').map((step) => step.id));
  return plan.steps.filter((step) => step.status === 'pending' && step.dependsOn.every((id) => completed.has(id)));
}

/** Marks `steps` skipped (the pending ones), recording and logging each. */
async function skip(plan: ExecutionPlan, steps: PlanStep[], deps: StepBookkeeping): Promise<void> {
  for (const step of steps) {
    if (step.status !== 'pending') continue;
    step.status = 'skipped';
    await deps.store.stepSkipped(plan.id, step, plan.version, deps.clock.now());
    logStepEvent(deps.logger, 'step_skipped', plan.id, step);
  }
}

/** Skips every step still pending. */
export function skipPending(plan: ExecutionPlan, deps: StepBookkeeping): Promise<void> {
  return skip(plan, plan.steps, deps);
}

/** Skips the pending steps that need `step`, directly or not: they cannot run without its result. */
export function skipDependents(plan: ExecutionPlan, step: PlanStep, deps: StepBookkeeping): Promise<void> {
  return skip(plan, dependentsOf(plan.steps, step.id), deps);
}

/** Ends the plan as timed out; what finished is kept. */
export async function timedOut(plan: ExecutionPlan, deps: StepBookkeeping): Promise<{ plan: ExecutionPlan; note: string }> {
  plan.status = 'timed_out';
  await skipPending(plan, deps);
  return { plan, note: 'Time ran out before everything was done.' };
}

/** Whether completed outputs (all of them, or those `step` is given) carry outside text (mail) that a prompt will show. */
export function untrustedTextSeen(plan: ExecutionPlan, registry: AgentRegistry, outputs = completedOutputs(plan)): boolean {
  return outputs.some((previous) => registry.get(previous.agent)?.untrustedOutput === true);
}
