import type { OrchestratorContext } from '../context/orchestrator-context.js';
import { TimeoutError } from '../shared/errors.js';
import { logStepEvent } from './plan-events.js';
import { dependentsOf } from './plan-graph.js';
import { askingSteps } from './plan-questions.js';
import { outputsFor, type ExecutionPlan, type PlanStep, type StepResult } from './plan-state.js';
import { readySteps, skipDependents, skipPending, timedOut, untrustedTextSeen } from './plan-steps.js';
import type { ExecutorDependencies, ExecutionOutcome } from './executor-types.js';
import { replan } from './replan.js';
import { stepReply } from './reply-parts.js';
import { runStep } from './step-runner.js';
import { noopTracing } from '../observability/tracing.js';

export type {  ExecutionOutcome, ExecutorDependencies } from './executor-types.js';

/** Steps one turn runs at once when PLAN_PARALLEL_STEPS is not set. */
const DEFAULT_PARALLEL_STEPS = 3;

/** What the steps that finished since the plan (or its last revision) started call for. */
interface Wave {
  /** Why a replan is needed: a failed step, an empty result its dependents needed, a step saying so. */
  replanReasons: string[];
  /** One of them is a failed step (if no replan is allowed, the plan failed). */
  failed: boolean;
  /** A step asked the user something. */
  asked: boolean;
  /** The turn's model budget is spent: no step may start (the composer's note). */
  budget?: string;
  /** A step failed in a way no replan would fix (the same invalid input twice; the composer's note). */
  stuck?: string;
}

/**
 * Runs the plan's steps (FR-1), up to `parallelSteps` at once: a step starts as soon as the
 * steps it depends on have completed, and is given their outputs (FR-5). Each step has its
 * own retries (C-4), timeout (C-5) and verification, inside the plan's timeout (C-1);
 * timeouts abort the work in flight. A step that fails after its retries takes only the steps
 * that need it (directly or not): the others still run. Once nothing more can start, one
 * replan (FR-2) revises the failed part, or the part whose step came back empty with steps
 * waiting for it or said the plan cannot work, within the replan and step limits (C-2, C-3).
 * A step that asks the user something holds back only its dependents too; questions and held
 * actions are asked once, in plan order, when the rest is done. When the turn's model budget
 * is spent no step starts, and the running ones finish or fail. Completed steps are kept,
 * never redone.
 */
