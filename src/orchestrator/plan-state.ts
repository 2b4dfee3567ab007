import type { TokenUsage, WebSource } from '../model/model-client.js';
import type { ErrorBlame } from '../shared/errors.js';
import type { ToolCallRecord } from '../agents/tool-loop.js';
import type { AgentOutput } from './plan-schema.js';
import { transitiveDependencies } from './plan-graph.js';

/** Where a step is (seed 000 "Plan Step States"), plus `skipped` for steps never reached. */
type StepStatus = 'pending' | 'running' | 'completed' | 'failed' | 'skipped';

/** A step's outcome. */
export interface StepResult {
  success: boolean;
  output?: AgentOutput;
  error?: string;
  errorKind?: ErrorBlame | 'verification' | 'stalled' | 'invalid_input';
  toolCalls: ToolCallRecord[];
  usage: TokenUsage;
  modelCalls: number;
  durationMs: number;
  /** Web pages the agent's text cited (web search), for the reply's source link. */
  sources?: WebSource[];
}

/** A step in the running plan. */
export interface PlanStep {
  id: string;
  agent: string;
  task: string;
  dependsOn: string[];
  /** The user's attachments (ids) the step's agent is shown; it sees no others. */
  attachments?: string[];
  status: StepStatus;
  retryCount: number;
  /** Which plan version added it. */
  version: number;
  result?: StepResult;
}

/** The plan being executed (seed 000 ExecutionPlan). */
export interface ExecutionPlan {
  id: string;
  goal: string;
  analysis: string;
  responseHint?: string | undefined;
  /** The language replies are written in, as the planner named it. */
  language?: string | undefined;
  steps: PlanStep[];
  status: 'executing' | 'replanning' | 'completed' | 'failed' | 'timed_out' | 'needs_clarification';
  /** 1 for the first plan; +1 per replan. */
  version: number;
  errors: Array<{ stepId: string; error: string }>;
  createdAt: Date;
}

/**
 * The outputs a step is given (FR-5, CTX-5): those of the completed steps it depends on,
 * directly or through other steps, in plan order. Never a step it does not depend on, so
 * what a step sees does not hang on which of its independent neighbours finished first.
 */
export function outputsFor(plan: ExecutionPlan, step: PlanStep): Array<{ stepId: string; agent: string; output: AgentOutput }> {
  const needed = transitiveDependencies(plan.steps, step);
  return completedOutputs(plan).filter((previous) => needed.has(previous.stepId));
}

/** Completed steps' outputs by step id (FR-5, CTX-5). */
export function completedOutputs(plan: ExecutionPlan): Array<{ stepId: string; agent: string; output: AgentOutput }> {
  return plan.steps.flatMap((step) =>
    step.status === 'completed' && step.result?.output ? [{ stepId: step.id, agent: step.agent, output: step.result.output }] : [],
  );
}
