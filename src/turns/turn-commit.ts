import type { Channel, Message, Prisma } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { KeywordCommand } from '../channels/keywords.js';
import { addressFor } from '../outbox/outbound-draft.js';
import type { OutboxService } from '../outbox/outbox-service.js';
import type { Clock } from '../shared/clock.js';
import { estimateTokens } from '../shared/tokens.js';
import { stageMissedReminderNotice } from '../reminders/missed-reminder-notice.js';
import type { PendingQuestions } from '../questions/pending-questions.js';
import type { BudgetGuard } from '../budgets/budget-guard.js';
import type { HeldRoutineRuns, HeldRunsReleased } from '../routines/held-routine-runs.js';
import type { UserConfig } from '../users/user-service.js';
import { modelLineJson, outcomeUsage, type TurnOutcome } from './turn-outcome.js';

/**
 * Checks, inside the transaction that commits a turn, that its worker still holds the
 * user's lease (and keeps it until the commit). False: another worker took the user over,
 * and this turn must not answer.
 */
export type LeaseFence = (transaction: Prisma.TransactionClient) => Promise<boolean>;

/** Thrown when a turn is interrupted by shutdown or a lost lease: its messages stay pending for another instance. */
export class TurnInterrupted extends Error {}

/** What committing a turn writes to. */
export interface TurnCommitDependencies {
  prisma: PrismaClient;
  outbox: OutboxService;
  questions: PendingQuestions;
  clock: Clock;
  budgets?: { guard: BudgetGuard };
  /** Routine runs held for the WhatsApp window, released by the user's message; absent: none. */
  heldRoutineRuns?: HeldRoutineRuns;
}

/** The turn being committed. */
export interface TurnToCommit {
  turnId: string;
  user: UserConfig;
  /** The inbound messages this turn answers, in arrival order. */
  batch: Message[];
  keyword: KeywordCommand | undefined;
  outcome: TurnOutcome;
  fence: LeaseFence | undefined;
  /** The language the user was just seen writing in, when it is not the stored one: stored now. */
  language?: string | undefined;
}

/**
 * Commits a turn in one transaction: missed-reminder notice, the answer's own changes (a
 * snooze), the questions the reply asks, the reply (a message of the conversation) and its
 * outbound parts, the routine runs held for the WhatsApp window (released, to run after this
 * reply), the inbound messages' new status, the turn row and the day's spend. A crash leaves
 * either nothing (the turn runs again) or everything (the outbox delivers it).
 */
export async function commitTurn(deps: TurnCommitDependencies, turn: TurnToCommit): Promise<void> {
  const { turnId, user, batch, keyword, outcome, fence } = turn;
  const userId = user.id;
  const latest = batch[batch.length - 1]!;
  const channel: Channel = latest.channel;
  let held: HeldRunsReleased | undefined;
  await deps.prisma.$transaction(async (transaction) => {
    // First, and holding the user's row until the commit: a worker that stalled past its
    // lease and was taken over must not answer messages its successor answers too.
    if (fence && !(await fence(transaction))) throw new TurnInterrupted('lost the turn lease before committing');
    const now = deps.clock.now();
    // The number as it is now, read under the lock: the reply goes where the user is.
    const recipient = outcome.reply ? await transaction.user.findUniqueOrThrow({ where: { id: userId }, select: { phone: true, language: true } }) : undefined;
    const address = recipient && { channel, toAddress: addressFor(recipient.phone, channel), fromAddress: latest.heraldAddress ?? undefined };
    // Reminders that could not be delivered are told now, before the reply (never after STOP).
    if (recipient && address && keyword !== 'stop' && (!user.optedOut || keyword === 'start')) {
      await stageMissedReminderNotice(transaction, deps.outbox, { userId, turnId, ...address, language: recipient.language, now });
    }
    for (const effect of outcome.effects ?? []) await effect(transaction);
    if (outcome.questions && outcome.questions.length > 0) await deps.questions.stage(transaction, { userId, turnId, channel }, outcome.questions, { shortIds: outcome.questionShortIds });
    if (outcome.reply && address) {
      const staged = await deps.outbox.stage(transaction, { userId, turnId, kind: keyword ? 'system' : 'reply', ...address, text: outcome.reply, template: outcome.buttons });
      await transaction.message.create({
        data: { userId, role: 'assistant', kind: outcome.replyKind ?? 'chat', content: outcome.reply, channel, tokenCount: estimateTokens(outcome.reply), turnId, outboundGroupId: staged.groupId, createdAt: now },
      });
    }
    // The user wrote, so WhatsApp's window is open again: routine runs held for it go now, each
    // as a run of its own once this turn lets go of the lease, after this reply (never after STOP).
    if (deps.heldRoutineRuns && keyword !== 'stop' && (!user.optedOut || keyword === 'start')) {
      held = await deps.heldRoutineRuns.release(transaction, userId, now);
    }
    if (turn.language) await transaction.user.update({ where: { id: userId }, data: { language: turn.language, updatedAt: now } });
    await transaction.message.updateMany({
      where: { id: { in: batch.map((message) => message.id) } },
      data: { inboundStatus: outcome.ignored ? 'ignored' : 'handled', turnId },
    });
    const usage = outcomeUsage(outcome);
    await transaction.turn.update({
      where: { id: turnId },
      data: {
        status: outcome.status,
        errorKind: outcome.errorKind ?? null,
        errorMessage: outcome.errorMessage?.slice(0, 1000) ?? null,
        ...usage,
        ...(outcome.models ? { models: outcome.models.map(modelLineJson) } : {}),
        finishedAt: now,
      },
    });
    if (deps.budgets) await deps.budgets.guard.recordSpend(transaction, usage.costUsd);
  });
  if (held) deps.heldRoutineRuns!.report(userId, held);
}