export async function executePlan(
  plan: ExecutionPlan,
  context: OrchestratorContext,
  replyLanguage: string,
  signal: AbortSignal,
  deps: ExecutorDependencies,
): Promise<ExecutionOutcome> {
  const parallel = Math.max(1, deps.limits.parallelSteps ?? DEFAULT_PARALLEL_STEPS);
  let stepsUsed = plan.steps.length;
  let wave: Wave = { replanReasons: [], failed: false, asked: false };
  const running = new Map<PlanStep, Promise<PlanStep>>();
  const replanLimit = (): string | undefined =>
    plan.version - 1 >= deps.limits.maxReplans ? `the replan limit (${deps.limits.maxReplans})` : stepsUsed >= deps.limits.maxPlanSteps ? `the step limit (${deps.limits.maxPlanSteps})` : undefined;

  /** Takes in one step's final result (after its retries): what it means for the rest of the plan. */
  const settle = async (step: PlanStep, result: StepResult): Promise<void> => {
    if (result.success) {
      const output = result.output!;
      if (output.needsClarification && output.question) {
        wave.asked = true;
        await skipDependents(plan, step, deps);
        return;
      }
      const waiting = dependentsOf(plan.steps, step.id).some((candidate) => candidate.status === 'pending');
      const reason = output.needsReplan
        ? `step ${step.id} reported the plan cannot work: ${output.replanReason ?? 'no reason given'}`
        : output.isEmpty && waiting
          ? `step ${step.id} found nothing, and later steps needed its result`
          : undefined;
      if (!reason) return;
      const limit = replanLimit();
      if (limit) {
        // Nothing more is allowed: the plan carries on as it is.
        deps.logger.info({ planId: plan.id, stepId: step.id, limit }, 'replan needed but not allowed');
        return;
      }
      wave.replanReasons.push(reason);
      await skipDependents(plan, step, deps);
      return;
    }
    plan.errors.push({ stepId: step.id, error: result.error ?? 'failed' });
    await skipDependents(plan, step, deps);
    if (signal.aborted) return; // the plan's time is up: told as such once the others stop
    const stop = stopsThePlan(result);
    if (stop) {
      deps.logger.info({ planId: plan.id, stepId: step.id, errorKind: result.errorKind }, 'step failure ends its branch without a replan');
      if (result.errorKind === 'budget') wave.budget ??= stop;
      else wave.stuck ??= stop;
      return;
    }
    wave.failed = true;
    wave.replanReasons.push(`step ${step.id} failed after ${step.retryCount + 1} attempt(s): ${result.error ?? 'unknown error'}`);
  };

  for (;;) {
    if (!signal.aborted && !wave.budget) {
      for (const step of readySteps(plan)) {
        if (running.size >= parallel) break;
        if (deps.budgetExhausted?.()) {
          wave.budget = stopsThePlan({ errorKind: 'budget', error: 'the model budget for this message was used up' });
          break;
        }
        const task = runWithRetries(plan, step, context, replyLanguage, signal, deps).then(async (result) => {
          await settle(step, result);
          return step;
        });
        // Raced below; a bug in one step must not become an unhandled rejection while another is awaited.
        task.catch(() => undefined);
        running.set(step, task);
      }
    }
    if (running.size > 0) {
      running.delete(await Promise.race(running.values()));
      continue;
    }

    // Nothing running and nothing more can start.
    if (signal.aborted) return timedOut(plan, deps);
    if (wave.asked) {
      plan.status = 'needs_clarification';
      await skipPending(plan, deps);
      return { plan, question: askedQuestions(plan) };
    }
    if (wave.budget) {
      plan.status = 'failed';
      await skipPending(plan, deps);
      return { plan, note: wave.budget };
    }
    if (wave.replanReasons.length > 0) {
      const limit = replanLimit();
      if (!limit) {
        const revised = await replan(plan, context, wave.replanReasons.join('; '), deps, deps.limits.maxPlanSteps - stepsUsed, signal);
        if (revised.kind === 'stop') return revised.outcome;
        stepsUsed += revised.added;
        wave = { replanReasons: [], failed: false, asked: false };
        continue;
      }
      if (wave.failed) {
        deps.logger.info({ planId: plan.id, limit }, 'replan needed but not allowed');
        plan.status = 'failed';
        await skipPending(plan, deps);
        return { plan, note: `Stopped: ${limit} was reached.` };
      }
    }
    if (wave.stuck) {
      plan.status = 'failed';
      await skipPending(plan, deps);
      return { plan, note: wave.stuck };
    }
    // Steps that could never start (their dependencies will not complete) are told as not done.
    await skipPending(plan, deps);
    plan.status = 'completed';
    return { plan };
  }
}

/** The questions the asking steps left, in plan order (finish-plan.ts words what is kept). */
function askedQuestions(plan: ExecutionPlan): string {
  return askingSteps(plan)
    .map((step) => step.result?.output?.question ?? '')
    .filter(Boolean)
    .join('\n');
}

