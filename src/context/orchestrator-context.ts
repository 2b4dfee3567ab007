import { z } from 'zod';
import { clarificationPayloadSchema } from '../questions/pending-question.js';

/** A saved fact about the user, as the orchestrator reads it. */
const factSchema = z.object({
  id: z.string(),
  category: z.string(),
  content: z.string(),
});

/** One message of the conversation window. */
const historyMessageSchema = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  createdAt: z.date(),
  /** The user spoke it (a voice note Herald transcribed). */
  transcribed: z.boolean().optional(),
  /** Attachments the user sent with it (read in their own turn, never kept). */
  attachments: z.number().int().optional(),
});

/**
 * A photo or PDF of this turn, ready for the model (src/media downloaded, checked and
 * downscaled it). The bytes live in memory for this turn only.
 */
const turnAttachmentSchema = z.object({
  /** "a1", "a2"…: how the planner hands an attachment to a step. */
  id: z.string(),
  kind: z.enum(['photo', 'pdf']),
  mediaType: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'application/pdf']),
  /** Base64. */
  data: z.string(),
  /** What the model is told it is: "photo", "PDF (3 pages)". */
  label: z.string(),
});

/** The user's settings every agent receives (FR-9, CTX-3). */
const userContextSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  timezone: z.string(),
  language: z.string().nullable(),
  /** The country of the user's number (ISO 3166-1 alpha-2), when it has one: localises web search. */
  country: z.string().length(2).nullable().optional(),
  /**
   * Onboarding is still open: Herald knows no name for them and the model has not answered
   * them yet (the context assembler decides; see ContextAssembler).
   */
  isNew: z.boolean(),
  /** A trip with a return date (src/reminders/travel-trips.ts): the zone goes back to `homeTimezone` after `returnOn`. */
  trip: z.object({ homeTimezone: z.string(), returnOn: z.string() }).optional(),
});

/** What the user's message is about, when Herald can tell (src/conversation/conversation-subject.ts). */
const subjectSchema = z.discriminatedUnion('kind', [
  /** A reminder Herald delivered: "move it to 6" means this one. */
  z.object({ kind: z.literal('reminder'), reminderId: z.string(), dueAt: z.date().nullable(), text: z.string(), message: z.string(), sentAt: z.date(), quoted: z.boolean() }),
  /** One of Herald's messages the user quoted (WhatsApp). */
  z.object({ kind: z.literal('message'), message: z.string(), sentAt: z.date(), quoted: z.literal(true) }),
]);

/** A plan that asked the user a question, resumed with their answer: its finished steps are kept, not run again. */
const resumedPlanSchema = clarificationPayloadSchema.extend({ question: z.string() });

/**
 * Everything the orchestrator gets for one turn: assembled from Postgres by the
 * context assembler, independent of HTTP and Twilio.
 */
// The schema is the type's source (and its fields' documentation); nothing parses with it.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
const orchestratorContextSchema = z.object({
  turnId: z.string(),
  user: userContextSchema,
  channel: z.enum(['sms', 'whatsapp', 'rcs']),
  facts: z.array(factSchema),
  /** The sliding window, oldest first, not including the message being answered. */
  history: z.array(historyMessageSchema),
  /** What the user just said (a quick burst of texts is merged into one). */
  message: z.object({
    text: z.string(),
    /** The words whose language the reply follows, when not all of `text`: a routine run's instruction, not its English framing. */
    languageText: z.string().optional(),
    messageIds: z.array(z.string()).min(1),
    /** Attachments Herald could not read (and no note below explains). */
    attachments: z.number().int().min(0),
    /**
     * The message as typed and spoken parts, when any of it is a voice note's transcript: the
     * model is shown the spoken parts framed as such. `text` is all of it, plain.
     */
    parts: z.array(z.object({ text: z.string(), spoken: z.boolean() })).optional(),
    /** Photos and PDFs the model sees with the message (the planner; a step only those it is given). */
    media: z.array(turnAttachmentSchema).optional(),
    /** A shared location pin, as one line for the planner. */
    location: z.string().optional(),
    /** What became of attachments the model does not see (refused, failed), for it to know. */
    mediaNotes: z.array(z.string()).optional(),
    /** Set when the text was longer than TURN_MAX_MESSAGE_TOKENS and was cut: characters kept and received. */
    cut: z.object({ kept: z.number().int(), total: z.number().int() }).optional(),
  }),
  /** What the message replies to: a quoted message, a reminder just delivered. */
  subject: subjectSchema.optional(),
  /** The plan whose question this message answers. */
  resume: resumedPlanSchema.optional(),
});

export type Fact = z.infer<typeof factSchema>;
export type TurnAttachment = z.infer<typeof turnAttachmentSchema>;
export type HistoryMessage = z.infer<typeof historyMessageSchema>;
export type UserContext = z.infer<typeof userContextSchema>;
export type OrchestratorContext = z.infer<typeof orchestratorContextSchema>;
export type ConversationSubject = z.infer<typeof subjectSchema>;
export type ResumedPlan = z.infer<typeof resumedPlanSchema>;
