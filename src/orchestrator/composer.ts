import type { OrchestratorContext } from '../context/orchestrator-context.js';
import { responseText, type ModelClient } from '../model/model-client.js';
import { ModelError } from '../shared/errors.js';
import { roleRequest, type RoleModel } from '../model/model-roles.js';
import type { ExecutionPlan } from './plan-state.js';
import { composerSystemPrompt, compositionRequest } from './prompts/composer-prompt.js';

/** What composing needs. */
export interface ComposerDependencies {
  model: ModelClient;
  composerModel: RoleModel;
  maxTokens: number;
}

/** One model call writing the reply: short, in the user's language, honest about failures. */
export async function composeReply(
  context: OrchestratorContext,
  plan: ExecutionPlan,
  replyLanguage: string,
  deps: ComposerDependencies,
  signal: AbortSignal,
  endedBy?: string,
): Promise<string> {
  const response = await deps.model.generate({
    ...roleRequest(deps.composerModel),
    purpose: 'composer',
    system: composerSystemPrompt(context.user, replyLanguage),
    messages: [{ role: 'user', content: compositionRequest(context.message.text, plan, endedBy) }],
    maxTokens: deps.maxTokens,
    temperature: 0,
    signal,
  });
  const text = responseText(response);
  if (!text) throw new ModelError('the composer answered with no text', 'behaviour');
  return text;
}
