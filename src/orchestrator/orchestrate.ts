import type { AgentRegistry } from '../agents/agent-registry.js';
import type { OrchestratorContext } from '../context/orchestrator-context.js';
import type { Logger } from '../logging/logger.js';
import { CountingModel, type ModelUsageLine } from '../model/counting-model.js';
import { roundUsd } from '../model/model-cost.js';
import { TurnBudget } from '../model/turn-budget.js';
import type { ModelClient, TokenUsage } from '../model/model-client.js';
import type { ModelRoles } from '../model/model-roles.js';
import type { Clock } from '../shared/clock.js';
import { blameOf, describeError, TimeoutError, type ErrorBlame } from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { composeReply, replyWithoutComposing } from './composer.js';
import { heldActions } from './held-actions.js';
import { confirmationReply } from '../confirmations/confirmation-replies.js';
import type { ConfirmationAsk } from '../confirmations/pending-action.js';
import { executePlan, timeoutSignal, type ExecutionOutcome } from './executor.js';
import { apologyFor, fallbackReply, progressMessage } from './fallback-replies.js';
import { logPlanEvent } from './plan-events.js';
import type { ExecutionPlan } from './plan-state.js';
import { WriteBehindPlanStore, type PlanStore } from './plan-store.js';
import { planRound, type PlannerDependencies } from './planner.js';
import { routeByPatterns, routingHintsSection } from './pre-router.js';
import { withToolLinks } from './reply-links.js';
import { replyLanguage } from './reply-language.js';

/** The orchestrator's limits (DESIGN.md "Resolved constants"). */
export interface OrchestratorLimits {
  planTimeoutMs: number;
  stepTimeoutMs: number;
  stepMaxRetries: number;
  maxReplans: number;
  maxPlanSteps: number;
  progressAfterMs: number;
  replyMaxTokens: number;
  /** The planner's prompt budget (CTX-6); default 8000 tokens. */
  plannerPromptTokens?: number;
  /** Model calls one turn may make (TURN_MAX_MODEL_CALLS); default 12. */
  turnMaxModelCalls?: number;
  /** Prompt tokens one turn may send over all its calls (TURN_MAX_INPUT_TOKENS); default 100,000. */
  turnMaxInputTokens?: number;
}

/** What the orchestrator needs, all injected so tests drive it with fakes. */
export interface OrchestratorDependencies {
  model: ModelClient;
  models: ModelRoles;
  registry: AgentRegistry;
  store: PlanStore;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  limits: OrchestratorLimits;
}

/** Per-turn options. */
export interface OrchestrateOptions {
  /** Aborted when the process shuts down. */
  signal?: AbortSignal;
  /** Sends a progress message now ("on it"), while the plan keeps running. */
  onProgress?: (text: string) => Promise<void>;
}

/** The outcome of one turn: always a reply to send. */
export interface OrchestratorResult {
  reply: string;
  status: 'succeeded' | 'failed';
  failure?: { blame: ErrorBlame | 'partial'; message: string };
  planId: string;
  /** How the turn was answered. */
  path: 'direct' | 'plan' | 'clarification' | 'fallback';
  modelCalls: number;
  usage: TokenUsage;
  /** Calls, tokens and cost per model that answered (a fallback shows up as its own line). */
  usageByModel: ModelUsageLine[];
  /** What the turn's model calls cost, in USD, from the models' profiles. */
  costUsd: number;
  /** Milliseconds spent waiting for the model (benchmarks subtract it to see Herald's own time). */
  modelWaitMs: number;
  /** Actions held for the user's YES; the reply already asks about them. */
  confirmation?: ConfirmationAsk;
}

const PLANNER_MAX_ITERATIONS = 4;
const AGENT_MAX_ITERATIONS = 6;
const COMPOSE_TIMEOUT_MS = 15_000;

/**
 * Answers one turn (DESIGN.md "The orchestrator"): route and plan in one call — plain
 * text is the direct reply — then execute the steps with sub-agents, verify, replan
 * when needed, and compose one short reply. It never throws for an expected failure:
 * whatever happens, the user gets a reply that says what worked and what did not.
 */
