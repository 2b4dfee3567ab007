import type { AgentRegistry } from '../agents/agent-registry.js';
import type { OrchestratorContext } from '../context/orchestrator-context.js';
import type { Logger } from '../logging/logger.js';
import { CountingModel, type ModelUsageLine } from '../model/counting-model.js';
import { TurnBudget } from '../model/turn-budget.js';
import type { ModelClient, TokenUsage } from '../model/model-client.js';
import type { ModelRoles } from '../model/model-roles.js';
import type { QuestionAsk } from '../questions/pending-question.js';
import type { Clock } from '../shared/clock.js';
import { blameOf, describeError, TimeoutError, type ErrorBlame } from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { executePlan, timeoutSignal } from './executor.js';
import { mergeSteps } from './replan.js';
import { apologyFor, fallbackReply, progressMessage } from '../texts/fallback-replies.js';
import { finish, usageFields } from './finish-plan.js';
import { logPlanEvent } from './plan-events.js';
import { resumedSteps } from './plan-questions.js';
import type { ExecutionPlan } from './plan-state.js';
import { WriteBehindPlanStore, type PlanStore } from './plan-store.js';
import { planRound, type PlannerDependencies, type PlanningOutcome } from './planner.js';
import { choosePlanner, planFirstRound } from './planner-choice.js';
import { routeByPatterns, routingHintsSection, withSubjectHint } from './pre-router.js';
import { resumingRequest } from './prompts/planner-prompt.js';
import { subjectSection } from './prompts/user-sections.js';
import { replyLanguage } from './reply-language.js';
import type { PlannerLabel } from '../observability/metrics.js';
import { noopTracing, type Tracing } from '../observability/tracing.js';
import { webAccessFor, withSourceLink } from './web-access.js';
import { ToolCallLedger } from '../tool-calls/tool-call-ledger.js';
import { storable, storableText } from './storable-text.js';
import { formatForChannel } from '../channels/format-message.js';
import type { ToolCallKeyStore } from '../tool-calls/tool-call-keys.js';

/** The orchestrator's limits (docs/ARCHITECTURE.md "Defaults"). */
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
  /** Plan steps one turn runs at once (PLAN_PARALLEL_STEPS); default 3, 1 runs them one at a time. */
  parallelSteps?: number;
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
  /** Spans for planning rounds and steps; absent: none. */
  tracing?: Tracing;
  /** Told who planned each message (its first round), for the metrics; absent: nobody. */
  onPlanned?: (planner: PlannerLabel) => void;
  /** Offer Anthropic's web search (and fetch, for the user's own links) to the planner and general-agent (WEB_SEARCH). */
  webSearch?: boolean;
  /**
   * Where mutating tool calls are keyed (src/tool-calls), so a request run again (a retried or
   * replanned step, the turn taken over after a crash) does not make a call twice; absent: not keyed.
   */
  toolCallKeys?: ToolCallKeyStore;
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
  /**
   * What the reply asks and Herald keeps until answered: a YES for held actions, a "Which
   * one?" (numbered by Herald), or a clarification (with the plan, to resume).
   */
  questions?: QuestionAsk[];
}

const PLANNER_MAX_ITERATIONS = 4;
const AGENT_MAX_ITERATIONS = 6;

