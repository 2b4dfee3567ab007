import type { ModelUsageLine } from '../model/counting-model.js';
import { roundUsd } from '../model/model-cost.js';
import type { MessageKind, Prisma } from '../generated/prisma/client.js';
import type { QuestionAsk } from '../questions/pending-question.js';
import type { ButtonTemplate } from '../outbox/one-tap.js';

/** What a turn decided: a reply (from a keyword, a command, a confirmation or the model) and what it cost. */
export interface TurnOutcome {
  reply?: string;
  status: 'succeeded' | 'failed';
  errorKind?: string;
  errorMessage?: string;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  costUsd?: number;
  /** Per model that answered: calls, tokens, cost. */
  models?: ModelUsageLine[];
  /** Inbound messages deliberately left unanswered (an opted-out user, a spent budget). */
  ignored?: boolean;
  /** Questions the reply asks (a YES for held actions, a "Which one?", a clarification), kept until answered. */
  questions?: QuestionAsk[];
  /** The questions' short ids, chosen before the commit because the reply's buttons carry them. */
  questionShortIds?: string[];
  /** The reply goes as a content with buttons (WhatsApp inside the window, RCS) instead of plain text. */
  buttons?: ButtonTemplate;
  /**
   * Changes that belong to the answer itself (a snooze's new reminder): made inside the
   * turn's commit, so a crash leaves them undone with the message still pending, and the
   * turn that runs again makes them once.
   */
  effects?: Array<(transaction: Prisma.TransactionClient) => Promise<void>>;
  /** What the reply is, for the conversation (default chat). */
  replyKind?: MessageKind;
  /** An action ran that may have erased the user (DELETE MY DATA's YES): check before writing anything of theirs. */
  mayHaveErased?: boolean;
  /** Web searches the model ran (billed per search, included in costUsd). */
  webSearches?: number;
  /** Seconds of voice notes transcribed (billed per minute, included in costUsd). */
  transcriptionSeconds?: number;
  /** Runs once the turn is committed (deleting its media from Twilio); never throws. */
  afterCommit?: () => Promise<void>;
}

/** An outcome decided without calling a model. */
export function withoutModel(fields: Omit<TurnOutcome, 'status' | 'modelCalls' | 'inputTokens' | 'outputTokens'> & { status?: TurnOutcome['status'] } = {}): TurnOutcome {
  return { status: 'succeeded', modelCalls: 0, inputTokens: 0, outputTokens: 0, ...fields };
}

/** The usage columns of the Turn row and the `turn_finished` event: tokens, cost, per model. */
export function outcomeUsage(outcome: TurnOutcome) {
  return {
    modelCalls: outcome.modelCalls,
    inputTokens: outcome.inputTokens,
    outputTokens: outcome.outputTokens,
    cacheReadTokens: outcome.cacheReadTokens ?? 0,
    cacheWriteTokens: outcome.cacheWriteTokens ?? 0,
    costUsd: roundUsd(outcome.costUsd ?? 0),
    webSearches: outcome.webSearches ?? 0,
    transcriptionSeconds: outcome.transcriptionSeconds ?? 0,
  };
}

/** A model's usage line as stored on the turn and logged: flat, cost rounded to micro-dollars. */
export function modelLineJson(line: ModelUsageLine) {
  return { model: line.model, calls: line.calls, ...line.usage, costUsd: roundUsd(line.costUsd) };
}