export async function orchestrate(
  context: OrchestratorContext,
  deps: OrchestratorDependencies,
  options: OrchestrateOptions = {},
): Promise<OrchestratorResult> {
  const meter = new CountingModel(deps.model);
  // A model stuck in a loop cannot spend without end; the last call is kept for the reply.
  const budget = new TurnBudget(meter, {
    maxModelCalls: deps.limits.turnMaxModelCalls ?? 12,
    maxInputTokens: deps.limits.turnMaxInputTokens ?? 100_000,
  });
  const model = budget.work;
  const planId = deps.ids.next('plan');
  const logger = deps.logger.child({ turnId: context.turnId, userId: context.user.id, planId });
  const planTimeout = timeoutSignal(deps.limits.planTimeoutMs, `the plan took longer than ${deps.limits.planTimeoutMs} ms`);
  const signal = options.signal ? AbortSignal.any([options.signal, planTimeout]) : planTimeout;
  const language = replyLanguage(context.user.language, context.message.text);
  const totals = () => ({ modelCalls: meter.calls, usage: meter.usage });
  const result = (
    reply: string,
    status: OrchestratorResult['status'],
    path: OrchestratorResult['path'],
    failure?: OrchestratorResult['failure'],
    confirmation?: ConfirmationAsk,
  ): OrchestratorResult => ({
    reply,
    status,
    path,
    planId,
    ...(confirmation ? { confirmation } : {}),
    modelCalls: meter.calls,
    usage: meter.usage,
    usageByModel: meter.byModel(),
    costUsd: meter.costUsd,
    modelWaitMs: meter.waitingMs,
    ...(failure ? { failure } : {}),
  });

  // Plan records are written behind the plan (in order, off the critical path) and
  // flushed before the turn ends.
  const store = new WriteBehindPlanStore(deps.store, (error) => logger.warn({ error: describeError(error) }, 'could not record a plan transition'));
  await store.planStarted({ planId, turnId: context.turnId, userId: context.user.id, startedAt: deps.clock.now() });
  const progress = startProgressTimer(options.onProgress, deps.limits.progressAfterMs, context, logger);
  const plannerDeps: PlannerDependencies = {
    model,
    plannerModel: deps.models.planner,
    registry: deps.registry,
    clock: deps.clock,
    logger,
    maxPlanSteps: deps.limits.maxPlanSteps,
    maxIterations: PLANNER_MAX_ITERATIONS,
    maxTokens: Math.max(deps.limits.replyMaxTokens, 2048),
    promptBudgetTokens: deps.limits.plannerPromptTokens ?? 8000,
  };
  try {
    const hints = routeByPatterns(context.message.text, deps.registry);
    // Wording that points to no agent is mostly answered directly: a cheaper model plans it.
    const planner = hints.length === 0 && deps.models.plannerLight ? deps.models.plannerLight : deps.models.planner;
    logger.debug({ planner: planner.name, hints: hints.map((hint) => hint.agent) }, 'planning');
    const planning = await planRound(context, { ...plannerDeps, plannerModel: planner }, {
      signal,
      stepsAllowed: deps.limits.maxPlanSteps,
      turnSections: [routingHintsSection(hints)],
    });
    if (planning.kind === 'direct') {
      logPlanEvent(logger, 'plan_answered_directly', { id: planId }, usageFields(meter));
      await store.planFinished(planId, 'answered_directly', totals(), deps.clock.now());
      return result(planning.reply, 'succeeded', 'direct');
    }
    if (planning.kind === 'invalid') {
      logPlanEvent(logger, 'plan_failed', { id: planId }, { reason: 'invalid plan' });
      await store.planFinished(planId, 'failed', totals(), deps.clock.now(), planning.error);
      return result(fallbackReply('apology', context.user.language, context.message.text), 'failed', 'fallback', { blame: 'model', message: planning.error });
    }

    const plan: ExecutionPlan = {
      id: planId,
      goal: planning.plan.goal,
      analysis: planning.plan.analysis,
      responseHint: planning.plan.responseHint,
      steps: planning.plan.steps.map((step) => ({ id: step.id, agent: step.agent, task: step.task, dependsOn: step.dependsOn ?? [], status: 'pending', retryCount: 0, version: 1 })),
      status: 'executing',
      version: 1,
      errors: [],
      createdAt: deps.clock.now(),
    };
    logPlanEvent(logger, 'plan_created', plan, { agents: plan.steps.map((step) => step.agent) });
    await store.planUpdated(plan, 'executing', totals());
    const outcome = await executePlan(plan, context, language, signal, {
      registry: deps.registry,
      stepRunner: { model, models: deps.models, clock: deps.clock, logger, maxIterations: AGENT_MAX_ITERATIONS, recordCost: (cost) => meter.recordService(cost.service, cost.tokens, cost.costUsd) },
      store,
      clock: deps.clock,
      logger,
      limits: deps.limits,
      replan: (request) => planRound(context, plannerDeps, { ...request, signal }),
      totals,
    });
    return await finish(outcome, context, language, deps, store, meter, budget.reply, options.signal, logger, result);
  } catch (caught) {
    if (options.signal?.aborted) {
      // Shutdown or a lost lease: the turn runner leaves the messages pending; no apology.
      logger.info({ modelCalls: meter.calls }, 'plan interrupted');
      await store.planFinished(planId, 'failed', totals(), deps.clock.now(), 'interrupted (shutdown or lost lease)').catch(() => {});
      return result(fallbackReply('apology', context.user.language, context.message.text), 'failed', 'fallback', { blame: 'timeout', message: 'interrupted' });
    }
    const error = planTimeout.aborted && !(caught instanceof TimeoutError) ? new TimeoutError('the turn took too long', { cause: caught }) : caught;
    const blame = blameOf(error);
    logger.warn({ blame, error: describeError(error), modelCalls: meter.calls }, 'planning failed; apologising');
    logPlanEvent(logger, blame === 'timeout' ? 'plan_timeout' : 'plan_failed', { id: planId });
    await store.planFinished(planId, blame === 'timeout' ? 'timed_out' : 'failed', totals(), deps.clock.now(), describeError(error)).catch(() => {});
    return result(fallbackReply(apologyFor(blame), context.user.language, context.message.text), 'failed', 'fallback', { blame, message: describeError(error) });
  } finally {
    // An "on it" already on its way must leave before the reply does.
    await progress.stop();
    await store.flush();
  }
}

