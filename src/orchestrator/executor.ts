import type { AgentRegistry } from '../agents/agent-registry.js';
import type { OrchestratorContext } from '../context/orchestrator-context.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import { blameOf, describeError, TimeoutError } from '../shared/errors.js';
import type { PlannedStep } from './plan-schema.js';
import { logPlanEvent, logStepEvent } from './plan-events.js';
import { completedOutputs, type ExecutionPlan, type PlanStep, type StepResult } from './plan-state.js';
import type { PlanStore, PlanTotals } from './plan-store.js';
import type { PlanningOutcome, PlanningRequest } from './planner.js';
import { replanningRequest } from './prompts/planner-prompt.js';
import { runStep, type StepRunnerDependencies } from './step-runner.js';
import { noopTracing, type Tracing } from '../observability/tracing.js';

/** The limits the executor enforces (C-2 … C-5). */
export interface ExecutionLimits {
  stepTimeoutMs: number;
  stepMaxRetries: number;
  maxReplans: number;
  maxPlanSteps: number;
}

/** What executing a plan needs. */
export interface ExecutorDependencies {
  registry: AgentRegistry;
  stepRunner: StepRunnerDependencies;
  store: PlanStore;
  clock: Clock;
  logger: Logger;
  limits: ExecutionLimits;
  /** A replanning round (the planner with the plan's state appended). */
  replan: (request: Omit<PlanningRequest, 'signal' | 'turnSections'>) => Promise<PlanningOutcome>;
  totals: () => PlanTotals;
  /** A span per step attempt; absent: none. */
  tracing?: Tracing;
}

/** How execution ended. */
export interface ExecutionOutcome {
  plan: ExecutionPlan;
  /** The question to ask, when a step needs the user to clarify. */
  question?: string;
  /** The replanner's plain-text answer, when it chose to stop. */
  replannerReply?: string;
  /** Why execution stopped early, for the composer. */
  note?: string;
}

/**
 * Runs the plan's steps one at a time, in order (FR-1), each with earlier outputs
 * (FR-5). A failed step is retried afresh (C-4); a step that still fails, comes back
 * empty with later steps waiting, or asks for it, triggers a replan (FR-2) within the
 * replan and step limits (C-2, C-3). Completed steps are kept, never redone. Each step
 * has its own timeout (C-5) inside the plan's (C-1); timeouts abort the work in flight.
 */
