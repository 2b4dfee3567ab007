import type { Logger } from '../logging/logger.js';
import type { ExecutionPlan, PlanStep, StepResult } from './plan-state.js';

/** Plan transitions, as structured events (NFR-2). */
export type PlanEvent = 'plan_created' | 'plan_replanned' | 'plan_completed' | 'plan_failed' | 'plan_timeout' | 'plan_needs_clarification' | 'plan_answered_directly' | 'plan_handed_off';

/** Step transitions. */
export type StepEvent = 'step_started' | 'step_completed' | 'step_failed' | 'step_retrying' | 'step_skipped';

/**
 * Logs a plan transition with its ids (NFR-3). Never the user's words: tasks and
 * outputs stay out of info-level logs; they are in the PlanRun/StepRun rows.
 */
export function logPlanEvent(logger: Logger, event: PlanEvent, plan: Pick<ExecutionPlan, 'id' | 'version' | 'status' | 'steps'> | { id: string }, extra: Record<string, unknown> = {}): void {
  const details =
    'steps' in plan
      ? { planId: plan.id, version: plan.version, status: plan.status, steps: plan.steps.length }
      : // Before a plan exists (answered directly, no valid plan): the event says the status.
        { planId: plan.id, status: statusOf[event] };
  logger.info({ event, ...details, ...extra }, event);
}

/** The status each plan event stands for, for events logged before a plan exists. */
const statusOf: Record<PlanEvent, string> = {
  plan_created: 'executing',
  plan_replanned: 'executing',
  plan_completed: 'completed',
  plan_failed: 'failed',
  plan_timeout: 'timed_out',
  plan_needs_clarification: 'needs_clarification',
  plan_answered_directly: 'answered_directly',
  plan_handed_off: 'planning',
};

/** Logs a step transition with plan id, step id, agent, status, retry count, duration and tokens. */
export function logStepEvent(logger: Logger, event: StepEvent, planId: string, step: PlanStep, result?: StepResult): void {
  logger.info(
    {
      event,
      planId,
      stepId: step.id,
      agent: step.agent,
      status: step.status,
      retryCount: step.retryCount,
      ...(result
        ? {
            durationMs: result.durationMs,
            modelCalls: result.modelCalls,
            inputTokens: result.usage.inputTokens,
            outputTokens: result.usage.outputTokens,
            toolCalls: result.toolCalls.length,
            ...(result.errorKind ? { errorKind: result.errorKind } : {}),
          }
        : {}),
    },
    event,
  );
  if (result?.error) logger.debug({ planId, stepId: step.id, error: result.error }, 'step error detail');
}