async function runWithRetries(
  plan: ExecutionPlan,
  step: PlanStep,
  context: OrchestratorContext,
  replyLanguage: string,
  signal: AbortSignal,
  deps: ExecutorDependencies,
): Promise<StepResult> {
  const agent = deps.registry.get(step.agent);
  // What the step depends on has completed and does not change while it runs or retries.
  const previousOutputs = outputsFor(plan, step);
  let previousAttempt: string | undefined;
  let result: StepResult | undefined;
  for (let attempt = 0; attempt <= deps.limits.stepMaxRetries; attempt += 1) {
    step.retryCount = attempt;
    step.status = 'running';
    await deps.store.stepStarted(plan.id, step, plan.version, deps.clock.now());
    logStepEvent(deps.logger, 'step_started', plan.id, step);
    if (!agent) {
      // Validation keeps unknown agents out of plans; this guards the registry changing under us.
      result = { success: false, error: `unknown agent "${step.agent}"`, errorKind: 'model', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, modelCalls: 0, durationMs: 0 };
    } else {
      const stepSignal = AbortSignal.any([signal, timeoutSignal(deps.limits.stepTimeoutMs, `step ${step.id} took longer than ${deps.limits.stepTimeoutMs} ms`)]);
      const attemptInput = {
        step,
        agent,
        user: context.user,
        replyLanguage,
        previousOutputs,
        previousAttempt,
        reply: stepReply(plan),
        signal: stepSignal,
        attachments: (step.attachments ?? []).flatMap((id) => context.message.media?.filter((attachment) => attachment.id === id) ?? []),
        untrustedTextSeen: untrustedTextSeen(plan, deps.registry, previousOutputs),
      };
      result = await (deps.tracing ?? noopTracing).span('herald.step', { attributes: { 'herald.step.id': step.id, 'gen_ai.agent.name': agent.name, 'herald.step.attempt': attempt } }, async (span) => {
        const stepResult = await runStep(attemptInput, deps.stepRunner);
        span.setAttributes({ 'herald.step.success': stepResult.success, 'herald.step.error_kind': stepResult.errorKind, 'herald.step.model_calls': stepResult.modelCalls });
        return stepResult;
      });
    }
    step.result = result;
    step.status = result.success ? 'completed' : 'failed';
    await deps.store.stepFinished(plan.id, step, result, deps.clock.now());
    logStepEvent(deps.logger, result.success ? 'step_completed' : 'step_failed', plan.id, step, result);
    if (result.success || signal.aborted || !agent || stopsThePlan(result)) return result;
    if (attempt < deps.limits.stepMaxRetries) {
      previousAttempt = summarizeAttempt(attempt + 1, result);
      logStepEvent(deps.logger, 'step_retrying', plan.id, step);
    }
  }
  return result!;
}

/**
 * Failures that neither a retry nor a replan would fix, so none is spent on them: the
 * turn's model budget is used up (another call would be refused: no step starts any more),
 * or the model sent the same invalid input twice (it is stuck; more attempts only cost
 * calls: its branch ends). Returns the note the composer gets, or undefined for an
 * ordinary failure.
 */
function stopsThePlan(result: Pick<StepResult, 'errorKind' | 'error'>): string | undefined {
  if (result.errorKind === 'budget') return `Stopped early: ${result.error ?? 'the model budget for this message was used up'}. Say what was done and that the rest was not.`;
  if (result.errorKind === 'invalid_input') return 'Stopped: a step could not be carried out. Say what was done and that the rest was not.';
  return undefined;
}

/** Phoenix retry (seed 002): what went wrong, in a few lines, instead of the transcript. */
function summarizeAttempt(attempt: number, result: StepResult): string {
  const calls = result.toolCalls.map((call) => `${call.name}(${call.interrupted ? 'interrupted: it may have taken effect' : call.isError ? 'error' : 'ok'})`).join(', ') || 'none';
  return `Attempt ${attempt} failed: ${result.error ?? 'unknown error'}\nTool calls made: ${calls}. Changes they made are real: check before repeating them.`;
}

/** An AbortSignal that fires after `milliseconds` with a TimeoutError saying why. */
export function timeoutSignal(milliseconds: number, message: string): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new TimeoutError(message)), milliseconds);
  timer.unref?.();
  controller.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  return controller.signal;
}
