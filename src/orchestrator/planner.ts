import { z } from 'zod';
import type { AgentRegistry } from '../agents/agent-registry.js';
import { runToolLoop } from '../agents/tool-loop.js';
import type { OrchestratorContext } from '../context/orchestrator-context.js';
import type { Logger } from '../logging/logger.js';
import type { ContentBlock, ModelClient, ModelMessage, WebSource } from '../model/model-client.js';
import type { Clock } from '../shared/clock.js';
import { roleRequest, type RoleModel } from '../model/model-roles.js';
import { defineTool, type ToolDefinition } from '../tools/tool.js';
import { dependencyProblems } from './plan-graph.js';
import { planInputSchema, planSchema, type Plan } from './plan-schema.js';
import { conversationMessages } from './prompts/conversation-messages.js';
import { orchestratorSystemPrompt } from './prompts/orchestrator-system-prompt.js';
import { agentDescriptionsSection, planningInstructions } from './prompts/planner-prompt.js';
import { utilityTools } from './utility-tools/index.js';
import { estimateTokens } from '../shared/tokens.js';
import { serverToolsFor, type WebAccess } from './web-access.js';

/** What planning needs. */
export interface PlannerDependencies {
  model: ModelClient;
  plannerModel: RoleModel;
  registry: AgentRegistry;
  clock: Clock;
  logger: Logger;
  maxPlanSteps: number;
  /** Model calls the planner may make in one planning round (utility tools, then the plan). */
  maxIterations: number;
  maxTokens: number;
  /** The planning prompt's budget in tokens (CTX-6); memory gives way first. */
  promptBudgetTokens?: number;
  /** Anthropic's web search (and fetch, for the user's own links) this turn may use. */
  web?: WebAccess;
}

/** One planning round's request. */
export interface PlanningRequest {
  signal: AbortSignal;
  /** Steps still allowed in this request (C-3 counts every plan version). */
  stepsAllowed: number;
  /** Step ids already used (completed steps on a replan) that new steps may depend on. */
  knownStepIds?: string[];
  /** Extra per-turn prompt sections (routing hints). */
  turnSections?: Array<string | undefined>;
  /** The replanning request appended to the user's message, on a replan. */
  replanning?: string;
  /** Outside text (mail an earlier step read) is in the prompt: no web fetch. */
  untrustedTextSeen?: boolean;
}

/** How a planning round ended; `sources` are the web pages its text cited. */
export type PlanningOutcome =
  | { kind: 'direct'; reply: string; sources?: WebSource[] }
  | { kind: 'plan'; plan: Plan; sources?: WebSource[] }
  | { kind: 'invalid'; error: string };

/** The light planner judged the message the planner's (`hand_to_planner`). */
export interface HandedOff {
  kind: 'handed_off';
  reason: string;
}

/**
 * The planner: one model call (more only when it resolves dates first) with the composed
 * system prompt, the conversation window, the utility tools and `create_plan`. Text with
 * no tool call is the direct reply. A plan is validated on the way back (shape, known
 * agents, step limit, ids, dependencies that name known steps and form no cycle); an
 * invalid one is returned to the model once with the error, and if it is still invalid
 * the round fails.
 */
export async function planRound(context: OrchestratorContext, deps: PlannerDependencies, request: PlanningRequest): Promise<PlanningOutcome> {
  const outcome = await planningLoop(context, deps, request, false);
  // Not offered the hand-off tool, the model cannot call it: the loop refuses unknown tools.
  return outcome.kind === 'handed_off' ? { kind: 'invalid', error: 'the planner handed the message on' } : outcome;
}

/** The light planner's round: as {@link planRound}, and it may hand the message to the planner instead. */
export async function lightPlanRound(context: OrchestratorContext, deps: PlannerDependencies, request: PlanningRequest): Promise<PlanningOutcome | HandedOff> {
  return planningLoop(context, deps, request, true);
}