/** Turns an execution outcome into the reply, composing only when needed. */
async function finish(
  outcome: ExecutionOutcome,
  context: OrchestratorContext,
  language: string,
  deps: OrchestratorDependencies,
  store: PlanStore,
  meter: CountingModel,
  replyModel: ModelClient,
  shutdown: AbortSignal | undefined,
  logger: Logger,
  result: (
    reply: string,
    status: OrchestratorResult['status'],
    path: OrchestratorResult['path'],
    failure?: OrchestratorResult['failure'],
    confirmation?: ConfirmationAsk,
  ) => OrchestratorResult,
): Promise<OrchestratorResult> {
  const { plan } = outcome;
  const totals = { modelCalls: meter.calls, usage: meter.usage };
  if (outcome.question) {
    logPlanEvent(logger, 'plan_needs_clarification', plan);
    await store.planFinished(plan.id, 'needs_clarification', totals, deps.clock.now(), undefined, plan);
    return result(outcome.question, 'succeeded', 'clarification');
  }
  let reply = outcome.replannerReply ?? replyWithoutComposing(plan);
  if (reply === undefined && !shutdown?.aborted) {
    // Composing gets its own short budget, so a timed-out plan still explains itself.
    const composeSignal = AbortSignal.any([...(shutdown ? [shutdown] : []), timeoutSignal(COMPOSE_TIMEOUT_MS, 'composing took too long')]);
    reply = await composeReply(context, plan, language, { model: replyModel, composerModel: deps.models.composer, maxTokens: deps.limits.replyMaxTokens }, composeSignal, outcome.note).catch(
      (error: unknown) => {
        logger.warn({ error: describeError(error) }, 'composing failed; using a fallback reply');
        return undefined;
      },
    );
  }
  reply ??= fallbackFor(plan, context);
  // A page's link must reach the user even if the model's wording lost it.
  reply = withToolLinks(reply, plan);
  // Held actions are asked about in Herald's own words, whatever the model wrote.
  const confirmation = heldActions(plan);
  if (confirmation) reply = `${reply}\n\n${confirmation.question} ${confirmationReply('ask', context.user.language, {}, context.message.text)}`;
  const status = plan.status === 'completed' ? 'completed' : plan.status === 'timed_out' ? 'timed_out' : 'failed';
  // A plan that recovered by replanning succeeded: judge by the final version's steps.
  const finalSteps = plan.steps.filter((step) => step.version === plan.version);
  const succeeded = status === 'completed' && finalSteps.every((step) => step.status === 'completed');
  logPlanEvent(logger, status === 'completed' ? 'plan_completed' : status === 'timed_out' ? 'plan_timeout' : 'plan_failed', plan, {
    ...usageFields(meter),
    durationMs: deps.clock.now().getTime() - plan.createdAt.getTime(),
  });
  await store.planFinished(plan.id, status, { modelCalls: meter.calls, usage: meter.usage }, deps.clock.now(), plan.errors.map((entry) => `${entry.stepId}: ${entry.error}`).join('\n') || undefined, plan);
  if (succeeded) return result(reply, 'succeeded', 'plan', undefined, confirmation);
  const blame = status === 'timed_out' ? 'timeout' : plan.steps.some((step) => step.result?.errorKind === 'budget') ? 'budget' : 'partial';
  return result(reply, 'failed', 'plan', { blame, message: plan.errors.map((entry) => entry.error).join('; ') || `plan ${status}` }, confirmation);
}

