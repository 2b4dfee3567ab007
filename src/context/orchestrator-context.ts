import { z } from 'zod';
import { clarificationPayloadSchema } from '../questions/pending-question.js';

/** A saved fact about the user, as the orchestrator reads it. */
export const factSchema = z.object({
  id: z.string(),
  category: z.string(),
  content: z.string(),
});

/** One message of the conversation window. */
export const historyMessageSchema = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  createdAt: z.date(),
});

/** The user's settings every agent receives (FR-9, CTX-3). */
export const userContextSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  timezone: z.string(),
  language: z.string().nullable(),
  /**
   * Onboarding is still open: Herald knows no name for them and the model has not answered
   * them yet (the context assembler decides; see ContextAssembler).
   */
  isNew: z.boolean(),
});

/** What the user's message is about, when Herald can tell (src/conversation/conversation-subject.ts). */
export const subjectSchema = z.discriminatedUnion('kind', [
  /** A reminder Herald delivered: "move it to 6" means this one. */
  z.object({ kind: z.literal('reminder'), reminderId: z.string(), dueAt: z.date().nullable(), text: z.string(), message: z.string(), sentAt: z.date(), quoted: z.boolean() }),
  /** One of Herald's messages the user quoted (WhatsApp). */
  z.object({ kind: z.literal('message'), message: z.string(), sentAt: z.date(), quoted: z.literal(true) }),
]);

/** A plan that asked the user a question, resumed with their answer: its finished steps are kept, not run again. */
export const resumedPlanSchema = clarificationPayloadSchema.extend({ question: z.string() });

/**
 * Everything the orchestrator gets for one turn: assembled from Postgres by the
 * context assembler, independent of HTTP and Twilio.
 */
export const orchestratorContextSchema = z.object({
  turnId: z.string(),
  user: userContextSchema,
  channel: z.enum(['sms', 'whatsapp']),
  facts: z.array(factSchema),
  /** The sliding window, oldest first, not including the message being answered. */
  history: z.array(historyMessageSchema),
  /** What the user just said (a quick burst of texts is merged into one). */
  message: z.object({
    text: z.string(),
    messageIds: z.array(z.string()).min(1),
    /** Attachments Herald cannot read yet (photos, voice notes). */
    attachments: z.number().int().min(0),
    /** Set when the text was longer than TURN_MAX_MESSAGE_TOKENS and was cut: characters kept and received. */
    cut: z.object({ kept: z.number().int(), total: z.number().int() }).optional(),
  }),
  /** What the message replies to: a quoted message, a reminder just delivered. */
  subject: subjectSchema.optional(),
  /** The plan whose question this message answers. */
  resume: resumedPlanSchema.optional(),
});

export type Fact = z.infer<typeof factSchema>;
export type HistoryMessage = z.infer<typeof historyMessageSchema>;
export type UserContext = z.infer<typeof userContextSchema>;
export type OrchestratorContext = z.infer<typeof orchestratorContextSchema>;
export type ConversationSubject = z.infer<typeof subjectSchema>;
export type ResumedPlan = z.infer<typeof resumedPlanSchema>;
