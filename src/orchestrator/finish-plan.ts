import type { OrchestratorContext } from '../context/orchestrator-context.js';
import type { Logger } from '../logging/logger.js';
import type { CountingModel } from '../model/counting-model.js';
import { roundUsd } from '../model/model-cost.js';
import type { ModelClient } from '../model/model-client.js';
import type { ModelRoles } from '../model/model-roles.js';
import { withAsk } from '../questions/pending-action.js';
import { confirmationQuestion, type QuestionAsk } from '../questions/pending-question.js';
import type { Clock } from '../shared/clock.js';
import { describeError, type ErrorBlame } from '../shared/errors.js';
import { readerLanguage, say } from '../texts/texts.js';
import { composeReply } from './composer.js';
import { replyWithoutComposing } from './reply-parts.js';
import { timeoutSignal, type ExecutionOutcome } from './executor.js';
import { fallbackReply } from '../texts/fallback-replies.js';
import { heldActions } from './held-actions.js';
import { logPlanEvent } from './plan-events.js';
import { askingSteps, planQuestion, planSnapshot } from './plan-questions.js';
import type { ExecutionPlan } from './plan-state.js';
import type { PlanStore } from './plan-store.js';
import { withToolLinks } from './reply-links.js';
import { withSourceLink } from './web-access.js';
import { heardLine } from './heard-line.js';
import type { WebSource } from '../model/model-client.js';

const COMPOSE_TIMEOUT_MS = 15_000;

/** How a finished plan becomes the turn's result (built by `orchestrate`). */
type ResultOf<Result> = (
  reply: string,
  status: 'succeeded' | 'failed',
  path: 'direct' | 'plan' | 'clarification' | 'fallback',
  failure?: { blame: ErrorBlame | 'partial'; message: string },
  questions?: QuestionAsk[],
) => Result;

/** What finishing a plan needs: the turn, the models for the reply, the plan store. */
export interface Finishing<Result> {
  context: OrchestratorContext;
  /** The language replies are written in. */
  language: string;
  deps: { clock: Clock; models: Pick<ModelRoles, 'composer'>; limits: { replyMaxTokens: number } };
  store: PlanStore;
  meter: CountingModel;
  /** The model client kept for the reply (the turn budget's last call). */
  replyModel: ModelClient;
  shutdown: AbortSignal | undefined;
  logger: Logger;
  result: ResultOf<Result>;
  /** Web pages the planner cited (a step's own are on its result). */
  plannerSources: WebSource[];
}

/**
 * Turns an execution outcome into the reply, composing only when needed; a step's question
 * goes to {@link askUser}. Page links the model's wording lost are added, and held actions
 * are asked about in Herald's own words.
 */
export async function finish<Result>(outcome: ExecutionOutcome, f: Finishing<Result>): Promise<Result> {
  const { plan } = outcome;
  const { context, deps, meter, logger } = f;
  if (outcome.question) return askUser(outcome, outcome.question, f);
  let reply = outcome.replannerReply ?? replyWithoutComposing(plan);
  if (reply === undefined) reply = await compose(f, plan, outcome.note, 'composing failed; using a fallback reply');
  reply ??= fallbackFor(plan, context);
  // A page's link must reach the user even if the model's wording lost it.
  reply = withToolLinks(reply, plan);
  // At most one web source, from the planner or the steps that searched.
  reply = withSourceLink(reply, [...f.plannerSources, ...plan.steps.flatMap((step) => step.result?.sources ?? [])]);
  // Held actions are asked about in Herald's own words, whatever the model wrote.
  const asks = confirmationAsk(plan, context);
  if (asks.text) reply = `${reply}\n\n${asks.text}`;
  const status = plan.status === 'completed' ? 'completed' : plan.status === 'timed_out' ? 'timed_out' : 'failed';
  // A plan that recovered by replanning succeeded: judge by the final version's steps.
  const finalSteps = plan.steps.filter((step) => step.version === plan.version);
  const succeeded = status === 'completed' && finalSteps.every((step) => step.status === 'completed');
  logPlanEvent(logger, status === 'completed' ? 'plan_completed' : status === 'timed_out' ? 'plan_timeout' : 'plan_failed', plan, {
    ...usageFields(meter),
    durationMs: deps.clock.now().getTime() - plan.createdAt.getTime(),
  });
  await f.store.planFinished(plan.id, status, { modelCalls: meter.calls, usage: meter.usage }, deps.clock.now(), plan.errors.map((entry) => `${entry.stepId}: ${entry.error}`).join('\n') || undefined, plan);
  if (succeeded) return f.result(reply, 'succeeded', 'plan', undefined, asks.questions);
  const blame = status === 'timed_out' ? 'timeout' : plan.steps.some((step) => step.result?.errorKind === 'budget') ? 'budget' : 'partial';
  return f.result(reply, 'failed', 'plan', { blame, message: plan.errors.map((entry) => entry.error).join('; ') || `plan ${status}` }, asks.questions);
}

