import type { Channel, Routine, RoutineRun, RoutineRunStatus } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { ContextAssembler } from '../context/context-assembler.js';
import type { BudgetGuard } from '../budgets/budget-guard.js';
import type { Logger } from '../logging/logger.js';
import { roundUsd } from '../model/model-cost.js';
import { addressFor } from '../outbox/outbound-draft.js';
import type { OutboxService } from '../outbox/outbox-service.js';
import type { TurnScheduler } from '../queue/turn-queue.js';
import { formatLocal, nextOccurrence } from '../reminders/reminder-schedule.js';
import type { QuietHours } from '../users/quiet-hours.js';
import { holdForWindow } from '../routines/held-routine-runs.js';
import type { RoutineJobData } from '../routines/routine-queue.js';
import { isNothingToSend, routineRequest } from '../routines/routine-request.js';
import type { RoutineService } from '../routines/routine-service.js';
import type { Clock } from '../shared/clock.js';
import { blameOf, describeError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { estimateTokens } from '../shared/tokens.js';
import { readerLanguage, say } from '../texts/texts.js';
import type { LongReplies } from './long-replies.js';
import { ABANDONED_TURN_MESSAGE } from './turn-recovery.js';
import type { LeaseHeartbeat } from './lease-heartbeat.js';
import type { TurnLeases } from './turn-lease.js';
import { TurnInterrupted } from './turn-runner.js';
import type { Orchestrate } from './turn-runner-dependencies.js';
import { modelLineJson } from './turn-outcome.js';

/** The rules a run follows (docs/ARCHITECTURE.md "Defaults"). */
interface RoutineRunPolicy {
  /** A run missed by more than this (Herald was down) is skipped and logged, not sent late. */
  maxLatenessMs: number;
  /** Approved WhatsApp template for runs outside the 24-hour window ({{1}} = the message). */
  whatsappTemplateSid?: string | undefined;
  /** Invite mode: a number no longer allowed gets no runs. */
  access?: { mode: 'open' | 'invite'; ownerPhones: readonly string[] } | undefined;
}

/** What a run needs. */
export interface RoutineRunDependencies {
  prisma: PrismaClient;
  routines: RoutineService;
  leases: TurnLeases;
  /** Renews the lease while the run works (src/turns/lease-heartbeat.ts). */
  heartbeat: LeaseHeartbeat;
  leaseMs: number;
  assembler: ContextAssembler;
  /** The orchestrator with ROUTINE_MAX_MODEL_CALLS as the turn's model-call cap. */
  orchestrate: Orchestrate;
  outbox: OutboxService;
  scheduler: TurnScheduler;
  quietHours: Pick<QuietHours, 'quietEndsAt'>;
  budgets?: BudgetGuard | undefined;
  longReplies?: LongReplies | undefined;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  policy: RoutineRunPolicy;
  /** Told how each run ended (metrics), and, when the model was reached, when its first call went out. */
  onRunEnd?: (event: RoutineRunEnd) => void;
}

/** How one job ended. */
export type RoutineRunOutcome =
  | { kind: 'stale' }
  | { kind: 'duplicate'; status: RoutineRunStatus }
  | { kind: 'held'; until: Date }
  | { kind: 'finished'; status: RoutineRunStatus };

/** A finished run, for metrics and the benchmark: never its text. */
interface RoutineRunEnd {
  routineId: string;
  dueAt: Date;
  status: RoutineRunStatus;
  /** When its message was handed to the outbox's sender (status sent). */
  sentAt?: Date | undefined;
}

const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How soon a run held by the user's busy lease looks again. */
const BUSY_RECHECK_MS = 2_000;

/**
 * Runs a routine's occurrence as a turn of its own (issue 21 item 2). The occurrence is
 * claimed first, in the transaction that moves the routine on to its next run and enqueues
 * that run's job (so the next one comes whatever happens to this one); the claim is a
 * `pending` RoutineRun row, unique per routine and due time. The run itself happens under the
 * user's turn lease, never interleaved with their own turn: context, orchestrator with the
 * instruction as the request, and one commit (fenced by the lease) that stores the message in
 * the conversation, stages it in the outbox and marks the run sent. A crash before that commit
 * leaves the run pending; the job's retry (any instance) runs it again. Two jobs for one
 * occurrence meet at the lease, and the second finds the run finished.
 */
export class RoutineRunner {
  constructor(private readonly deps: RoutineRunDependencies) {}

  async run(job: RoutineJobData): Promise<RoutineRunOutcome> {
    const dueAt = new Date(job.dueAt);
    const claim = await this.claim(job.routineId, dueAt);
    if (claim.kind === 'dropped') {
      this.ended(claim.routine.id, dueAt, 'undeliverable');
      this.deps.onRunEnd?.({ routineId: claim.routine.id, dueAt, status: 'undeliverable' });
      return { kind: 'finished', status: 'undeliverable' };
    }
    if (claim.kind !== 'pending') return claim;
    const { routine, run } = claim;
    const logger = this.deps.logger.child({ routineId: routine.id, runId: run.id, userId: routine.userId, dueAt: job.dueAt });
    const now = this.deps.clock.now();
    const from = job.heldUntil ? new Date(job.heldUntil) : dueAt;
    if (now.getTime() - from.getTime() > this.deps.policy.maxLatenessMs) {
      logger.warn({ event: 'routine_missed', latenessMs: now.getTime() - dueAt.getTime() }, 'routine run missed by more than ROUTINE_MAX_LATENESS_MS: skipped, not sent late');
      return this.finishWithout(run, routine, 'skipped_late');
    }
    const user = await this.deps.prisma.user.findUnique({ where: { id: routine.userId } });
    if (!user) return { kind: 'stale' };
    const quietUntil = this.deps.quietHours.quietEndsAt(user, now);
    if (quietUntil && quietUntil.getTime() > now.getTime()) return this.hold(routine.id, dueAt, quietUntil, logger, 'quiet hours');

    const owner = this.deps.ids.next('lease');
    const lease = await this.deps.leases.acquire(user.id, owner, this.deps.leaseMs);
    if (!lease.acquired) {
      if (lease.userGone) return { kind: 'stale' };
      // The user's own turn (or another run) is on: this run waits its turn, without being counted
      // late for it. A holder releases long before its lease lapses, so look again soon.
      return this.hold(routine.id, dueAt, new Date(Math.min(lease.heldUntil.getTime() + 1000, now.getTime() + BUSY_RECHECK_MS)), logger, 'user busy');
    }
    const controller = new AbortController();
    const stopRenewing = this.deps.heartbeat.hold(user.id, owner, () => controller.abort(new TurnInterrupted('lost the turn lease')));
    try {
      // Another job for this occurrence may have run it while this one waited for the lease.
      const current = await this.deps.prisma.routineRun.findUnique({ where: { id: run.id }, select: { status: true } });
      if (!current) return { kind: 'stale' };
      if (current.status !== 'pending') return { kind: 'duplicate', status: current.status };
      // This worker holds the lease: a turn of this user still "running" was left by one that died.
      await this.deps.prisma.turn.updateMany({
        where: { userId: user.id, status: 'running' },
        data: { status: 'failed', errorKind: 'interrupted', errorMessage: ABANDONED_TURN_MESSAGE, finishedAt: this.deps.clock.now() },
      });
      const status = await this.underLease({ routine, run, user, dueAt, owner, signal: controller.signal, logger });
      return { kind: 'finished', status };
    } finally {
      stopRenewing();
      await this.deps.leases.release(user.id, owner).catch(() => {});
      // The user wrote while the run held their lease: their turn is next.
      const pending = await this.deps.prisma.message.count({ where: { userId: user.id, role: 'user', inboundStatus: 'pending' } }).catch(() => 0);
      if (pending > 0 || (await this.deps.outbox.hasUndelivered(user.id).catch(() => false))) {
        await this.deps.scheduler.schedule(user.id).catch((error: unknown) => logger.warn({ error: describeError(error) }, 'could not schedule the user\'s turn after a routine run; recovery will'));
        this.deps.scheduler.wake();
      }
    }
  }

  /**
   * Claims the occurrence and moves the routine on, in one transaction holding the routine's
   * row: the run row (unique per routine and due time), the routine's next due time and that
   * run's job. A retry of a run that was claimed but never finished finds it pending.
   */
  private async claim(routineId: string, dueAt: Date): Promise<RoutineRunOutcome | { kind: 'pending'; routine: Routine; run: RoutineRun } | { kind: 'dropped'; routine: Routine; run: RoutineRun }> {
    return this.deps.prisma.$transaction(async (transaction) => {
      await transaction.$queryRaw`SELECT id FROM "Routine" WHERE id = ${routineId}::uuid FOR UPDATE`;
      const routine = await transaction.routine.findUnique({ where: { id: routineId } });
      if (!routine) return { kind: 'stale' as const };
      const existing = await transaction.routineRun.findUnique({ where: { routineId_dueAt: { routineId, dueAt } } });
      if (existing?.status === 'pending' && existing.heldForWindowAt && routine.status !== 'active') {
        // Released by the user's message, then paused before its job came: not sent late.
        await transaction.routineRun.update({ where: { id: existing.id }, data: { status: 'undeliverable', finishedAt: this.deps.clock.now() } });
        return { kind: 'dropped' as const, routine, run: existing };
      }
      if (existing) return existing.status === 'pending' ? { kind: 'pending' as const, routine, run: existing } : { kind: 'duplicate' as const, status: existing.status };
      // Moved, paused or deleted since this job was written: nothing to do.
      if (routine.status !== 'active' || routine.nextDueAt?.getTime() !== dueAt.getTime()) return { kind: 'stale' as const };
      const now = this.deps.clock.now();
      // Runs missed during downtime are not replayed one by one: the next is after now.
      const next = nextOccurrence(routine.rrule, routine.startLocal, routine.timezone, new Date(Math.max(dueAt.getTime(), now.getTime())));
      const run = await transaction.routineRun.create({ data: { routineId, userId: routine.userId, dueAt, status: 'pending', createdAt: now } });
      await transaction.routine.update({ where: { id: routineId }, data: { nextDueAt: next ?? null, updatedAt: now } });
      if (next) await this.deps.routines.scheduleRun(transaction, routineId, next);
      return { kind: 'pending' as const, routine, run };
    });
  }

  /** The run's job again, later (quiet hours, or the user's turn holds the lease). */
  private async hold(routineId: string, dueAt: Date, until: Date, logger: Logger, why: string): Promise<RoutineRunOutcome> {
    await this.deps.prisma.$transaction((transaction) => this.deps.routines.scheduleRun(transaction, routineId, dueAt, until));
    logger.debug({ until: until.toISOString(), why }, 'routine run held');
    return { kind: 'held', until };
  }

  private async underLease(run: {
    routine: Routine;
    run: RoutineRun;
    user: { id: string; phone: string; language: string | null; timezone: string; optedOut: boolean; preferredChannel: Channel; lastWhatsappInboundAt: Date | null };
    dueAt: Date;
    owner: string;
    signal: AbortSignal;
    logger: Logger;
  }): Promise<RoutineRunStatus> {
    const { routine, user, logger } = run;
    const policy = this.deps.policy;
    if (user.optedOut || (policy.access?.mode === 'invite' && !policy.access.ownerPhones.includes(user.phone) && !(await this.invited(user.phone)))) {
      return (await this.finishWithout(run.run, routine, 'opted_out')).status;
    }
    const now = this.deps.clock.now();
    // Read again under the lease: a message the user sent since the job read them opened the window.
    const reach = (await this.deps.prisma.user.findUnique({ where: { id: user.id }, select: { preferredChannel: true, lastWhatsappInboundAt: true } })) ?? user;
    const channel = reach.preferredChannel;
    const windowOpen = reach.lastWhatsappInboundAt !== null && now.getTime() - reach.lastWhatsappInboundAt.getTime() < WHATSAPP_WINDOW_MS;
    const template = channel === 'whatsapp' && !windowOpen ? policy.whatsappTemplateSid : undefined;
    if (channel === 'whatsapp' && !windowOpen && !template) {
      // Nothing could reach them now: no model call is spent on it. Their next message releases
      // it (src/routines/held-routine-runs.ts), to run after their reply.
      return this.awaitWindow(run);
    }
    const language = readerLanguage(user.language);
    const address = { channel, toAddress: addressFor(user.phone, channel) };
    const budget = this.deps.budgets ? await this.deps.budgets.check(user) : { kind: 'within' as const };
    if (budget.kind !== 'within') {
      // One notice a day (shared with the turns' own), then silence: no runs until the user's midnight.
      const notify = await this.deps.budgets!.claimUserNotice(user.id, budget.day);
      logger.info({ event: 'budget_spent', notified: notify }, 'routine run skipped: daily budget spent');
      const notice = notify ? say(language, 'routineBudget', { name: routine.name }) : undefined;
      return this.commit(run, { status: 'skipped_budget', text: notice, kind: 'notice', address });
    }

    const turn = await this.deps.prisma.turn.create({ data: { userId: user.id, startedAt: now }, select: { id: true } });
    const dueLocal = formatLocal(run.dueAt, routine.timezone);
    try {
      const context = await this.deps.assembler.assemble({
        turnId: turn.id,
        userId: user.id,
        channel,
        // The run's id stands for the message: there is none, the user did not write.
        messages: [{ id: run.run.id, content: routineRequest(routine, dueLocal, user.language, { afterWindow: run.run.heldForWindowAt !== null }), numMedia: 0 }],
      });
      // The reply follows the instruction's language, not the English framing around it.
      context.message.languageText = routine.instruction;
      // Progress messages are for people waiting on an answer; nobody waits on a routine.
      const result = await this.deps.orchestrate(context, { signal: run.signal, onProgress: async () => {} });
      const usage = {
        modelCalls: result.modelCalls,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        cacheReadTokens: result.usage.cacheReadTokens ?? 0,
        cacheWriteTokens: result.usage.cacheWriteTokens ?? 0,
        costUsd: roundUsd(result.costUsd),
        models: result.usageByModel.map(modelLineJson),
      };
      if (result.status === 'failed') {
        logger.warn({ event: 'routine_failed', errorKind: result.failure?.blame, error: result.failure?.message }, 'routine run failed: nothing sent; the next run is scheduled');
        return await this.commit(run, { status: 'failed', turn: { id: turn.id, status: 'failed', errorKind: result.failure?.blame, errorMessage: result.failure?.message, ...usage }, address });
      }
      if (isNothingToSend(result.reply)) {
        logger.info({ event: 'routine_nothing' }, 'routine run: nothing to send');
        return await this.commit(run, { status: 'nothing', turn: { id: turn.id, status: 'succeeded', ...usage }, address });
      }
      const reply = this.deps.longReplies ? await this.deps.longReplies.fit(result.reply, { userId: user.id, timezone: user.timezone, language: readerLanguage(user.language, result.reply.slice(0, 1_000)), channel }) : result.reply;
      return await this.commit(run, {
        status: 'sent',
        text: reply,
        kind: 'routine',
        address,
        ...(template ? { template: { contentSid: template, variables: { '1': reply } } } : {}),
        turn: { id: turn.id, status: 'succeeded', ...usage },
      });
    } catch (error) {
      if (error instanceof TurnInterrupted || run.signal.aborted) {
        await this.deps.prisma.turn.update({ where: { id: turn.id }, data: { status: 'failed', errorKind: 'interrupted', errorMessage: 'routine run interrupted; it runs again', finishedAt: this.deps.clock.now() } }).catch(() => {});
        throw error;
      }
      if (transient(error)) {
        // The database was overloaded or unreachable, not the routine at fault: the run stays
        // pending and the job's retry runs it again (still within ROUTINE_MAX_LATENESS_MS).
        logger.warn({ event: 'routine_retry', error: describeError(error) }, 'routine run hit a database error; the job will retry it');
        await this.deps.prisma.turn.update({ where: { id: turn.id }, data: { status: 'failed', errorKind: 'interrupted', errorMessage: describeError(error).slice(0, 1000), finishedAt: this.deps.clock.now() } }).catch(() => {});
        throw error;
      }
      logger.error({ event: 'routine_failed', error: describeError(error) }, 'routine run crashed: nothing sent; the next run is scheduled');
      return this.commit(run, { status: 'failed', turn: { id: turn.id, status: 'failed', errorKind: blameOf(error), errorMessage: describeError(error), modelCalls: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 }, address });
    }
  }

  /**
   * Ends the run in one transaction fenced by the lease: the message (if any) as part of the
   * conversation and staged in the outbox, the run's status (only from pending: a second
   * holder cannot finish it twice), the turn row and the day's spend. Then the message goes.
   */
  private async commit(
    run: { routine: Routine; run: RoutineRun; user: { id: string }; owner: string; logger: Logger },
    outcome: {
      status: RoutineRunStatus;
      text?: string | undefined;
      kind?: 'routine' | 'notice';
      address: { channel: Channel; toAddress: string };
      template?: { contentSid: string; variables: Record<string, string> };
      turn?: { id: string; status: 'succeeded' | 'failed'; errorKind?: string | undefined; errorMessage?: string | undefined; modelCalls: number; inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; costUsd: number; models?: unknown[] };
    },
  ): Promise<RoutineRunStatus> {
    const { routine, user } = run;
    const staged = await this.deps.prisma.$transaction(async (transaction) => {
      if (!(await this.deps.leases.confirm(transaction, user.id, run.owner, this.deps.leaseMs))) throw new TurnInterrupted('lost the turn lease before committing');
      const now = this.deps.clock.now();
      const finished = await transaction.routineRun.updateMany({ where: { id: run.run.id, status: 'pending' }, data: { status: outcome.status, finishedAt: now, turnId: outcome.turn?.id ?? null } });
      if (finished.count === 0) return { duplicate: true as const };
      let groupId: string | undefined;
      if (outcome.text) {
        const group = await this.deps.outbox.stage(transaction, { userId: user.id, turnId: outcome.turn?.id, kind: 'system', ...outcome.address, text: outcome.text, template: outcome.template });
        groupId = group.groupId;
        await transaction.message.create({
          data: { userId: user.id, role: 'assistant', kind: outcome.kind ?? 'routine', content: outcome.text, channel: outcome.address.channel, tokenCount: estimateTokens(outcome.text), turnId: outcome.turn?.id ?? null, outboundGroupId: groupId, createdAt: now },
        });
        await transaction.routineRun.update({ where: { id: run.run.id }, data: { outboundGroupId: groupId } });
      }
      if (outcome.status === 'sent') await transaction.routine.update({ where: { id: routine.id }, data: { runsSent: { increment: 1 }, lastRunAt: now } });
      if (outcome.turn) {
        const { id, models, ...fields } = outcome.turn;
        await transaction.turn.update({ where: { id }, data: { ...fields, errorMessage: fields.errorMessage?.slice(0, 1000) ?? null, errorKind: fields.errorKind ?? null, ...(models ? { models: models as never } : {}), finishedAt: now } });
        if (this.deps.budgets) await this.deps.budgets.recordSpend(transaction, fields.costUsd);
      }
      return { duplicate: false as const, groupId };
    });
    if (staged.duplicate) return outcome.status;
    this.ended(routine.id, run.run.dueAt, outcome.status);
    if (staged.groupId) {
      const delivery = await this.deps.outbox.flushGroup(staged.groupId);
      // Left pending: the user's next drain, or the recovery sweep, sends it.
      if (delivery.kind === 'retry_later') run.logger.info({ at: delivery.at.toISOString() }, 'routine message deferred by the outbox');
      this.deps.onRunEnd?.({ routineId: routine.id, dueAt: run.run.dueAt, status: outcome.status, sentAt: this.deps.clock.now() });
    } else this.deps.onRunEnd?.({ routineId: routine.id, dueAt: run.run.dueAt, status: outcome.status });
    return outcome.status;
  }

  /**
   * Holds the run for WhatsApp's window (`awaiting_window`): no model call, nothing sent, until
   * the user's next message releases it. Fenced by the lease like a commit, so a turn's release
   * (which needs the lease too) can never come between this run's check and its hold. The
   * routine's older held run, if any, is dropped then (`holdForWindow`).
   */
  private async awaitWindow(run: { routine: Routine; run: RoutineRun; user: { id: string }; owner: string; logger: Logger }): Promise<RoutineRunStatus> {
    const { held, superseded } = await this.deps.prisma.$transaction(async (transaction) => {
      if (!(await this.deps.leases.confirm(transaction, run.user.id, run.owner, this.deps.leaseMs))) throw new TurnInterrupted('lost the turn lease before holding the run');
      return holdForWindow(transaction, run.run, this.deps.clock.now());
    });
    if (held) {
      run.logger.info({ event: 'routine_awaiting_window' }, 'routine run held: outside WhatsApp\'s 24-hour window and no ROUTINE template; it runs at the user\'s next message');
      this.deps.onRunEnd?.({ routineId: run.routine.id, dueAt: run.run.dueAt, status: 'awaiting_window' });
      for (const dueAt of superseded) {
        this.ended(run.routine.id, dueAt, 'undeliverable');
        this.deps.onRunEnd?.({ routineId: run.routine.id, dueAt, status: 'undeliverable' });
      }
    }
    return 'awaiting_window';
  }

  /** Ends a run that never reached the lease's work (skipped late, opted out): no message, no turn. */
  private async finishWithout(run: RoutineRun, routine: Routine, status: RoutineRunStatus): Promise<{ kind: 'finished'; status: RoutineRunStatus }> {
    const finished = await this.deps.prisma.routineRun.updateMany({ where: { id: run.id, status: 'pending' }, data: { status, finishedAt: this.deps.clock.now() } });
    if (finished.count > 0) {
      this.ended(routine.id, run.dueAt, status);
      this.deps.onRunEnd?.({ routineId: routine.id, dueAt: run.dueAt, status });
    }
    return { kind: 'finished', status };
  }

  private ended(routineId: string, dueAt: Date, status: RoutineRunStatus): void {
    this.deps.logger.info({ event: 'routine_run_finished', routineId, dueAt: dueAt.toISOString(), status }, 'routine run finished');
  }

  private async invited(phone: string): Promise<boolean> {
    return (await this.deps.prisma.accessGrant.count({ where: { phone, revokedAt: null } })) > 0;
  }
}

/**
 * A failure of the database itself (a pool or transaction timeout, a lost connection), which a
 * retry a few seconds later can get past, as opposed to a bug or bad data, which it cannot.
 */
function transient(error: unknown): boolean {
  const name = error instanceof Error ? error.constructor.name : '';
  const message = error instanceof Error ? error.message : String(error);
  return (
    /^PrismaClient(?:Known|Unknown)RequestError$|^PrismaClientInitializationError$/.test(name) &&
    /transaction|timed out|timeout|connection|connect|pool/i.test(message)
  );
}

