import type { Channel, Message } from '../generated/prisma/client.js';
import { ABANDONED_TURN_MESSAGE } from './turn-recovery.js';
import type { PrismaClient } from '../db/prisma-types.js';
import { detectKeyword, type KeywordCommand } from '../channels/keywords.js';
import type { ContextAssembler } from '../context/context-assembler.js';
import type { OrchestratorContext } from '../context/orchestrator-context.js';
import type { Logger } from '../logging/logger.js';
import { fallbackReply } from '../orchestrator/fallback-replies.js';
import type { OrchestratorResult } from '../orchestrator/orchestrate.js';
import { addressFor, type OutboxService } from '../outbox/outbox-service.js';
import type { Clock } from '../shared/clock.js';
import { blameOf, describeError } from '../shared/errors.js';
import type { UserConfig, UserService } from '../users/user-service.js';
import { keywordReply } from './keyword-replies.js';
import { cutNote } from '../context/message-cap.js';
import type { ConfirmationService } from '../confirmations/confirmation-service.js';
import { confirmationAnswer } from '../confirmations/confirmation-words.js';
import type { BudgetGuard } from '../budgets/budget-guard.js';
import { budgetReplies } from '../budgets/budget-replies.js';
import type { TurnCommand, TurnCommands } from './turn-commands.js';
import { commitTurn, TurnInterrupted, type LeaseFence } from './turn-commit.js';
import { TurnMedia } from '../media/turn-media.js';
import { answerWithoutModel, mediaForContext, withMedia } from '../media/media-outcome.js';
import { modelLineJson, outcomeUsage, withoutModel, type TurnOutcome } from './turn-outcome.js';

export { TurnInterrupted, type LeaseFence } from './turn-commit.js';

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
  /** Held actions: staged with a reply that asks about them, settled by the next message. */
  confirmations: ConfirmationService;
  clock: Clock;
  logger: Logger;
  /** MY DATA, DELETE MY DATA and owners' admin commands (src/turns/turn-commands.ts); absent: none. */
  commands?: TurnCommands;
  /** Daily model budgets; absent: no limit. `notifyOwners` texts the owners (once a day, when the deployment's is spent). */
  budgets?: { guard: BudgetGuard; notifyOwners(text: string): Promise<void> };
  /** Attachments, voice notes and location pins (src/media); absent: they are only counted. */
  media?: TurnMedia;
}