async function planningLoop(context: OrchestratorContext, deps: PlannerDependencies, request: PlanningRequest, handOff: boolean): Promise<PlanningOutcome | HandedOff> {
  const createPlan = createPlanTool(deps.registry, request.stepsAllowed, request.knownStepIds ?? [], (context.message.media ?? []).map((attachment) => attachment.id));
  const serverTools = serverToolsFor(deps.web, { untrustedTextSeen: request.untrustedTextSeen === true });
  const stable = [planningInstructions(deps.maxPlanSteps), agentDescriptionsSection(deps.registry)];
  const messages = withReplanning(conversationMessages(context), request.replanning);
  const loop = await runToolLoop({
    model: deps.model,
    request: {
      ...roleRequest(deps.plannerModel),
      system: orchestratorSystemPrompt(context, deps.clock.now(), {
        sections: stable,
        turnSections: request.turnSections ?? [],
        ...(deps.promptBudgetTokens !== undefined
          ? { budgetTokens: deps.promptBudgetTokens, conversationTokens: estimateTokens(JSON.stringify(messages)) }
          : {}),
      }),
      maxTokens: deps.maxTokens,
      // NFR-4; sent only to models that accept sampling parameters (not the 5.x generation).
      temperature: 0,
      purpose: request.replanning ? 'replanner' : 'planner',
      ...(serverTools ? { serverTools } : {}),
    },
    messages,
    tools: [...utilityTools] as ToolDefinition[],
    finishTool: createPlan,
    ...(handOff ? { handOffTool: handToPlannerTool } : {}),
    maxFinishRejections: 1,
    toolContext: {
      userId: context.user.id,
      timezone: context.user.timezone,
      // resolve_date reads the user's language first, and their country's holidays and date order.
      language: context.user.language ?? undefined,
      country: context.user.country ?? undefined,
      clock: deps.clock,
      logger: deps.logger,
      signal: request.signal,
    },
    maxIterations: deps.maxIterations,
    signal: request.signal,
  });
  switch (loop.stop) {
    case 'finished':
      return { kind: 'plan', plan: loop.finish as Plan, sources: loop.sources };
    case 'handed_off':
      return { kind: 'handed_off', reason: (loop.handOff as z.infer<typeof handToPlannerTool.inputSchema>).reason };
    case 'text':
      return loop.text ? { kind: 'direct', reply: loop.text, sources: loop.sources } : { kind: 'invalid', error: 'the planner answered with nothing' };
    case 'invalid_finish':
      return { kind: 'invalid', error: `the plan was invalid twice: ${loop.finishError}` };
    case 'repeated_invalid_input':
      return { kind: 'invalid', error: `the planner repeated the same invalid input: ${loop.inputError}` };
    case 'stalled':
      return { kind: 'invalid', error: 'the planner repeated the same tool call' };
    case 'iteration_limit':
      return { kind: 'invalid', error: `the planner made no plan within ${deps.maxIterations} calls` };
  }
}

/** `create_plan`: its input is the plan; validation errors go back to the model. */
function createPlanTool(registry: AgentRegistry, stepsAllowed: number, knownStepIds: string[], attachmentIds: string[]) {
  const agentNames = registry.list().map((agent) => agent.name);
  const schema = planInputSchema.superRefine((plan, issues) => {
    if (plan.steps.length > stepsAllowed) {
      issues.addIssue({ code: 'custom', path: ['steps'], message: `at most ${stepsAllowed} step(s) are allowed; this plan has ${plan.steps.length}` });
    }
    const seen = new Set(knownStepIds);
    plan.steps.forEach((step, index) => {
      if (!registry.get(step.agent)) {
        issues.addIssue({ code: 'custom', path: ['steps', index, 'agent'], message: `unknown agent "${step.agent}"; use one of: ${agentNames.join(', ')}` });
      }
      if (seen.has(step.id)) issues.addIssue({ code: 'custom', path: ['steps', index, 'id'], message: `step id "${step.id}" is already used` });
      for (const attachment of step.attachments ?? []) {
        if (!attachmentIds.includes(attachment)) {
          const known = attachmentIds.length > 0 ? `use one of: ${attachmentIds.join(', ')}` : 'this message has no attachments';
          issues.addIssue({ code: 'custom', path: ['steps', index, 'attachments'], message: `"${attachment}" is not an attachment of this message; ${known}` });
        }
      }
      seen.add(step.id);
    });
    // Unknown ids and cycles go back to the planner with the reason, to fix in its next round.
    for (const problem of dependencyProblems(plan.steps, knownStepIds)) {
      issues.addIssue({ code: 'custom', path: ['steps', problem.index, 'dependsOn'], message: problem.message });
    }
  });
  return defineTool({
    name: 'create_plan',
    description: 'Submit the execution plan. Call it once, after resolving any relative dates. Do not call it if you can answer directly.',
    mutates: false,
    inputSchema: schema,
    // The round's checks above are not JSON Schema: the model sees the plain plan schema,
    // whose JSON Schema is built once rather than on every planning round.
    modelSchema: planSchema,
    run: async () => ({ isError: false, output: 'Plan accepted.' }),
  });
}

/**
 * `hand_to_planner`, offered to the light planner only: the message goes to the planner, which
 * plans it from the start. Its description is the whole rule of what the light planner keeps.
 */
const handToPlannerTool = defineTool({
  name: 'hand_to_planner',
  description:
    'Give this message to Herald\'s senior planner instead of answering or planning it yourself. Call it, alone, when the message needs care: ' +
    'several steps where one needs another\'s result; a date or time that is unclear or depends on something you must work out; anything ' +
    'sent to, shared with or arranged with other people; deleting or changing many things at once; a request you are not sure you ' +
    'understood; or a question you cannot answer well. Do not call it for greetings, thanks, small talk, questions <user_memory> answers, ' +
    'or plain requests to remember something, note something, or change a list: plan or answer those yourself.',
  mutates: false,
  inputSchema: z.object({ reason: z.string().trim().min(1).max(300).describe('Why the senior planner should take it, in a few words.') }).strict(),
  run: async () => ({ isError: false, output: 'Handed to the planner.' }),
});

/** Appends the replanning request to the user's message (the API wants alternating turns). */
function withReplanning(messages: ModelMessage[], replanning: string | undefined): ModelMessage[] {
  if (!replanning) return messages;
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'user') return [...messages, { role: 'user', content: replanning }];
  const original: ContentBlock[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  return [...messages.slice(0, -1), { role: 'user', content: [...original, { type: 'text', text: replanning }] }];
}
