import type { AgentDefinition } from '../agents/agent-definition.js';
import { runToolLoop, type ToolCallRecord, type ToolLoopProgress } from '../agents/tool-loop.js';
import type { Logger } from '../logging/logger.js';
import { emptyUsage, type ModelClient } from '../model/model-client.js';
import type { Clock } from '../shared/clock.js';
import { roleRequest, type ModelRoles } from '../model/model-roles.js';
import { blameOf, describeError, TimeoutError } from '../shared/errors.js';
import { estimateTokens } from '../shared/tokens.js';
import { languageCode } from '../texts/text-language.js';
import type { KeyedToolCalls } from '../tools/keyed-calls.js';
import { defineTool, type ToolContext, type ToolDefinition } from '../tools/tool.js';
import { agentOutputSchema, type AgentOutput } from './plan-schema.js';
import type { StepResult } from './plan-state.js';
import type { StepAttempt } from './step-attempt.js';
import { agentSystemPrompt, agentTaskMessage } from './prompts/agent-prompt.js';
import { attachmentBlocks } from './prompts/conversation-messages.js';
import { serverToolsFor, type WebAccess } from './web-access.js';
import { reconcileWithLedger, reportFromLedger } from './verifier.js';

/** What a step needs to run. */
export interface StepRunnerDependencies {
  model: ModelClient;
  models: Pick<ModelRoles, 'planner' | 'agent'>;
  clock: Clock;
  logger: Logger;
  /** Model calls a sub-agent may make in one attempt. */
  maxIterations: number;
  /** The turn's web tools, for agents with `webAccess`. */
  web?: WebAccess;
  /** Where tools report what other paid services (embeddings) cost the turn. */
  recordCost?: ToolContext['recordCost'];
  /** The turn's keyed mutating calls (src/tool-calls), per step; absent: calls just run. */
  keyedCalls?: { forStep(stepId: string): KeyedToolCalls };
}

/**
 * Runs one step with a sub-agent: its own system prompt, the user config, its task and
 * earlier steps' outputs — no memory, no history (FR-7, FR-8). The agent works through
 * its tool loop and reports with `complete_step` (or simply ends in text); the report is
 * checked against, and completed from, the ledger of what its tools actually did. Never
 * throws for expected failures: they become a failed result.
 */
export async function runStep(attempt: StepAttempt, deps: StepRunnerDependencies): Promise<StepResult> {
  const started = deps.clock.now().getTime();
  const { agent } = attempt;
  const completeStep = completeStepTool(agent.outputData);
  const system = agentSystemPrompt(agent, attempt.user, deps.clock.now(), attempt.replyLanguage);
  const task = agentTaskMessage(attempt, agent.promptBudgetTokens - estimateTokens(system.map((block) => block.text).join('')));
  const attachments = attempt.attachments ?? [];
  const serverTools = agent.webAccess ? serverToolsFor(deps.web, { untrustedTextSeen: attempt.untrustedTextSeen === true }) : undefined;
  // Filled in as the agent works, so a step cut off by a timeout still records (and its
  // retry is told) which tools already ran, and what the calls cost.
  const progress: ToolLoopProgress = { toolCalls: [], usage: emptyUsage(), modelCalls: 0 };
  const toolCalls: ToolCallRecord[] = progress.toolCalls;
  const finished = (result: Omit<StepResult, 'durationMs' | 'toolCalls'>): StepResult => ({
    ...result,
    toolCalls,
    durationMs: deps.clock.now().getTime() - started,
  });
  try {
    const loop = await runToolLoop({
      model: deps.model,
      request: {
        ...roleRequest(agent.modelRole === 'planner' ? deps.models.planner : deps.models.agent),
        system,
        maxTokens: agent.maxTokens,
        temperature: 0,
        purpose: agent.name,
        ...(serverTools ? { serverTools } : {}),
      },
      messages: [{ role: 'user', content: attachments.length > 0 ? [...attachmentBlocks(attachments), { type: 'text', text: task }] : task }],
      tools: agent.tools,
      finishTool: completeStep,
      toolContext: { userId: attempt.user.id, timezone: attempt.user.timezone, language: languageCode(attempt.replyLanguage), clock: deps.clock, logger: deps.logger, signal: attempt.signal, recordCost: deps.recordCost },
      maxIterations: deps.maxIterations,
      signal: attempt.signal,
      progress,
      ...(deps.keyedCalls ? { keyedCalls: deps.keyedCalls.forStep(attempt.step.id) } : {}),
    });
    const base = { usage: loop.usage, modelCalls: loop.modelCalls, ...(loop.sources.length > 0 ? { sources: loop.sources } : {}) };
    if (loop.stop === 'stalled') {
      return finished({ ...base, success: false, errorKind: 'stalled', error: 'the agent repeated the same tool call with the same arguments' });
    }
    if (loop.stop === 'repeated_invalid_input') {
      return finished({ ...base, success: false, errorKind: 'invalid_input', error: `the agent sent the same invalid input twice: ${loop.inputError ?? 'invalid input'}` });
    }
    if (loop.stop === 'iteration_limit') {
      return finished({ ...base, success: false, errorKind: 'model', error: `the agent did not finish within ${deps.maxIterations} model calls` });
    }
    // An agent that ends in plain text has finished: what it changed is the ledger's to say.
    // Only an empty answer after doing nothing at all is no result.
    if (loop.stop === 'text' && (loop.text || loop.toolCalls.some((call) => !call.isError))) {
      return finished({ ...base, output: reportFromLedger(loop.text, loop.toolCalls, attempt.reply !== undefined), success: true });
    }
    if (loop.stop !== 'finished') return finished({ ...base, success: false, errorKind: 'model', error: 'the agent ended without a report' });

    const checked = reconcileWithLedger(loop.finish as AgentOutput, loop.toolCalls);
    if (checked.mismatch) return finished({ ...base, output: checked.output, success: false, errorKind: 'verification', error: checked.mismatch });
    return finished({ ...base, output: checked.output, success: true });
  } catch (error) {
    const timedOut = attempt.signal.aborted;
    const reason = timedOut && attempt.signal.reason instanceof Error ? attempt.signal.reason : error;
    return finished({
      usage: progress.usage,
      modelCalls: progress.modelCalls,
      success: false,
      errorKind: timedOut ? 'timeout' : blameOf(error),
      error: timedOut ? describeError(reason instanceof TimeoutError ? reason : new TimeoutError('the step took too long')) : describeError(error),
    });
  }
}

/** `complete_step` per agent output schema: built once, so its schema (and JSON Schema) is too. */
const completeStepTools = new WeakMap<AgentDefinition['outputData'], ToolDefinition>();

/**
 * The finishing tool of an agent whose `data` has this schema: its input is the agent's
 * report. The tool is pure and depends only on the schema, so every step of every turn
 * shares one, instead of rebuilding the envelope schema and its JSON Schema per step.
 */
function completeStepTool(outputData: AgentDefinition['outputData']): ToolDefinition {
  let tool = completeStepTools.get(outputData);
  if (!tool) {
    tool = defineTool({
      name: 'complete_step',
      description: 'Report the outcome of your task. Call it exactly once, when you are done (or cannot proceed).',
      mutates: false,
      inputSchema: agentOutputSchema(outputData),
      run: async () => ({ isError: false, output: 'Recorded.' }),
    });
    completeStepTools.set(outputData, tool);
  }
  return tool;
}
