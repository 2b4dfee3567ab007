import type { Channel, Message } from '../generated/prisma/client.js';
import { ABANDONED_TURN_MESSAGE } from './turn-recovery.js';
import { detectKeyword } from '../channels/keywords.js';
import type { ResumedPlan } from '../context/context-assembler.js';
import type { Logger } from '../logging/logger.js';
import { fallbackReply } from '../texts/fallback-replies.js';
import { addressFor } from '../outbox/outbound-draft.js';
import { clarificationPayloadSchema } from '../questions/pending-question.js';
import { blameOf, describeError } from '../shared/errors.js';
import { estimateTokens } from '../shared/tokens.js';
import { detectLanguage } from '../texts/text-language.js';
import { readerLanguage } from '../texts/texts.js';
import { confirmationQuestion } from '../questions/pending-question.js';
import type { UserConfig } from '../users/user-service.js';
import { cutNote } from '../context/message-cap.js';
import { budgetReplies } from '../budgets/budget-replies.js';
import { confirmationAnswer } from '../questions/confirmation-words.js';
import type { IncomingTurn, LatestQuestion } from './answers/turn-answer.js';
import { commitTurn, TurnInterrupted, type LeaseFence } from './turn-commit.js';
import { TurnMedia } from '../media/turn-media.js';
import { answerWithoutModel, mediaForContext, withMedia } from './media-outcome.js';
import { modelLineJson, outcomeUsage, withoutModel, type TurnOutcome } from './turn-outcome.js';
import { noopTracing } from '../observability/tracing.js';
import { OneTap } from '../outbox/one-tap.js';
import type { TypingSession } from './typing-indicator.js';

/** WhatsApp's free-form window: 24 hours from the user's last message. */
const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;

export { TurnInterrupted, type LeaseFence } from './turn-commit.js';
import type { TurnRunnerDependencies } from './turn-runner-dependencies.js';

/**
 * Answers one turn: the user's next pending message, or a quick burst of them. The answers
 * that need no model (keywords, commands, YES/NO, a number for "which one?", snooze/done
 * after a reminder) are tried in order; everything else goes through the orchestrator,
 * resuming the plan a pending clarification belongs to. The reply, the outbound parts and
 * the inbound messages' new status commit in one transaction, so a crash leaves either
 * nothing (the turn runs again) or everything (the outbox delivers it).
 */
export class TurnRunner {
  constructor(private readonly deps: TurnRunnerDependencies) {}

