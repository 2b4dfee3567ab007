import type { AgentDefinition } from '../agents/agent-definition.js';
import type { TurnAttachment, UserContext } from '../context/orchestrator-context.js';
import type { AgentOutput } from './plan-schema.js';
import type { PlanStep } from './plan-state.js';
import type { StepReply } from './reply-parts.js';

/** One attempt at one step. */
export interface StepAttempt {
  step: PlanStep;
  agent: AgentDefinition;
  user: UserContext;
  /** The language the user wrote in, for any reply the agent writes. */
  replyLanguage: string;
  previousOutputs: Array<{ stepId: string; agent: string; output: AgentOutput }>;
  /** Phoenix retry: a short account of the failed attempt instead of its transcript. */
  previousAttempt?: string | undefined;
  /** Ask the agent to write the user-facing reply: all of it (a one-step plan) or its part (see reply-parts.ts). */
  reply?: StepReply;
  signal: AbortSignal;
  /** The user's photos and PDFs the planner gave this step (and no others). */
  attachments?: TurnAttachment[];
  /** An earlier step's output (mail) in the task carries outside text: no web fetch. */
  untrustedTextSeen?: boolean;
}
