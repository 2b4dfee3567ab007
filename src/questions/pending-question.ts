import { z } from 'zod';
import { pendingActionSchema, type ConfirmationAsk } from './pending-action.js';

/** One candidate of a choice: how the user tells it, and the call's arguments pinned to it. */
const choiceCandidateSchema = z.object({
  label: z.string().min(1).max(300),
  input: z.unknown(),
});

/** A confirmation: the held actions YES runs, in order. */
export const confirmationPayloadSchema = z.object({ actions: z.array(pendingActionSchema).min(1) });

/** A choice: the call (agent and tool) to run on the candidate(s) the answer picks. */
export const choicePayloadSchema = z.object({
  agent: z.string(),
  tool: z.string(),
  candidates: z.array(choiceCandidateSchema).min(1).max(20),
  /** One loose match, asked as "Did you mean …?": YES picks it. */
  weak: z.boolean().optional(),
  /** An answer that fit no candidate was already asked again once. */
  askedAgain: z.boolean().optional(),
});

/** One step of the plan a clarification belongs to, as kept while it waits. */
const keptStepSchema = z.object({
  id: z.string(),
  agent: z.string(),
  task: z.string(),
  dependsOn: z.array(z.string()),
  status: z.enum(['pending', 'running', 'completed', 'failed', 'skipped']),
  version: z.number().int(),
  /** A completed step's report (its summary, data, what it changed). */
  output: z.unknown().optional(),
  error: z.string().optional(),
});

/** A clarification: the plan that asked, to resume with the answer (its finished steps are not run again). */
export const clarificationPayloadSchema = z.object({
  planId: z.string(),
  goal: z.string(),
  analysis: z.string(),
  responseHint: z.string().optional(),
  language: z.string().optional(),
  version: z.number().int(),
  steps: z.array(keptStepSchema),
  /**
   * How the steps' `dependsOn` reads: "explicit" (an empty list needs nothing). Absent: a plan
   * kept before dependencies were explicit, whose empty list meant every step before it
   * (src/orchestrator/plan-questions.ts reads it so).
   */
  dependencies: z.literal('explicit').optional(),
  /** What the user first asked (the answer alone may not say it). */
  request: z.string(),
});

export type ChoicePayload = z.infer<typeof choicePayloadSchema>;
type ConfirmationPayload = z.infer<typeof confirmationPayloadSchema>;
export type ClarificationPayload = z.infer<typeof clarificationPayloadSchema>;

/** A question a turn's reply asks, to be kept until answered (or it expires). */
export type QuestionAsk =
  | { kind: 'confirmation'; question: string; payload: ConfirmationPayload }
  | { kind: 'choice'; question: string; payload: ChoicePayload }
  | { kind: 'clarification'; question: string; payload: ClarificationPayload };

/** Held actions asked about for YES, as the question to keep. */
export function confirmationQuestion(ask: ConfirmationAsk): QuestionAsk {
  return { kind: 'confirmation', question: ask.question, payload: { actions: ask.actions } };
}