  /** Pending inbound messages for the user, in arrival order. */
  async pendingMessages(userId: string): Promise<Message[]> {
    return this.deps.prisma.message.findMany({
      where: { userId, role: 'user', inboundStatus: 'pending' },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
  }

  /**
   * Runs one turn over the leading messages of `pending` and returns how many it consumed.
   * A keyword or command message is a turn of its own; consecutive ordinary messages are merged.
   */
  async runNext(userId: string, pending: Message[], signal: AbortSignal, fence?: LeaseFence): Promise<number> {
    const user = await this.deps.users.getConfig(userId);
    if (!user) throw new Error(`user ${userId} vanished`);
    const first = pending[0];
    if (!first) return 0;
    const keywordOf = (message: Message) => detectKeyword(message.content, { optedOut: user.optedOut, channel: message.channel });
    const keyword = keywordOf(first);
    const command = keyword ? undefined : this.deps.commands?.detect(first.content, user);
    const isCommand = (message: Message) => Boolean(keywordOf(message) ?? this.deps.commands?.detect(message.content, user));
    const batch = keyword || command ? [first] : takeWhile(pending, (message) => !isCommand(message));
    const latest = batch[batch.length - 1]!;
    const channel: Channel = latest.channel;
    // This worker holds the user's lease, so any turn of theirs still "running" was left by
    // a worker that died (its lease lapsed and was taken over): close it.
    await this.deps.prisma.turn.updateMany({
      where: { userId, status: 'running' },
      data: { status: 'failed', errorKind: 'interrupted', errorMessage: ABANDONED_TURN_MESSAGE, finishedAt: this.deps.clock.now() },
    });
    // One trace per turn, continuing the webhook's: on another instance after a crash too.
    const traceParent = batch.find((message) => message.traceContext)?.traceContext ?? null;
    return (this.deps.tracing ?? noopTracing).span('herald.turn', { parent: traceParent, attributes: { 'herald.channel': channel, 'herald.turn.messages': batch.length, 'herald.turn.kind': keyword ? 'keyword' : command ? 'command' : 'message' } }, async (span) => {
      const turn = await this.deps.prisma.turn.create({ data: { userId, startedAt: this.deps.clock.now() }, select: { id: true } });
      span.setAttributes({ 'herald.turn.id': turn.id });
      const logger = this.deps.logger.child({ turnId: turn.id, userId, messages: batch.length, channel });
      logger.info({ keyword, command: command?.name, messageIds: batch.map((message) => message.id) }, 'turn started');

      const text = answerText(batch);
      let questions: Promise<LatestQuestion[]> | undefined;
      const incoming: IncomingTurn = {
        turnId: turn.id,
        user,
        batch,
        latest,
        channel,
        text,
        keyword,
        command,
        carriesMedia: Boolean(this.deps.media) && batch.some((message) => TurnMedia.carriesMedia(message)),
        language: readerLanguage(user.language, text),
        logger,
        questions: () => (questions ??= this.deps.questions.latest(userId)),
      };
      try {
        await this.complete(incoming, signal, fence);
      } catch (error) {
        // The turn did not finish (shutdown, or a failure the job will retry): close its row
        // so it does not stay "running" forever. Its messages keep no link to it and stay
        // pending for the next turn.
        const interrupted = error instanceof TurnInterrupted;
        this.deps.onTurnEnd?.({ turnId: turn.id, channel, outcome: 'recovery', receivedAt: batch[0]!.createdAt });
        await this.deps.prisma.turn
          .update({
            where: { id: turn.id },
            data: {
              status: 'failed',
              errorKind: interrupted ? 'interrupted' : blameOf(error),
              errorMessage: (interrupted ? `interrupted (${error.message}); its messages stay pending` : describeError(error)).slice(0, 1000),
              finishedAt: this.deps.clock.now(),
            },
          })
          .catch((closeError: unknown) => logger.warn({ error: describeError(closeError) }, 'could not close the unfinished turn'));
        throw error;
      }
      return batch.length;
    });
  }

  /** Decides the turn's outcome and commits it: reply, outbound parts, questions, message statuses, turn row. */
  private async complete(turn: IncomingTurn, signal: AbortSignal, fence: LeaseFence | undefined): Promise<void> {
    const { user, logger, channel } = turn;
    let outcome: TurnOutcome | undefined;
    let answeredBy = 'orchestrator';
    for (const candidate of this.deps.answers) {
      outcome = await candidate.answer(turn);
      if (outcome) {
        answeredBy = candidate.name;
        break;
      }
    }
    if (outcome?.mayHaveErased && !(await this.deps.users.getConfig(user.id))) {
      // The YES erased the user (DELETE MY DATA): nothing of theirs may be written again.
      await this.farewell(user, turn.latest, outcome.reply ?? '', logger);
      return;
    }
    if (!outcome) {
      const spent = await this.overBudget(user, logger);
      if (spent) answeredBy = 'budget';
      outcome = spent ?? (await this.answer(turn, signal));
    }
    if (signal.aborted) throw interruption(signal);
    if (this.deps.travel && outcome.reply && !outcome.questions?.length) {
      // The turn moved the user to another zone: asked once, here, whether repeating reminders follow.
      const ask = await this.deps.travel.questionAfter(user.id, user.timezone, turn.language);
      if (ask) outcome = { ...outcome, reply: `${outcome.reply}\n\n${ask.question}`, questions: [confirmationQuestion(ask)] };
    }
    if (outcome.reply && this.deps.longReplies) {
      // A question the user must answer by text (a confirmation, a choice) stays in the text, last.
      const reply = outcome.reply;
      const asked = (outcome.questions ?? []).map((ask) => reply.lastIndexOf(ask.question)).filter((index) => index >= 0);
      const tail = asked.length > 0 ? reply.slice(Math.min(...asked)) : undefined;
      // The link's line is in the answer's own language (the model writes in the user's latest one).
      const language = readerLanguage(turn.language, reply.slice(0, 1_000));
      outcome = { ...outcome, reply: await this.deps.longReplies.fit(reply, { userId: user.id, timezone: user.timezone, language, channel }, tail) };
    }
    outcome = await this.withButtons(turn, outcome);

    // What the user writes to the model in is their language from now on (the default for
    // texts with no words, and for reminders); command words ("snooze", "yes", "2") say nothing of it.
    const written = answeredBy === 'orchestrator' ? detectLanguage(turn.text) : undefined;
    await commitTurn(this.deps, { turnId: turn.turnId, user, batch: turn.batch, keyword: turn.keyword, outcome, fence, ...(written && written !== user.language ? { language: written } : {}) });
    // A learning pass once the conversation pauses (src/learning); a lost one only means nothing
    // learned from these messages until the user's next turn.
    await this.deps.learning?.schedule(user.id).catch((error: unknown) => logger.warn({ error: describeError(error) }, 'could not schedule fact learning'));
    this.deps.onTurnEnd?.({
      turnId: turn.turnId,
      channel,
      outcome: answeredBy === 'budget' ? 'refused_budget' : !outcome.reply ? 'ignored' : outcome.status === 'failed' ? 'apology' : 'replied',
      receivedAt: turn.batch[0]!.createdAt,
    });
    // Only once the answer is safe: a turn that runs again still finds its media at Twilio.
    await outcome.afterCommit?.().catch((error: unknown) => logger.warn({ error: describeError(error) }, 'could not release the turn\'s media'));
    logger.info(
      {
        event: 'turn_finished',
        answeredBy,
        status: outcome.status,
        errorKind: outcome.errorKind,
        replied: Boolean(outcome.reply),
        ...outcomeUsage(outcome),
        models: (outcome.models ?? []).map(modelLineJson),
      },
      'turn finished',
    );
  }

  /**
   * A reply that asks a confirmation or a choice, on a channel with buttons (RCS; WhatsApp
   * inside the 24-hour window the user's message opened), goes as a content with YES/NO
   * quick replies or a list picker. The questions' short ids are chosen now, for the buttons
   * to carry; a Content API failure leaves the text form, in this same turn.
   */
  private async withButtons(turn: IncomingTurn, outcome: TurnOutcome): Promise<TurnOutcome> {
    const asks = outcome.questions ?? [];
    if (!this.deps.oneTap || !outcome.reply || !asks.some((ask) => ask.kind === 'confirmation' || ask.kind === 'choice')) return outcome;
    const windowOpen = this.deps.clock.now().getTime() - turn.latest.createdAt.getTime() < WHATSAPP_WINDOW_MS;
    if (!OneTap.available(turn.channel, windowOpen)) return outcome;
    const shortIds = asks.map(() => this.deps.questions.newShortId());
    const language = readerLanguage(turn.language, outcome.reply.slice(0, 1_000));
    const buttons = await this.deps.oneTap.template({ channel: turn.channel, reply: outcome.reply, asks, shortIds, language });
    return { ...outcome, questionShortIds: shortIds, ...(buttons ? { buttons } : {}) };
  }

  /** The orchestrator's answer; a pending clarification's plan is resumed with this message as the answer. */
  private async answer(turn: IncomingTurn, signal: AbortSignal): Promise<TurnOutcome> {
    const { user, batch, logger } = turn;
    const started = this.deps.clock.now();
    let media: Awaited<ReturnType<TurnRunner['prepareMedia']>> | undefined;
    let typing: TypingSession | undefined;
    try {
      media = turn.carriesMedia ? await this.prepareMedia(turn, signal) : undefined;
      const typed = batch.map((message) => message.content).join(' ');
      const early = media && answerWithoutModel(media.prepared, media.user, typed);
      if (early) return early;
      // The model will be called: WhatsApp shows "typing…" until the reply or the progress message.
      typing = this.deps.typing?.start(turn.latest, logger);
      const resumed = await this.resumable(turn);
      const [context, subject] = await Promise.all([
        (this.deps.tracing ?? noopTracing).span('herald.context', {}, () =>
          this.deps.assembler.assemble({
            turnId: turn.turnId,
            userId: user.id,
            channel: turn.channel,
            messages: batch.map((message) => ({ id: message.id, content: message.content, numMedia: message.numMedia })),
            ...(resumed ? { resume: resumed.plan } : {}),
            ...(media ? { media: mediaForContext(media.prepared) } : {}),
          }),
        ),
        this.deps.subjects?.of(user.id, turn.latest),
      ]);
      if (subject) context.subject = subject;
      // Quiet hours hold progress messages; the reply comes before they end, so a held one is never sent.
      const onProgress = async (text: string) => {
        typing?.stop();
        if (this.deps.quietHours?.isQuiet(user, this.deps.clock.now())) {
          logger.info({ event: 'progress_held', reason: 'quiet_hours' }, 'quiet hours: no progress message');
          return;
        }
        await this.sendProgress(turn.turnId, user.id, turn.channel, turn.latest, text);
      };
      const result = await this.deps.orchestrate(context, { signal, onProgress });
      typing?.stop();
      // The model saw only the beginning of a very long message: say so, whatever it answered.
      const cut = context.message.cut;
      // A reminder set on a zone Herald only guessed says which zone (src/timezones), whatever the model wrote.
      const zoneLine = await this.deps.zoneStatement?.lineFor(user, started, turn.language);
      const reply = [result.reply, cut ? cutNote(cut, context.user.language, context.message.text) : undefined, zoneLine].filter(Boolean).join('\n\n');
      const outcome: TurnOutcome = {
        reply,
        status: result.status,
        ...(result.failure ? { errorKind: result.failure.blame, errorMessage: result.failure.message } : {}),
        modelCalls: result.modelCalls,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        cacheReadTokens: result.usage.cacheReadTokens,
        cacheWriteTokens: result.usage.cacheWriteTokens,
        costUsd: result.costUsd,
        models: result.usageByModel,
        ...(result.questions && result.questions.length > 0 ? { questions: result.questions } : {}),
        ...(resumed ? { effects: [async (transaction) => void (await this.deps.questions.finish({ id: resumed.id, kind: 'clarification' }, { resumedBy: turn.latest.id }, true, transaction))] } : {}),
        ...(result.usage.webSearches ? { webSearches: result.usage.webSearches } : {}),
      };
      return media ? withMedia(outcome, media.prepared, context.user, context.message.text) : outcome;
    } catch (error) {
      typing?.stop();
      if (signal.aborted) throw interruption(signal, error);
      // A bug, not an expected failure: still never leave the user in silence.
      logger.error({ error: describeError(error) }, 'turn crashed; apologising');
      return {
        reply: fallbackReply('apology', user.language, turn.text),
        status: 'failed',
        errorKind: blameOf(error),
        errorMessage: describeError(error),
        modelCalls: 0,
        inputTokens: 0,
        outputTokens: 0,
        // What was downloaded is still released (and transcription still paid for).
        ...(media ? { afterCommit: media.prepared.release, costUsd: media.prepared.costUsd, transcriptionSeconds: media.prepared.transcriptionSeconds } : {}),
      };
    }
  }

  /** Downloads, reads and transcribes the turn's attachments (src/media). */
  private async prepareMedia(turn: IncomingTurn, signal: AbortSignal) {
    const { user } = turn;
    const prepared = await this.deps.media!.prepare(
      { turnId: turn.turnId, user, messages: turn.batch.map((message) => ({ id: message.id, content: message.content, transcribed: message.transcribed, location: message.location })) },
      signal,
    );
    return { prepared, user };
  }

  /**
   * The plan a clarification asked from, when this message answers it within its lifetime:
   * claimed (so a second answer cannot resume it too), and finished in the turn's commit.
   */
  private async resumable(turn: IncomingTurn): Promise<{ id: string; plan: ResumedPlan } | undefined> {
    const clarification = (await turn.questions()).find((question) => question.kind === 'clarification' && (question.status === 'pending' || question.status === 'executing'));
    if (!clarification) return undefined;
    const claim = await this.deps.questions.claim(clarification.id, turn.batch.map((message) => message.id));
    if (claim === 'taken') return undefined;
    const payload = clarificationPayloadSchema.safeParse(clarification.payload);
    if (!payload.success) return undefined;
    turn.logger.info({ questionId: clarification.id, planId: payload.data.planId }, 'resuming the plan that asked a question');
    return { id: clarification.id, plan: { ...payload.data, question: clarification.question } };
  }

  /**
   * The outcome when a daily budget is spent: one notice a day, then silence (the messages
   * are kept, marked ignored), and no model call. Undefined while within budget.
   */
  private async overBudget(user: UserConfig, logger: Logger): Promise<TurnOutcome | undefined> {
    const budgets = this.deps.budgets;
    if (!budgets) return undefined;
    const state = await budgets.guard.check(user);
    if (state.kind === 'within') return undefined;
    if (state.kind === 'deployment_spent' && (await budgets.guard.claimDeploymentNotice(state.deploymentDay))) {
      const { dailyUsd, deploymentTimezone } = budgets.guard.settings;
      await budgets
        .notifyOwners(budgetReplies(null).owners(`$${Number((dailyUsd ?? 0).toFixed(6))}`, deploymentTimezone))
        .catch((error: unknown) => logger.error({ error: describeError(error) }, 'could not tell the owners the daily budget is spent'));
    }
    const notify = await budgets.guard.claimUserNotice(user.id, state.day);
    logger.info({ event: 'budget_spent', budget: state.kind === 'user_spent' ? 'user' : 'deployment', notified: notify }, 'no model call: daily budget spent');
    if (!notify) return withoutModel({ ignored: true });
    const say = budgetReplies(user.language);
    return withoutModel({ reply: state.kind === 'user_spent' ? say.user : say.deployment, replyKind: 'notice' });
  }

  /** Confirms an erase to the number that asked: no row may hold it, so it is sent unrecorded. */
  private async farewell(user: UserConfig, latest: Message, text: string, logger: Logger): Promise<void> {
    const sent = await this.deps.outbox
      .sendUnrecorded({ channel: latest.channel, toAddress: addressFor(user.phone, latest.channel), fromAddress: latest.heraldAddress ?? undefined, text })
      .catch((error: unknown) => {
        logger.error({ error: describeError(error) }, 'could not confirm the erase by text');
        return 'failed' as const;
      });
    logger.info({ event: 'user_erased', confirmation: sent }, 'user data erased; confirmed by text');
  }

  /** Stages and delivers an "on it" message at once (this worker holds the user's lease); it is part of the conversation too. */
  private async sendProgress(turnId: string, userId: string, channel: Channel, latest: Message, text: string): Promise<void> {
    const staged = await this.deps.prisma.$transaction(async (transaction) => {
      const { phone } = await transaction.user.findUniqueOrThrow({ where: { id: userId }, select: { phone: true } });
      const group = await this.deps.outbox.stage(transaction, { userId, turnId, kind: 'progress', channel, toAddress: addressFor(phone, channel), fromAddress: latest.heraldAddress ?? undefined, text });
      await transaction.message.create({
        data: { userId, role: 'assistant', kind: 'progress', content: text, channel, tokenCount: estimateTokens(text), turnId, outboundGroupId: group.groupId, createdAt: this.deps.clock.now() },
      });
      return group;
    });
    await this.deps.outbox.flushGroup(staged.groupId);
  }
}

/** Why an aborted turn stopped: the worker's reason (shutdown, a lost lease) when it gave one. */
function interruption(signal: AbortSignal, cause?: unknown): TurnInterrupted {
  if (signal.reason instanceof TurnInterrupted) return signal.reason;
  return new TurnInterrupted('shutting down', cause === undefined ? undefined : { cause });
}

/**
 * The words the answers read. A quick burst of the same answer ("yes", "yes!") is one
 * answer; a burst that says more is an ordinary message.
 */
function answerText(batch: Message[]): string {
  const texts = batch.map((message) => message.content.trim()).filter(Boolean);
  const answers = new Set(texts.map((text) => confirmationAnswer(text) ?? text));
  return answers.size === 1 ? texts[0]! : texts.join('\n');
}

function takeWhile<Item>(items: Item[], predicate: (item: Item) => boolean): Item[] {
  const taken: Item[] = [];
  for (const item of items) {
    if (!predicate(item)) break;
    taken.push(item);
  }
  return taken;
}
