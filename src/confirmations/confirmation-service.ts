import type { Prisma } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import { describeError, HeraldError } from '../shared/errors.js';
import type { ToolDefinition } from '../tools/tool.js';
import { confirmationReply } from './confirmation-replies.js';
import { confirmationAnswer } from './confirmation-words.js';
import { pendingActionsSchema, type ConfirmationAsk, type PendingAction } from './pending-action.js';

/** Finds the tool a held action names (an agent's tool, or one of Herald's own "system" actions). */
export type ToolResolver = (agent: string, tool: string) => ToolDefinition | undefined;

/** What answering a confirmation gave: the reply, said without any model call. */
export interface ConfirmationOutcome {
  reply: string;
  status: 'succeeded' | 'failed';
  errorKind?: string;
  errorMessage?: string;
}

/** Who is answering, and in what words. */
export interface ConfirmationTurn {
  userId: string;
  timezone: string;
  language: string | null;
  text: string;
}

/** How recently a confirmation must have been run for a second YES to be told "already done". */
const REPEATED_YES_WINDOW_MS = 10 * 60 * 1000;

/**
 * Held actions and the user's answer to them (DESIGN.md step 6). A turn whose tools asked
 * for confirmation stages one pending confirmation, in the same transaction as its reply
 * (an older one still pending is cancelled: only the latest question stands). The user's
 * next message decides: YES within the lifetime runs the actions once, NO cancels them,
 * anything else cancels them and is answered normally. No model call either way.
 */
