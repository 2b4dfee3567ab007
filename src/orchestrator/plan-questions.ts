import type { ChoiceRequest } from '../tools/tool.js';
import type { ClarificationPayload, QuestionAsk } from '../questions/pending-question.js';
import { say, type TextLanguage } from '../texts/texts.js';
import type { ResumedPlan } from '../context/orchestrator-context.js';
import { anyAgentOutputSchema, type AgentOutput } from './plan-schema.js';
import { explicitFromOrdered } from './plan-graph.js';
import type { ExecutionPlan, PlanStep } from './plan-state.js';

/** The steps that asked the user something (they ended with needsClarification and a question, as the executor reads them), in plan order. */
export function askingSteps(plan: ExecutionPlan): PlanStep[] {
  return plan.steps.filter((step) => step.status === 'completed' && step.result?.output?.needsClarification && step.result.output.question);
}

/**
 * The "Which one?" a step's lookup left behind: the last call of the asking step's final
 * attempt that found several candidates (it did nothing). Herald asks it in its own words,
 * numbering the candidates, instead of the agent's wording.
 */
function pendingChoice(step: PlanStep): { agent: string; tool: string; choice: ChoiceRequest } | undefined {
  const call = [...(step.result?.toolCalls ?? [])].reverse().find((candidate) => candidate.pendingChoice);
  return call?.pendingChoice ? { agent: step.agent, tool: call.name, choice: call.pendingChoice } : undefined;
}

/** Herald's numbered question for a choice, in the reader's language. */
function choiceQuestion(choice: ChoiceRequest, language: TextLanguage): string {
  const [first] = choice.candidates;
  if (choice.weak && first && choice.candidates.length === 1) return say(language, 'choiceDidYouMean', { option: first.label });
  const options = choice.candidates.map((candidate, index) => `${index + 1}) ${candidate.label}`).join('\n');
  return say(language, 'choiceAsk', { options });
}

/**
 * The question a plan asks as kept until answered: one step's choice (numbered by Herald) or
 * clarification (the plan, to resume). When several steps ran at once and asked, their
 * questions are asked together, in plan order, as one clarification: the answer resumes the
 * plan, and the planner reads it against all of them.
 */
export function planQuestion(plan: ExecutionPlan, asking: PlanStep[], request: string, language: TextLanguage, replyLanguage: string): QuestionAsk {
  const [only] = asking;
  if (asking.length !== 1 || !only) {
    const questions = asking.map((step) => {
      const choice = pendingChoice(step);
      return choice ? choiceQuestion(choice.choice, language) : (step.result?.output?.question ?? '');
    });
    return { kind: 'clarification', question: questions.filter(Boolean).join('\n\n'), payload: planSnapshot(plan, request, replyLanguage) };
  }
  const question = only.result?.output?.question ?? '';
  const choice = pendingChoice(only);
  if (choice) {
    return {
      kind: 'choice',
      question: choiceQuestion(choice.choice, language),
      payload: {
        agent: choice.agent,
        tool: choice.tool,
        candidates: choice.choice.candidates.slice(0, 20).map((candidate) => ({ label: candidate.label.slice(0, 300), input: candidate.input })),
        ...(choice.choice.weak && choice.choice.candidates.length === 1 ? { weak: true } : {}),
      },
    };
  }
  return { kind: 'clarification', question, payload: planSnapshot(plan, request, replyLanguage) };
}

/** What is kept of a plan while its question waits: its steps, with finished steps' reports, and what the user first asked. */
export function planSnapshot(plan: ExecutionPlan, request: string, language: string): ClarificationPayload {
  return {
    planId: plan.id,
    goal: plan.goal,
    analysis: plan.analysis,
    ...(plan.responseHint ? { responseHint: plan.responseHint } : {}),
    language,
    version: plan.version,
    request,
    dependencies: 'explicit',
    steps: plan.steps.map((step) => ({
      id: step.id,
      agent: step.agent,
      task: step.task,
      dependsOn: step.dependsOn,
      status: step.status,
      version: step.version,
      ...(step.status === 'completed' && step.result?.output ? { output: keptOutput(step.result.output) } : {}),
      ...(step.status === 'failed' && step.result?.error ? { error: step.result.error.slice(0, 500) } : {}),
    })),
  };
}

/** A finished step's report as kept: the envelope without bulky data. */
function keptOutput(output: AgentOutput): AgentOutput {
  const { data, ...rest } = output;
  const json = data === undefined ? '' : JSON.stringify(data);
  return json.length > 0 && json.length <= 2000 ? { ...rest, data } : rest;
}

/**
 * The steps a resumed plan keeps, rebuilt from what was saved with its question. A plan kept
 * before dependencies were explicit reads as it was meant: a step with an empty `dependsOn`
 * needed every step before it.
 */
export function resumedSteps(resume: ResumedPlan): PlanStep[] {
  const kept = resume.dependencies === 'explicit' ? resume.steps : explicitFromOrdered(resume.steps);
  return kept.map((step) => {
    const output = step.output === undefined ? undefined : anyAgentOutputSchema.safeParse(step.output);
    // The step that asked did not finish its task: the planner plans it again, with the answer.
    const finished = step.status === 'completed' && output?.success === true && !output.data.needsClarification;
    return {
      id: step.id,
      agent: step.agent,
      task: step.task,
      dependsOn: step.dependsOn,
      status: finished ? 'completed' : 'skipped',
      retryCount: 0,
      version: step.version,
      ...(finished && output?.success
        ? { result: { success: true, output: output.data, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, modelCalls: 0, durationMs: 0 } }
        : {}),
    };
  });
}