export async function executePlan(
  plan: ExecutionPlan,
  context: OrchestratorContext,
  replyLanguage: string,
  signal: AbortSignal,
  deps: ExecutorDependencies,
): Promise<ExecutionOutcome> {
  let stepsUsed = plan.steps.length;
  for (;;) {
    const step = plan.steps.find((candidate) => candidate.status === 'pending');
    if (!step) {
      plan.status = 'completed';
      return { plan };
    }
    if (signal.aborted) return timedOut(plan, deps);

    const result = await runWithRetries(plan, step, context, replyLanguage, signal, deps);
    if (signal.aborted && !result.success) {
      plan.errors.push({ stepId: step.id, error: result.error ?? 'timed out' });
      return timedOut(plan, deps);
    }

    let replanReason: string | undefined;
    if (result.success) {
      const output = result.output!;
      if (output.needsClarification && output.question) {
        plan.status = 'needs_clarification';
        await skipPending(plan, deps);
        return { plan, question: output.question };
      }
      // A later step needs this one unless the planner said it depends only on other steps.
      const laterNeedIt = plan.steps.some(
        (candidate) => candidate.status === 'pending' && (candidate.dependsOn.length === 0 || candidate.dependsOn.includes(step.id)),
      );
      if (output.needsReplan) replanReason = `step ${step.id} reported the plan cannot work: ${output.replanReason ?? 'no reason given'}`;
      else if (output.isEmpty && laterNeedIt) replanReason = `step ${step.id} found nothing, and later steps needed its result`;
    } else {
      plan.errors.push({ stepId: step.id, error: result.error ?? 'failed' });
      const stop = stopsThePlan(result);
      if (stop) {
        deps.logger.info({ planId: plan.id, stepId: step.id, errorKind: result.errorKind }, 'step failure ends the plan without a replan');
        plan.status = 'failed';
        await skipPending(plan, deps);
        return { plan, note: stop };
      }
      replanReason = `step ${step.id} failed after ${step.retryCount + 1} attempt(s): ${result.error ?? 'unknown error'}`;
    }
    if (!replanReason) continue;

    const replansUsed = plan.version - 1;
    if (replansUsed >= deps.limits.maxReplans || stepsUsed >= deps.limits.maxPlanSteps) {
      const limit = replansUsed >= deps.limits.maxReplans ? `the replan limit (${deps.limits.maxReplans})` : `the step limit (${deps.limits.maxPlanSteps})`;
      deps.logger.info({ planId: plan.id, limit }, 'replan needed but not allowed');
      if (!result.success) {
        plan.status = 'failed';
        await skipPending(plan, deps);
        return { plan, note: `Stopped: ${limit} was reached.` };
      }
      continue; // an empty result with nothing more allowed: carry on with the plan as it is
    }
    const revised = await replan(plan, context, replanReason, deps, deps.limits.maxPlanSteps - stepsUsed, signal);
    if (revised.kind === 'stop') return revised.outcome;
    stepsUsed += revised.added;
  }
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
        previousOutputs: completedOutputs(plan),
        previousAttempt,
        writeReply: plan.steps.length === 1,
        signal: stepSignal,
        attachments: (step.attachments ?? []).flatMap((id) => context.message.media?.filter((attachment) => attachment.id === id) ?? []),
        untrustedTextSeen: untrustedTextSeen(plan, deps.registry),
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
 * turn's model budget is used up (another call would be refused), or the model sent the
 * same invalid input twice (it is stuck; more attempts only cost calls). Returns the note
 * the composer gets, or undefined for an ordinary failure.
 */
function stopsThePlan(result: StepResult): string | undefined {
  if (result.errorKind === 'budget') return `Stopped early: ${result.error ?? 'the model budget for this message was used up'}. Say what was done and that the rest was not.`;
  if (result.errorKind === 'invalid_input') return 'Stopped: a step could not be carried out. Say what was done and that the rest was not.';
  return undefined;
}

/** Phoenix retry (seed 002): what went wrong, in a few lines, instead of the transcript. */
function summarizeAttempt(attempt: number, result: StepResult): string {
  const calls = result.toolCalls.map((call) => `${call.name}(${call.interrupted ? 'interrupted: it may have taken effect' : call.isError ? 'error' : 'ok'})`).join(', ') || 'none';
  return `Attempt ${attempt} failed: ${result.error ?? 'unknown error'}\nTool calls made: ${calls}. Changes they made are real: check before repeating them.`;
}

async function replan(
  plan: ExecutionPlan,
  context: OrchestratorContext,
  reason: string,
  deps: ExecutorDependencies,
  stepsLeft: number,
  signal: AbortSignal,
): Promise<{ kind: 'continue'; added: number } | { kind: 'stop'; outcome: ExecutionOutcome }> {
  plan.status = 'replanning';
  const request = replanningRequest({
    reason,
    goal: plan.goal,
    completed: plan.steps.flatMap((step) => (step.status === 'completed' ? [{ stepId: step.id, agent: step.agent, task: step.task, summary: step.result?.output?.summary ?? '' }] : [])),
    failed: plan.steps.flatMap((step) => (step.status === 'failed' ? [{ stepId: step.id, agent: step.agent, task: step.task, error: step.result?.error ?? 'failed' }] : [])),
    remaining: plan.steps.flatMap((step) => (step.status === 'pending' ? [{ stepId: step.id, agent: step.agent, task: step.task }] : [])),
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
  // The old plan's unrun steps are replaced by the revision.
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

/**
 * Adds a revision's steps after the kept ones, with fresh ids (seed 000 mergeSteps); a
 * step repeating a completed one (same agent and task) is dropped rather than redone.
 */
export function mergeSteps(plan: ExecutionPlan, revision: PlannedStep[]): number {
  const renamed = new Map<string, string>();
  let added = 0;
  for (const planned of revision) {
    const repeated = plan.steps.find((step) => step.status === 'completed' && step.agent === planned.agent && step.task.trim() === planned.task.trim());
    if (repeated) {
      // Later steps that depend on the dropped repeat get the completed step's result.
      renamed.set(planned.id, repeated.id);
      continue;
    }
    let id = `${planned.id}_v${plan.version}`;
    while (plan.steps.some((step) => step.id === id)) id = `${id}_`;
    renamed.set(planned.id, id);
    plan.steps.push({
      id,
      agent: planned.agent,
      task: planned.task,
      dependsOn: (planned.dependsOn ?? []).map((dependency) => renamed.get(dependency) ?? dependency),
      ...(planned.attachments && planned.attachments.length > 0 ? { attachments: planned.attachments } : {}),
      status: 'pending',
      retryCount: 0,
      version: plan.version,
    });
    added += 1;
  }
  return added;
}

/** Whether a completed step's output carries outside text (mail) that later prompts will show. */
function untrustedTextSeen(plan: ExecutionPlan, registry: AgentRegistry): boolean {
  return completedOutputs(plan).some((previous) => registry.get(previous.agent)?.untrustedOutput === true);
}

function totalsFields(totals: PlanTotals): Record<string, number> {
  return { modelCalls: totals.modelCalls, inputTokens: totals.usage.inputTokens, outputTokens: totals.usage.outputTokens };
}

async function skipPending(plan: ExecutionPlan, deps: ExecutorDependencies): Promise<void> {
  for (const step of plan.steps) {
    if (step.status !== 'pending') continue;
    step.status = 'skipped';
    await deps.store.stepSkipped(plan.id, step, plan.version, deps.clock.now());
    logStepEvent(deps.logger, 'step_skipped', plan.id, step);
  }
}

async function timedOut(plan: ExecutionPlan, deps: ExecutorDependencies): Promise<ExecutionOutcome> {
  plan.status = 'timed_out';
  await skipPending(plan, deps);
  return { plan, note: 'Time ran out before everything was done.' };
}

/** An AbortSignal that fires after `milliseconds` with a TimeoutError saying why. */
export function timeoutSignal(milliseconds: number, message: string): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new TimeoutError(message)), milliseconds);
  timer.unref?.();
  controller.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  return controller.signal;
}