export class ConfirmationService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly resolveTool: ToolResolver,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly ttlMs: number,
  ) {}

  /** Stores what a turn asked to confirm, in the caller's transaction. */
  async stage(transaction: Prisma.TransactionClient, userId: string, turnId: string, ask: ConfirmationAsk): Promise<void> {
    const now = this.clock.now();
    await transaction.pendingConfirmation.updateMany({ where: { userId, status: 'pending' }, data: { status: 'cancelled', resolvedAt: now } });
    await transaction.pendingConfirmation.create({
      data: { userId, turnId, actions: ask.actions as Prisma.InputJsonValue, question: ask.question, expiresAt: new Date(now.getTime() + this.ttlMs), createdAt: now },
    });
  }

  /**
   * Answers the message when it settles a confirmation: YES or NO to a pending one, or a
   * late or repeated YES. Returns undefined when the message is for the orchestrator (and
   * then any pending confirmation is cancelled: the user moved on).
   */
  async respond(turn: ConfirmationTurn): Promise<ConfirmationOutcome | undefined> {
    const answer = confirmationAnswer(turn.text);
    const latest = await this.prisma.pendingConfirmation.findFirst({ where: { userId: turn.userId }, orderBy: { createdAt: 'desc' } });
    const now = this.clock.now();
    if (!latest) return undefined;
    const reply = (kind: Parameters<typeof confirmationReply>[0], values: Record<string, string | number> = {}) => confirmationReply(kind, turn.language, values, turn.text);

    if (latest.status === 'pending' && latest.expiresAt.getTime() <= now.getTime()) {
      await this.prisma.pendingConfirmation.updateMany({ where: { id: latest.id, status: 'pending' }, data: { status: 'expired', resolvedAt: now } });
      if (answer === 'yes') return { reply: reply('expired', { minutes: Math.round(this.ttlMs / 60_000) }), status: 'succeeded' };
      return undefined;
    }
    if (latest.status === 'pending') {
      if (answer === undefined) {
        await this.prisma.pendingConfirmation.updateMany({ where: { id: latest.id, status: 'pending' }, data: { status: 'cancelled', resolvedAt: now } });
        return undefined;
      }
      if (answer === 'no') {
        const cancelled = await this.prisma.pendingConfirmation.updateMany({ where: { id: latest.id, status: 'pending' }, data: { status: 'cancelled', resolvedAt: now } });
        // A YES claimed it in between: say what became of it, never "I won't do that".
        if (cancelled.count === 0) return this.settledElsewhere(latest.id, turn);
        return { reply: reply('cancelled'), status: 'succeeded' };
      }
      return this.run(latest.id, turn);
    }
    const recently = latest.resolvedAt !== null && now.getTime() - latest.resolvedAt.getTime() <= REPEATED_YES_WINDOW_MS;
    if (answer === 'yes' && recently && latest.status === 'done') return { reply: reply('alreadyDone'), status: 'succeeded' };
    if (answer === 'yes' && latest.status === 'executing') return { reply: reply('unsure'), status: 'failed', errorKind: 'interrupted', errorMessage: 'a confirmed action was interrupted' };
    return undefined;
  }

  /** Claims the confirmation (only one YES can), runs its actions in order, and records what happened. */
  private async run(id: string, turn: ConfirmationTurn): Promise<ConfirmationOutcome> {
    const now = this.clock.now();
    const claimed = await this.prisma.pendingConfirmation.updateMany({
      where: { id, status: 'pending', expiresAt: { gt: now } },
      data: { status: 'executing', resolvedAt: now },
    });
    if (claimed.count === 0) return this.settledElsewhere(id, turn);
    const row = await this.prisma.pendingConfirmation.findUniqueOrThrow({ where: { id } });
    const actions = pendingActionsSchema.parse(row.actions);
    const lines: string[] = [];
    const outcome: Array<{ tool: string; ok: boolean; error?: string }> = [];
    for (const action of actions) {
      const result = await this.runOne(action, turn);
      outcome.push({ tool: action.tool, ...result });
      lines.push(result.ok ? action.done : confirmationReply('failed', turn.language, { error: result.error ?? 'unknown error' }, turn.text));
    }
    // updateMany: an action may have erased the confirmation with everything else (DELETE MY DATA).
    await this.prisma.pendingConfirmation.updateMany({ where: { id }, data: { status: 'done', outcome: outcome as Prisma.InputJsonValue } });
    const failures = outcome.filter((entry) => !entry.ok);
    this.logger.info({ confirmationId: id, actions: actions.map((action) => action.tool), failed: failures.length }, 'confirmed actions ran');
    return {
      reply: lines.join('\n'),
      status: failures.length === 0 ? 'succeeded' : 'failed',
      ...(failures.length > 0 ? { errorKind: 'tool', errorMessage: failures.map((entry) => `${entry.tool}: ${entry.error}`).join('; ') } : {}),
    };
  }

  /**
   * The answer when another answer settled the confirmation between our read and our claim
   * (two YES at once, a YES and a NO, or it expired meanwhile): what became of it.
   */
  private async settledElsewhere(id: string, turn: ConfirmationTurn): Promise<ConfirmationOutcome> {
    const row = await this.prisma.pendingConfirmation.findUnique({ where: { id } });
    const status = row?.status;
    const kind = status === 'done' ? 'alreadyDone' : status === 'executing' ? 'unsure' : status === 'cancelled' ? 'cancelled' : 'expired';
    return { reply: confirmationReply(kind, turn.language, { minutes: Math.round(this.ttlMs / 60_000) }, turn.text), status: 'succeeded' };
  }

  /** Runs one held action with its exact arguments, as confirmed; its failure is reported, never thrown. */
  private async runOne(action: PendingAction, turn: ConfirmationTurn): Promise<{ ok: boolean; error?: string }> {
    const tool = this.resolveTool(action.agent, action.tool);
    if (!tool) return { ok: false, error: `that action is no longer available (${action.tool})` };
    const parsed = tool.inputSchema.safeParse(action.input);
    if (!parsed.success) return { ok: false, error: 'the saved request is no longer valid' };
    try {
      const result = await tool.run(parsed.data, { userId: turn.userId, timezone: turn.timezone, clock: this.clock, logger: this.logger, confirmed: true });
      return result.isError ? { ok: false, error: result.error } : { ok: true };
    } catch (error) {
      this.logger.warn({ tool: action.tool, error: describeError(error) }, 'a confirmed action threw');
      // Herald's own errors are worded to be read (a calendar that could not be reached); anything else is a bug.
      return { ok: false, error: error instanceof HeraldError ? error.message : 'something went wrong while doing it' };
    }
  }
}
