import type { Channel, ReminderDeliveryStatus } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import { fallbackLanguage } from '../orchestrator/fallback-replies.js';
import { addressFor, type OutboxService } from '../outbox/outbox-service.js';
import type { Clock } from '../shared/clock.js';
import { formatLocal, nextOccurrence } from './reminder-schedule.js';
import type { ReminderJobData } from './reminder-queue.js';
import type { ReminderService } from './reminder-service.js';

/** When a reminder counts as late, and when as too late to send as if current. */
export interface ReminderDeliveryPolicy {
  /** Later than this, the text is marked "(late: due at …)". */
  lateAfterMs: number;
  /** Later than this, it is reported as missed instead of sent as if current. */
  maxLatenessMs: number;
  /** Approved WhatsApp template for reminders outside the 24-hour window ({{1}} = the text). */
  whatsappTemplateSid?: string | undefined;
  /**
   * When the follow-up job checks that a staged reminder went out. Later than the
   * outbox's dispatch claim (60 s), so a send cut off by a crash can be taken over.
   */
  recheckAfterMs?: number | undefined;
}

/**
 * A batch of due reminders runs many deliveries at once on a small pool: one waiting for
 * a connection should wait its turn, not fail after Prisma's default 2 s and be retried
 * by the queue seconds later (which is what made reminders late under load).
 */
const DELIVERY_TRANSACTION = { maxWait: 30_000, timeout: 30_000 };

/** Default for {@link ReminderDeliveryPolicy.recheckAfterMs}: the outbox's 60 s claim plus a margin. */
export const DEFAULT_RECHECK_AFTER_MS = 65_000;

/** What happened to one job. */
export type DeliveryOutcome = { kind: 'stale' } | { kind: 'handled'; status: ReminderDeliveryStatus; duplicate: boolean };

const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;

const wording = {
  en: {
    reminder: (text: string) => `⏰ Reminder: ${text}`,
    late: (text: string, due: string) => `⏰ Reminder (late: due at ${due}): ${text}`,
    missed: (text: string, due: string) => `I missed a reminder while I was offline, sorry: "${text}" (it was due ${due}).`,
  },
  he: {
    reminder: (text: string) => `⏰ תזכורת: ${text}`,
    late: (text: string, due: string) => `⏰ תזכורת (באיחור, הייתה אמורה ב-${due}): ${text}`,
    missed: (text: string, due: string) => `פספסתי תזכורת בזמן שלא הייתי זמין, סליחה: "${text}" (הייתה אמורה ב-${due}).`,
  },
};

/**
 * Fires one reminder occurrence, exactly once: in one transaction it records the
 * occurrence (unique per reminder and due time — a retried or duplicated job finds it
 * done), stages the message in the outbox and schedules the next occurrence; then it
 * delivers. Late occurrences say so; very late ones are reported as missed; opted-out
 * users get nothing; outside WhatsApp's 24-hour window the approved template is used, or
 * the occurrence is recorded as undeliverable and the user is told at their next message.
 */