/**
 * Answers one turn: the user's next pending message, or a quick burst of them. Keywords
 * (STOP/START/HELP) and media-only messages are handled without a model; everything else
 * goes through the orchestrator. The reply, the outbound parts and the inbound messages'
 * new status commit in one transaction, so a crash leaves either nothing (the turn runs
 * again) or everything (the outbox delivers it).
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
   * A keyword message is a turn of its own; consecutive ordinary messages are merged.
   */
  async runNext(userId: string, pending: Message[], signal: AbortSignal, fence?: LeaseFence): Promise<number> {
    const user = await this.deps.users.getConfig(userId);
    if (!user) throw new Error(`user ${userId} vanished`);
    const first = pending[0];
    if (!first) return 0;
    const keyword = detectKeyword(first.content, { optedOut: user.optedOut });
    const command = keyword ? undefined : this.deps.commands?.detect(first.content, user);
    // A keyword or command is a turn of its own; ordinary messages up to the next one merge.
    const isCommand = (message: Message) => Boolean(detectKeyword(message.content, { optedOut: user.optedOut }) ?? this.deps.commands?.detect(message.content, user));
    const batch = keyword || command ? [first] : takeWhile(pending, (message) => !isCommand(message));
    const latest = batch[batch.length - 1]!;
    const channel: Channel = latest.channel;
    // This worker holds the user's lease, so any turn of theirs still "running" was left by
    // a worker that died (its lease lapsed and was taken over): close it.
    await this.deps.prisma.turn.updateMany({
      where: { userId, status: 'running' },
      data: { status: 'failed', errorKind: 'interrupted', errorMessage: ABANDONED_TURN_MESSAGE, finishedAt: this.deps.clock.now() },
    });
    const turn = await this.deps.prisma.turn.create({ data: { userId, startedAt: this.deps.clock.now() }, select: { id: true } });
    const logger = this.deps.logger.child({ turnId: turn.id, userId, messages: batch.length, channel });
    logger.info({ keyword, command: command?.name, messageIds: batch.map((message) => message.id) }, 'turn started');

    try {
      await this.complete(turn.id, userId, user, batch, keyword, command, signal, logger, fence);
    } catch (error) {
      // The turn did not finish (shutdown, or a failure the job will retry): close its row
      // so it does not stay "running" forever. Its messages keep no link to it and stay
      // pending for the next turn.
      const interrupted = error instanceof TurnInterrupted;
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
  }

  /** Decides the turn's outcome and commits it: reply, outbound parts, message statuses, turn row. */
  private async complete(
    turnId: string,
    userId: string,
    user: UserConfig,
    batch: Message[],
    keyword: KeywordCommand | undefined,
    command: TurnCommand | undefined,
    signal: AbortSignal,
    logger: Logger,
    fence: LeaseFence | undefined,
  ): Promise<void> {
    const latest = batch[batch.length - 1]!;
    const channel: Channel = latest.channel;
    let outcome: TurnOutcome;
    if (keyword) {
      outcome = await this.handleKeyword(userId, keyword, latest, user.language);
    } else if (user.optedOut) {
      outcome = withoutModel({ ignored: true });
    } else if (command) {
      const result = await command.run();
      outcome = withoutModel({ reply: result.reply, ...(result.confirmation ? { confirmation: result.confirmation } : {}) });
    } else if (batch.every((message) => message.content.trim() === '') && !(this.deps.media && batch.some(TurnMedia.carriesMedia))) {
      // Nothing to read: attachments only, or nothing at all (an empty SMS, a WhatsApp
      // location or contact card). A model call could only guess; answer without one.
      const kind = batch.some((message) => message.numMedia > 0) ? 'mediaOnly' : 'empty';
      outcome = withoutModel({ reply: fallbackReply(kind, user.language) });
    } else {
      // YES or NO to held actions is settled without a model; anything else moves on from them,
      // except an attachment (a photo sent while a question waits): a turn of its own, the
      // question still pending.
      const text = confirmationText(batch);
      const attachmentOnly = Boolean(this.deps.media) && batch.some(TurnMedia.carriesMedia) && confirmationAnswer(text) === undefined;
      const settled = attachmentOnly ? undefined : await this.deps.confirmations.respond({ userId, timezone: user.timezone, language: user.language, text });
      if (settled && !(await this.deps.users.getConfig(userId))) {
        // The YES erased the user (DELETE MY DATA): nothing of theirs may be written again.
        await this.farewell(user, latest, settled.reply, logger);
        return;
      }
      outcome = settled
        ? withoutModel(settled)
        : ((await this.overBudget(user, logger)) ?? (await this.answer(turnId, userId, channel, batch, signal, logger)));
    }
    if (signal.aborted) throw interruption(signal);

    await commitTurn(this.deps, { turnId, user, batch, keyword, outcome, fence });
    // Only once the answer is safe: a turn that runs again still finds its media at Twilio.
    await outcome.afterCommit?.().catch((error: unknown) => logger.warn({ error: describeError(error) }, 'could not release the turn\'s media'));
    logger.info(
      {
        event: 'turn_finished',
        status: outcome.status,
        errorKind: outcome.errorKind,
        replied: Boolean(outcome.reply),
        ...outcomeUsage(outcome),
        models: (outcome.models ?? []).map(modelLineJson),
      },
      'turn finished',
    );
  }

  private async answer(
    turnId: string,
    userId: string,
    channel: Channel,
    batch: Message[],
    signal: AbortSignal,
    logger: Logger,
  ): Promise<TurnOutcome> {
    let media: Awaited<ReturnType<TurnRunner['prepareMedia']>> | undefined;
    try {
      media = this.deps.media && batch.some(TurnMedia.carriesMedia) ? await this.prepareMedia(turnId, userId, batch, signal) : undefined;
      const typed = batch.map((message) => message.content).join(' ');
      const early = media && answerWithoutModel(media.prepared, media.user, typed);
      if (early) return early;
      const context = await this.deps.assembler.assemble({
        turnId,
        userId,
        channel,
        messages: batch.map((message) => ({ id: message.id, content: message.content, numMedia: message.numMedia })),
        ...(media ? { media: mediaForContext(media.prepared) } : {}),
      });
      const onProgress = (text: string) => this.sendProgress(turnId, userId, channel, batch[batch.length - 1]!, text);
      const result = await this.deps.orchestrate(context, { signal, onProgress });
      // The model saw only the beginning of a very long message: say so, whatever it answered.
      const cut = context.message.cut;
      const outcome: TurnOutcome = {
        reply: cut ? `${result.reply}\n\n${cutNote(cut, context.user.language, context.message.text)}` : result.reply,
        status: result.status,
        ...(result.failure ? { errorKind: result.failure.blame, errorMessage: result.failure.message } : {}),
        modelCalls: result.modelCalls,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        cacheReadTokens: result.usage.cacheReadTokens,
        cacheWriteTokens: result.usage.cacheWriteTokens,
        costUsd: result.costUsd,
        models: result.usageByModel,
        ...(result.usage.webSearches ? { webSearches: result.usage.webSearches } : {}),
        ...(result.confirmation ? { confirmation: result.confirmation } : {}),
      };
      return media ? withMedia(outcome, media.prepared, context.user, context.message.text) : outcome;
    } catch (error) {
      if (signal.aborted) throw interruption(signal, error);
      // A bug, not an expected failure: still never leave the user in silence.
      logger.error({ error: describeError(error) }, 'turn crashed; apologising');
      const user = await this.deps.users.getConfig(userId);
      return {
        reply: fallbackReply('apology', user?.language ?? null, batch.map((message) => message.content).join(' ')),
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
  private async prepareMedia(turnId: string, userId: string, batch: Message[], signal: AbortSignal) {
    const user = await this.deps.users.getConfig(userId);
    if (!user) throw new Error(`user ${userId} vanished`);
    const prepared = await this.deps.media!.prepare(
      { turnId, user, messages: batch.map((message) => ({ id: message.id, content: message.content, transcribed: message.transcribed, location: message.location })) },
      signal,
    );
    return { prepared, user };
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
    return withoutModel({ reply: state.kind === 'user_spent' ? say.user : say.deployment });
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

  /** Stages and delivers an "on it" message at once (this worker holds the user's lease). */
  private async sendProgress(turnId: string, userId: string, channel: Channel, latest: Message, text: string): Promise<void> {
    const { phone } = await this.deps.prisma.user.findUniqueOrThrow({ where: { id: userId }, select: { phone: true } });
    const staged = await this.deps.outbox.stage(this.deps.prisma, {
      userId,
      turnId,
      kind: 'progress',
      channel,
      toAddress: addressFor(phone, channel),
      fromAddress: latest.heraldAddress ?? undefined,
      text,
    });
    await this.deps.outbox.flushGroup(staged.groupId);
  }

  private async handleKeyword(userId: string, keyword: KeywordCommand, message: Message, language: string | null): Promise<TurnOutcome> {
    if (keyword === 'stop') await this.deps.users.setOptedOut(userId, true);
    if (keyword === 'start') await this.deps.users.setOptedOut(userId, false);
    // Twilio's Advanced Opt-Out already answered this keyword on SMS; a second answer
    // would be noise (and, after STOP, Twilio would refuse it with 21610).
    if (message.optOutType) return withoutModel();
    return withoutModel({ reply: keywordReply(keyword, language) });
  }
}

/** Why an aborted turn stopped: the worker's reason (shutdown, a lost lease) when it gave one. */
function interruption(signal: AbortSignal, cause?: unknown): TurnInterrupted {
  if (signal.reason instanceof TurnInterrupted) return signal.reason;
  return new TurnInterrupted('shutting down', cause === undefined ? undefined : { cause });
}

/**
 * The words that answer a confirmation. A quick burst of the same answer ("yes", "yes!")
 * is one answer; a burst that says more is an ordinary message.
 */
function confirmationText(batch: Message[]): string {
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
