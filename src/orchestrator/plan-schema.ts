import { z } from 'zod';

/** One step as the planner writes it. */
const plannedStepSchema = z.object({
  id: z.string().trim().min(1).max(40).describe('Short unique id, e.g. "step_1"'),
  agent: z.string().trim().min(1).max(60).describe('Exactly one agent name from <available_agents>'),
  task: z
    .string()
    .trim()
    .min(1)
    .max(2000)
    .describe('What the agent must do, self-contained, with dates/times already resolved and relevant preferences from memory included'),
  dependsOn: z
    .array(z.string().trim().min(1).max(40))
    .max(10)
    .describe('Ids of the steps whose results this step needs; [] when it needs none (it then runs at once, alongside the other steps that need none)'),
  attachments: z
    .array(z.string())
    .max(10)
    .optional()
    .describe('Ids of the user\'s attachments (a1, a2…) this step\'s agent must see; it sees no other'),
});

/**
 * The plan: the input of the planner's `create_plan` tool. Validated on the way back,
 * so a malformed plan is caught before anything runs.
 */
export const planSchema = z.object({
  analysis: z.string().trim().max(2000).describe('Brief analysis of what the user wants'),
  resolvedValues: z
    .object({
      dates: z.record(z.string(), z.string()).optional(),
      timeRanges: z.record(z.string(), z.unknown()).optional(),
    })
    .catchall(z.unknown())
    .optional()
    .describe('Relative dates/times you resolved, e.g. { "dates": { "friday": "2026-01-30" } }'),
  goal: z.string().trim().min(1).max(500).describe('What the plan accomplishes, in one line'),
  steps: z
    .array(plannedStepSchema)
    .min(1)
    .max(20)
    .describe('The steps, in the order their results should be told; each runs as soon as the steps in its dependsOn have finished'),
  responseHint: z.string().trim().max(1000).optional().describe('How to present the results to the user'),
  language: z
    .string()
    .trim()
    .max(40)
    .optional()
    .describe('The language of the user\'s latest message, in English ("Spanish", "Hebrew"): every reply and question is written in it'),
});

export type PlannedStep = z.infer<typeof plannedStepSchema>;
export type Plan = z.infer<typeof planSchema>;

/**
 * The plan as `create_plan`'s input is read: `dependsOn` is required in the schema the model
 * is shown, and a step that leaves it out anyway (a model that ignored `required`) needs
 * nothing, as an empty list says. Never "every step before it": that was the old reading.
 */
export const planInputSchema = z.preprocess((value) => {
  if (!value || typeof value !== 'object' || !Array.isArray((value as { steps?: unknown }).steps)) return value;
  const plan = value as { steps: unknown[] };
  return { ...plan, steps: plan.steps.map((step) => (step && typeof step === 'object' && (step as { dependsOn?: unknown }).dependsOn == null ? { ...step, dependsOn: [] } : step)) };
}, planSchema);

/** An item an agent says it created, changed or deleted. */
const changedItemSchema = z.object({
  id: z.string().optional(),
  description: z.string().max(500),
});

/**
 * What every sub-agent reports when it finishes (the input of its `complete_step` tool).
 * Agents add their own `data`; the envelope is what the orchestrator acts on.
 */
export function agentOutputSchema<Data extends z.ZodType>(data: Data) {
  return z.object({
    summary: z.string().trim().min(1).max(2000).describe('What you did and found, factually, for the orchestrator'),
    reply: z
      .string()
      .trim()
      .max(1600)
      .optional()
      .describe('Only if asked to write the reply: a short message for the user, in their language'),
    data: data.optional(),
    created: z.array(changedItemSchema).optional().describe('Items you created in THIS step (each one a successful tool call)'),
    updated: z.array(changedItemSchema).optional().describe('Items you changed in THIS step'),
    deleted: z.array(changedItemSchema).optional().describe('Items you deleted in THIS step'),
    isEmpty: z.boolean().optional().describe('True when a lookup found nothing'),
    needsReplan: z.boolean().optional().describe('True when the plan cannot work as written'),
    replanReason: z.string().max(500).optional(),
    needsClarification: z.boolean().optional().describe('True when you cannot proceed without asking the user'),
    // Trimmed: a blank question is no question (asking it would send the user an empty text).
    question: z.string().trim().max(500).optional().describe('The one clear question to ask the user'),
  });
}

/** The envelope with untyped data, as the executor reads any agent's output. */
export const anyAgentOutputSchema = agentOutputSchema(z.unknown());
export type AgentOutput = z.infer<typeof anyAgentOutputSchema>;