export class ReminderDelivery {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly reminders: ReminderService,
    private readonly outbox: OutboxService,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly policy: ReminderDeliveryPolicy,
  ) {}

  /**
   * For start-up and a periodic sweep: re-enqueues the job of every active reminder whose
   * occurrence is overdue by more than `olderThanMs` and was never handled — its job was
   * lost, or is stuck "active" on an instance that died before its delivery committed
   * (pg-boss expires those only after expireInSeconds, at its next maintenance, minutes
   * later). Harmless when the job is merely slow: an occurrence is handled once, however
   * many jobs it has. Returns how many were re-enqueued.
   */
  async recoverOverdue(olderThanMs = 60_000, limit = 500): Promise<number> {
    const before = new Date(this.clock.now().getTime() - olderThanMs);
    const overdue = await this.prisma.reminder.findMany({
      where: { status: 'active', nextDueAt: { lte: before } },
      select: { id: true, nextDueAt: true },
      orderBy: { nextDueAt: 'asc' },
      take: limit,
    });
    if (overdue.length === 0) return 0;
    const handled = await this.prisma.reminderDelivery.findMany({
      where: { OR: overdue.map((reminder) => ({ reminderId: reminder.id, dueAt: reminder.nextDueAt! })) },
      select: { reminderId: true, dueAt: true },
    });
    const done = new Set(handled.map((delivery) => `${delivery.reminderId}@${delivery.dueAt.getTime()}`));
    const orphaned = overdue.filter((reminder) => !done.has(`${reminder.id}@${reminder.nextDueAt!.getTime()}`));
    if (orphaned.length === 0) return 0;
    await this.prisma.$transaction(async (transaction) => {
      for (const reminder of orphaned) await this.reminders.scheduleOccurrence(transaction, reminder.id, reminder.nextDueAt!);
    });
    this.logger.warn({ reminders: orphaned.length }, 'overdue reminders that were never handled: their jobs were enqueued again');
    return orphaned.length;
  }

  async deliver(job: ReminderJobData): Promise<DeliveryOutcome> {
    const dueAt = new Date(job.dueAt);
    const outcome = await this.prisma.$transaction(async (transaction) => {
      // Row lock: a concurrent edit of this reminder waits for us, and we for it.
      const [reminder] = await transaction.$queryRaw<Array<{ id: string }>>`SELECT id FROM "Reminder" WHERE id = ${job.reminderId}::uuid FOR UPDATE`;
      if (!reminder) return { kind: 'stale' as const };
      const current = await transaction.reminder.findUniqueOrThrow({ where: { id: job.reminderId }, include: { user: true } });
      const existing = await transaction.reminderDelivery.findUnique({ where: { reminderId_dueAt: { reminderId: current.id, dueAt } } });
      if (existing) return { kind: 'handled' as const, status: existing.status, duplicate: true, groupId: existing.outboundGroupId };
      if (current.status !== 'active' || current.nextDueAt?.getTime() !== dueAt.getTime()) return { kind: 'stale' as const };

      const now = this.clock.now();
      const { user } = current;
      const lateness = now.getTime() - dueAt.getTime();
      const language = fallbackLanguage(user.language);
      const due = formatLocal(dueAt, current.timezone);
      let status: ReminderDeliveryStatus;
      let text: string | undefined;
      if (user.optedOut) status = 'opted_out';
      else if (lateness > this.policy.maxLatenessMs) [status, text] = ['reported', wording[language].missed(current.text, due)];
      else if (lateness > this.policy.lateAfterMs) [status, text] = ['late', wording[language].late(current.text, due)];
      else [status, text] = ['sent', wording[language].reminder(current.text)];

      const channel: Channel = user.preferredChannel;
      let groupId: string | null = null;
      if (text) {
        const windowOpen = user.lastWhatsappInboundAt !== null && now.getTime() - user.lastWhatsappInboundAt.getTime() < WHATSAPP_WINDOW_MS;
        const template = channel === 'whatsapp' && !windowOpen ? this.policy.whatsappTemplateSid : undefined;
        if (channel === 'whatsapp' && !windowOpen && !template) {
          status = 'undeliverable';
        } else {
          const staged = await this.outbox.stage(transaction, {
            userId: user.id,
            kind: 'reminder',
            channel,
            toAddress: addressFor(user.phone, channel),
            text,
            template: template ? { contentSid: template, variables: { '1': current.text } } : undefined,
          });
          groupId = staged.groupId;
        }
      }
      await transaction.reminderDelivery.create({
        data: { reminderId: current.id, userId: user.id, dueAt, status, outboundGroupId: groupId, handledAt: now },
      });
      // Missed occurrences during downtime are not replayed one by one: the next one is after now.
      const next = current.rrule ? nextOccurrence(current.rrule, current.startLocal, current.timezone, new Date(Math.max(dueAt.getTime(), now.getTime()))) : undefined;
      await transaction.reminder.update({
        where: { id: current.id },
        data: {
          nextDueAt: next ?? null,
          status: next ? 'active' : 'completed',
          ...(groupId ? { occurrencesSent: { increment: 1 }, lastSentAt: now } : {}),
          updatedAt: now,
        },
      });
      if (next) await this.reminders.scheduleOccurrence(transaction, current.id, next);
      // This job stays "active" until pg-boss expires it (minutes) if the process dies while
      // sending; the follow-up lets any instance finish the send soon after the outbox claim
      // lapses. It finds the occurrence recorded and only delivers parts still pending.
      if (groupId) {
        await this.reminders.scheduleOccurrence(transaction, current.id, dueAt, new Date(now.getTime() + (this.policy.recheckAfterMs ?? DEFAULT_RECHECK_AFTER_MS)));
      }
      return { kind: 'handled' as const, status, duplicate: false, groupId };
    }, DELIVERY_TRANSACTION);
    if (outcome.kind === 'stale') return outcome;
    // Also on a duplicate: a crash between commit and delivery leaves the parts pending.
    if (outcome.groupId) {
      const delivery = await this.outbox.flushGroup(outcome.groupId);
      // Twilio is struggling: fail the job so the queue retries it later; the retry finds
      // the occurrence recorded and only delivers the parts still pending.
      if (delivery.kind === 'retry_later') throw new Error(`reminder ${job.reminderId} delivery deferred until ${delivery.at.toISOString()}`);
    }
    if (!outcome.duplicate) this.logger.info({ reminderId: job.reminderId, dueAt: job.dueAt, status: outcome.status }, 'reminder occurrence handled');
    return { kind: 'handled', status: outcome.status, duplicate: outcome.duplicate };
  }
}
