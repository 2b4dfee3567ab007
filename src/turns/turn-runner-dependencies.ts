import type { Channel } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { ContextAssembler } from '../context/context-assembler.js';
import type { OrchestratorContext } from '../context/orchestrator-context.js';
import type { ConversationSubjects } from '../conversation/conversation-subject.js';
import type { Logger } from '../logging/logger.js';
import type { OrchestratorResult } from '../orchestrator/orchestrate.js';
import type { OutboxService } from '../outbox/outbox-service.js';
import type { OneTap } from '../outbox/one-tap.js';
import type { PendingQuestions } from '../questions/pending-questions.js';
import type { Clock } from '../shared/clock.js';
import type { QuietHours } from '../users/quiet-hours.js';
import type { ReminderTravel } from '../reminders/reminder-travel.js';
import type { ZoneStatement } from '../timezones/zone-statement.js';
import type { UserService } from '../users/user-service.js';
import type { BudgetGuard } from '../budgets/budget-guard.js';
import type { TurnMedia } from '../media/turn-media.js';
import type { Tracing } from '../observability/tracing.js';
import type { TurnOutcomeLabel } from '../observability/metrics.js';
import type { HeldRoutineRuns } from '../routines/held-routine-runs.js';
import type { TurnAnswer } from './answers/turn-answer.js';
import type { TurnCommands } from './turn-commands.js';
import type { LongReplies } from './long-replies.js';
import type { TypingIndicators } from './typing-indicator.js';

// What the turn runner (turn-runner.ts) is built from, and what it tells of each turn's end.

/** Runs the orchestrator for a context; injected so tests and benchmarks can swap it. */
export type Orchestrate = (
  context: OrchestratorContext,
  options: { signal: AbortSignal; onProgress: (text: string) => Promise<void> },
) => Promise<OrchestratorResult>;

/** What a turn needs. */
export interface TurnRunnerDependencies {
  prisma: PrismaClient;
  users: UserService;
  outbox: OutboxService;
  assembler: ContextAssembler;
  orchestrate: Orchestrate;
  /** The questions Herald waits on: staged with the reply that asks them, read by the answers below. */
  questions: PendingQuestions;
  /**
   * The answers that need no model (src/turns/answers), tried in order before the
   * orchestrator: the first that answers the message ends the turn.
   */
  answers: TurnAnswer[];
  /** What a reply is about (a quoted message, a reminder just delivered): shown to the planner. */
  subjects?: ConversationSubjects;
  clock: Clock;
  logger: Logger;
  /** MY DATA, DELETE MY DATA and owners' admin commands (src/turns/turn-commands.ts); absent: none. */
  commands?: TurnCommands;
  /** Daily model budgets; absent: no limit. `notifyOwners` texts the owners (once a day, when the deployment's is spent). */
  budgets?: { guard: BudgetGuard; notifyOwners(text: string): Promise<void> };
  /** Attachments, voice notes and location pins (src/media); absent: they are only counted. */
  media?: TurnMedia;
  /** Traces each turn (continuing its first message's webhook trace) and its context assembly; absent: none. */
  tracing?: Tracing;
  /** Replies too long for one message become a lead and a page (src/turns/long-replies.ts); absent: the outbox caps them. */
  longReplies?: LongReplies;
  /** Told how each turn ended (metrics); absent: nobody. */
  onTurnEnd?: (event: TurnEnd) => void;
  /** Background fact learning: each turn schedules a pass for when the conversation pauses; absent: none. */
  learning?: { schedule(userId: string): Promise<void> };
  /** After a turn that set something at a time, the zone it is in while the user's zone is only a guess (src/timezones). */
  zoneStatement?: Pick<ZoneStatement, 'lineFor'>;
  /** After a turn that changed the user's time zone: the question whether repeating reminders move too (src/reminders/reminder-travel.ts). */
  travel?: Pick<ReminderTravel, 'questionAfter'>;
  /** The user's quiet hours (src/users/quiet-hours.ts): no "on it" message inside them; absent: none. */
  quietHours?: Pick<QuietHours, 'isQuiet'>;
  /** Confirmations and choices as buttons where the channel has them (src/outbox/one-tap.ts); absent: text only. */
  oneTap?: OneTap;
  /** WhatsApp's "typing…" while the model works (src/turns/typing-indicator.ts); absent: none. */
  typing?: TypingIndicators;
  /** Routine runs held for the WhatsApp window: the user's message releases them (src/routines/held-routine-runs.ts); absent: none. */
  heldRoutineRuns?: HeldRoutineRuns;
}

/** How a turn ended, for metrics: never its text or its user. */
export interface TurnEnd {
  turnId: string;
  channel: Channel;
  outcome: TurnOutcomeLabel;
  /** When the webhook received the turn's first message. */
  receivedAt: Date;
}
