import type { Prisma } from '../generated/prisma/client.js';
import { fallbackLanguage } from '../orchestrator/fallback-replies.js';
import type { OutboundDraft, OutboxService } from '../outbox/outbox-service.js';
import { estimateTokens } from '../shared/tokens.js';
import { say } from '../texts/texts.js';
import { formatLocal } from './reminder-schedule.js';

/**
 * Reminders that could not be delivered (WhatsApp window closed, no template) are told
 * to the user at their next message: staged before the reply, in the same transaction,
 * stored as a message of the conversation, and marked as told so they are told once.
 */
export async function stageMissedReminderNotice(
  transaction: Prisma.TransactionClient,
  outbox: OutboxService,
  draft: Omit<OutboundDraft, 'text' | 'kind'> & { language: string | null; now: Date },
): Promise<number> {
  const missed = await transaction.reminderDelivery.findMany({
    where: { userId: draft.userId, status: 'undeliverable', noticeDeliveredAt: null },
    include: { reminder: { select: { text: true, timezone: true } } },
    orderBy: { dueAt: 'asc' },
    take: 20,
  });
  if (missed.length === 0) return 0;
  const lines = missed.map((delivery) => `• ${delivery.reminder.text} (${formatLocal(delivery.dueAt, delivery.reminder.timezone)})`);
  const { language, now, ...outbound } = draft;
  const text = say(fallbackLanguage(language), lines.length === 1 ? 'reminderUndeliveredOne' : 'reminderUndelivered', { items: lines.join('\n') });
  const staged = await outbox.stage(transaction, { ...outbound, kind: 'system', text });
  await transaction.message.create({
    data: { userId: draft.userId, role: 'assistant', kind: 'reminder_notice', content: text, channel: draft.channel, tokenCount: estimateTokens(text), turnId: draft.turnId ?? null, outboundGroupId: staged.groupId, createdAt: now },
  });
  await transaction.reminderDelivery.updateMany({ where: { id: { in: missed.map((delivery) => delivery.id) } }, data: { noticeDeliveredAt: now } });
  return missed.length;
}