/**
 * Answers one turn (docs/ARCHITECTURE.md "The orchestrator"): route and plan in one call — plain
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
  const messageLanguage = replyLanguage(context.user.language, context.message.languageText ?? context.message.text);
  const totals = () => ({ modelCalls: meter.calls, usage: meter.usage });
  const result = (
    reply: string,
    status: OrchestratorResult['status'],
    path: OrchestratorResult['path'],
    failure?: OrchestratorResult['failure'],
    questions?: QuestionAsk[],
  ): OrchestratorResult => ({
    // Whatever the model wrote, the turn's commit can store it (storable-text.ts), and it says something.
    reply: withWords(storableText(reply), context),
    status,
    path,
    planId,
    ...(questions && questions.length > 0 ? { questions: storable(questions) } : {}),
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
  // Mutating calls are keyed by the request, which is its first message: the same when the turn runs again after a crash.
  const keyedCalls = deps.toolCallKeys ? new ToolCallLedger(deps.toolCallKeys, { userId: context.user.id, scope: context.message.messageIds[0]!, turnId: context.turnId }, deps.clock, logger) : undefined;
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
    web: webAccessFor(context, deps.webSearch === true),
  };
  try {
    const hints = withSubjectHint(routeByPatterns(context.message.text, deps.registry), context.subject);
    // Everyday wording is planned by a cheaper model, which hands anything harder on.
    const choice = choosePlanner(context, hints, deps.models);
    logger.debug({ planner: choice.model.name, hints: hints.map((hint) => hint.agent), resuming: context.resume?.planId }, 'planning');
    const kept = context.resume ? resumedSteps(context.resume) : [];
    const stepsAllowed = deps.limits.maxPlanSteps - kept.filter((step) => step.status === 'completed').length;
    const turnSections = [routingHintsSection(hints), subjectSection(context.subject, context.user.timezone)];
    const tracing = deps.tracing ?? noopTracing;
    const planning: PlanningOutcome = await tracing.span('herald.plan', { attributes: { 'herald.planner.model': choice.model.name, 'herald.plan.hints': hints.length } }, async (span) => {
      const round = await planFirstRound(context, choice, plannerDeps, {
        signal,
        stepsAllowed: Math.max(1, stepsAllowed),
        turnSections,
        ...(context.resume
          ? {
              replanning: resumingRequest({
                request: context.resume.request,
                question: context.resume.question,
                goal: context.resume.goal,
                completed: kept.filter((step) => step.status === 'completed').map((step) => ({ stepId: step.id, agent: step.agent, task: step.task, summary: step.result?.output?.summary ?? '' })),
                stepsLeft: Math.max(1, stepsAllowed),
              }),
              knownStepIds: kept.filter((step) => step.status === 'completed').map((step) => step.id),
            }
          : {}),
      }, { logger, planId });
      span.setAttributes({ 'herald.plan.outcome': round.kind, 'herald.plan.handed_off': round.handedOff });
      deps.onPlanned?.(round.handedOff ? 'handed_off' : choice.light ? 'light' : 'planner');
      return round;
    });
    if (planning.kind === 'direct') {
      logPlanEvent(logger, 'plan_answered_directly', { id: planId }, usageFields(meter));
      await store.planFinished(planId, 'answered_directly', totals(), deps.clock.now());
      return result(withSourceLink(planning.reply, planning.sources ?? []), 'succeeded', 'direct');
    }
    if (planning.kind === 'invalid') {
      logPlanEvent(logger, 'plan_failed', { id: planId }, { reason: 'invalid plan' });
      await store.planFinished(planId, 'failed', totals(), deps.clock.now(), planning.error);
      return result(fallbackReply('apology', context.user.language, context.message.text), 'failed', 'fallback', { blame: 'model', message: planning.error });
    }

    const plan: ExecutionPlan = {
      id: planId,
      goal: context.resume?.goal ?? planning.plan.goal,
      analysis: planning.plan.analysis,
      responseHint: planning.plan.responseHint ?? context.resume?.responseHint,
      language: planning.plan.language ?? context.resume?.language,
      // A resumed plan keeps the steps that finished before its question: they are not run again.
      steps: kept.filter((step) => step.status === 'completed'),
      status: 'executing',
      version: (context.resume?.version ?? 0) + 1,
      errors: [],
      createdAt: deps.clock.now(),
    };
    if (context.resume) mergeSteps(plan, planning.plan.steps);
    else
      plan.steps.push(
        ...planning.plan.steps.map((step) => ({
          id: step.id,
          agent: step.agent,
          task: step.task,
          dependsOn: step.dependsOn,
          ...(step.attachments && step.attachments.length > 0 ? { attachments: step.attachments } : {}),
          status: 'pending' as const,
          retryCount: 0,
          version: 1,
        })),
      );
    // The planner read the message itself: the language it names is the one to write in.
    const language = plan.language ?? messageLanguage;
    logPlanEvent(logger, 'plan_created', plan, { agents: plan.steps.map((step) => step.agent), resumed: Boolean(context.resume) });
    await store.planUpdated(plan, 'executing', totals());
    const outcome = await executePlan(plan, context, language, signal, {
      registry: deps.registry,
      stepRunner: {
        model,
        models: deps.models,
        clock: deps.clock,
        logger,
        maxIterations: AGENT_MAX_ITERATIONS,
        ...(plannerDeps.web ? { web: plannerDeps.web } : {}),
        recordCost: (cost) => meter.recordService(cost.service, cost.tokens, cost.costUsd),
        ...(keyedCalls ? { keyedCalls } : {}),
      },
      store,
      clock: deps.clock,
      logger,
      limits: deps.limits,
      replan: (request) => tracing.span('herald.replan', {}, () => planRound(context, plannerDeps, { ...request, signal })),
      tracing,
      totals,
      budgetExhausted: () => budget.exhausted,
    });
    return await finish(outcome, { context, language, deps, store, meter, replyModel: budget.reply, shutdown: options.signal, logger, result, plannerSources: planning.sources ?? [] });
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
    await Promise.all([store.flush(), keyedCalls?.flush()]);
  }
}

/**
 * The reply, or an apology when it has no words as the channel shows it (a blank answer, a
 * question that is only "#" or "---", which Markdown-to-text makes empty): a turn never sends
 * an empty text, which Twilio refuses and the user would take for silence.
 */
function withWords(reply: string, context: OrchestratorContext): string {
  return formatForChannel(reply, context.channel).trim() ? reply : fallbackReply('apology', context.user.language, context.message.text);
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