/**
 * A reply without the model (the composer failed): what finished steps said for
 * themselves; for a completed plan a plain "done" (an apology would invite the user to
 * repeat what already happened); otherwise an apology.
 */
function fallbackFor(plan: ExecutionPlan, context: OrchestratorContext): string {
  const replies = plan.steps.flatMap((step) => (step.status === 'completed' && step.result?.output?.reply ? [step.result.output.reply] : []));
  if (plan.status === 'completed') return replies.length > 0 ? replies.join('\n') : fallbackReply('done', context.user.language, context.message.text);
  const stoppedByBudget = plan.steps.some((step) => step.result?.errorKind === 'budget');
  const apology = fallbackReply(plan.status === 'timed_out' ? 'timeout' : stoppedByBudget ? 'budget' : 'apology', context.user.language, context.message.text);
  return replies.length > 0 ? `${replies.join('\n')}\n${apology}` : apology;
}

/** A turn's model usage for its plan-end event: totals, and per model the tokens and the cost. */
function usageFields(meter: CountingModel): Record<string, unknown> {
  return {
    modelCalls: meter.calls,
    inputTokens: meter.usage.inputTokens,
    outputTokens: meter.usage.outputTokens,
    cacheReadTokens: meter.usage.cacheReadTokens,
    cacheWriteTokens: meter.usage.cacheWriteTokens,
    costUsd: roundUsd(meter.costUsd),
    models: meter.byModel().map((line) => ({ ...line, costUsd: roundUsd(line.costUsd) })),
  };
}

/** Sends one "on it" message if the plan is still running after `progressAfterMs`. */
function startProgressTimer(
  onProgress: OrchestrateOptions['onProgress'],
  afterMs: number,
  context: OrchestratorContext,
  logger: Logger,
): { stop(): Promise<void> } {
  if (!onProgress) return { stop: async () => {} };
  let sending: Promise<void> | undefined;
  const timer = setTimeout(() => {
    logger.info({ afterMs }, 'plan still running; sending a progress message');
    sending = onProgress(progressMessage(context.user.language, context.message.text)).catch((error: unknown) =>
      logger.warn({ error: describeError(error) }, 'progress message failed'),
    );
  }, afterMs);
  timer.unref?.();
  return {
    stop: async () => {
      clearTimeout(timer);
      await sending;
    },
  };
}
