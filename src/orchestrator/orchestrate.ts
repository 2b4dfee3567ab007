import type { OrchestratorContext } from '../context/orchestrator-context.js';
import type { Logger } from '../logging/logger.js';
import { emptyUsage, responseText, type ModelClient, type TokenUsage } from '../model/model-client.js';
import type { Clock } from '../shared/clock.js';
import { blameOf, describeError, ModelError, TimeoutError, type ErrorBlame } from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { apologyFor, fallbackReply } from './fallback-replies.js';
import { conversationMessages } from './prompts/conversation-messages.js';
import { orchestratorSystemPrompt } from './prompts/orchestrator-system-prompt.js';

/** What the orchestrator needs, all injected so tests drive it with fakes. */
export interface OrchestratorDependencies {
  model: ModelClient;
  models: { planner: string; agent: string; composer: string };
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  limits: { planTimeoutMs: number; replyMaxTokens: number };
}

/** The outcome of one turn: always a reply to send. */
export interface OrchestratorResult {
  reply: string;
  status: 'succeeded' | 'failed';
  failure?: { blame: ErrorBlame; message: string };
  modelCalls: number;
  usage: TokenUsage;
}

/**
 * Answers one turn. This is the "no plan needed" path: one model call with the composed
 * system prompt and the conversation window. It never throws for an expected failure:
 * a model that errors or times out yields a short apology, so the user is never left in
 * silence.
 */
export async function orchestrate(
  context: OrchestratorContext,
  deps: OrchestratorDependencies,
  options: { signal?: AbortSignal } = {},
): Promise<OrchestratorResult> {
  const logger = deps.logger.child({ turnId: context.turnId, userId: context.user.id });
  const timeout = AbortSignal.timeout(deps.limits.planTimeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const usage = emptyUsage();
  let modelCalls = 0;
  try {
    modelCalls += 1;
    const response = await deps.model.generate({
      model: deps.models.planner,
      purpose: 'reply',
      system: orchestratorSystemPrompt(context, deps.clock.now()),
      messages: conversationMessages(context),
      maxTokens: deps.limits.replyMaxTokens,
      temperature: 0,
      signal,
    });
    Object.assign(usage, response.usage);
    const reply = responseText(response);
    if (!reply) throw new ModelError('the model answered with no text', 'behaviour');
    logger.info({ modelCalls, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }, 'turn answered');
    return { reply, status: 'succeeded', modelCalls, usage };
  } catch (caught) {
    const error = timeout.aborted && !(caught instanceof TimeoutError) ? new TimeoutError('the turn took too long', { cause: caught }) : caught;
    const blame = blameOf(error);
    logger.warn({ blame, error: describeError(error), modelCalls }, 'turn failed; apologising');
    return {
      reply: fallbackReply(apologyFor(blame), context.user.language, context.message.text),
      status: 'failed',
      failure: { blame, message: describeError(error) },
      modelCalls,
      usage,
    };
  }
}