/**
 * Steps need the user (docs/ARCHITECTURE.md "The orchestrator", step 5): the reply first says what
 * the other steps changed (one composer call, only when they changed something), keeps their
 * links and asks their held actions' YES, then asks: Herald's own numbered "Which one?"
 * when a lookup found several candidates, else the step's question (several steps' questions
 * together, in plan order), kept with the plan so the answer resumes it (finished steps are
 * not run again).
 */
async function askUser<Result>(outcome: ExecutionOutcome, question: string, f: Finishing<Result>): Promise<Result> {
  const { plan } = outcome;
  const { context, meter, logger } = f;
  const asking = askingSteps(plan);
  const earlier = plan.steps.filter((step) => !asking.includes(step) && step.status === 'completed' && step.version === plan.version);
  const changed = earlier.some(
    (step) => (step.result?.output?.created?.length ?? 0) + (step.result?.output?.updated?.length ?? 0) + (step.result?.output?.deleted?.length ?? 0) > 0 || step.result?.toolCalls.some((call) => call.mutates && !call.isError),
  );
  const report = changed ? await compose(f, { ...plan, steps: earlier }, 'A question for the user follows this text: say only what was done, in one short sentence, and ask nothing.', 'composing what was done failed; the question goes alone') : undefined;
  const request = context.resume?.request ?? context.message.text;
  const texts = readerLanguage(context.user.language, context.message.text);
  const asked: QuestionAsk = asking.length > 0 ? planQuestion(plan, asking, request, texts, f.language) : { kind: 'clarification', question, payload: planSnapshot(plan, request, f.language) };
  const asks = confirmationAsk(plan, context);
  const parts = [withToolLinks(report ?? '', plan).trim(), asks.text ?? '', asked.question].filter((part) => part.length > 0);
  logPlanEvent(logger, 'plan_needs_clarification', plan, { question: asked.kind });
  await f.store.planFinished(plan.id, 'needs_clarification', { modelCalls: meter.calls, usage: meter.usage }, f.deps.clock.now(), undefined, plan);
  return f.result(parts.join('\n\n'), 'succeeded', 'clarification', undefined, [...asks.questions, asked]);
}

/**
 * The plan's held actions as one YES question in Herald's words, and as the question to keep.
 * After a voice note the question says what Herald heard, so a misheard word is caught before YES.
 */
function confirmationAsk(plan: ExecutionPlan, context: OrchestratorContext): { text?: string; questions: QuestionAsk[] } {
  const confirmation = heldActions(plan);
  if (!confirmation) return { questions: [] };
  const texts = readerLanguage(context.user.language, context.message.text);
  const heard = heardLine(context);
  return {
    text: `${heard ? `${heard} ` : ''}${withAsk(confirmation.question, say(texts, 'confirmAsk'))}`,
    questions: [confirmationQuestion(confirmation)],
  };
}

/** One composer call with its own short budget (a timed-out plan still explains itself); undefined when it fails. */
async function compose<Result>(f: Finishing<Result>, plan: ExecutionPlan, note: string | undefined, failed: string): Promise<string | undefined> {
  if (f.shutdown?.aborted) return undefined;
  const signal = AbortSignal.any([...(f.shutdown ? [f.shutdown] : []), timeoutSignal(COMPOSE_TIMEOUT_MS, 'composing took too long')]);
  return composeReply(f.context, plan, f.language, { model: f.replyModel, composerModel: f.deps.models.composer, maxTokens: f.deps.limits.replyMaxTokens }, signal, note).catch((error: unknown) => {
    f.logger.warn({ error: describeError(error) }, failed);
    return undefined;
  });
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
export function usageFields(meter: CountingModel): Record<string, unknown> {
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
