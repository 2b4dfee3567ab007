import type { Prisma } from '../generated/prisma/client.js';
import type { OutboundDraft } from '../outbox/outbound-draft.js';
import type { OutboxService } from '../outbox/outbox-service.js';
import { estimateTokens } from '../shared/tokens.js';
import { readerLanguage, say } from '../texts/texts.js';
import { formatLocal } from './reminder-schedule.js';

/**
 * Reminders that could not be delivered (WhatsApp window closed, no template) are told
 * to the user at their next message: staged before the reply, in the same transaction,
 * stored as a message of the conversation, and marked as told so they are told once. The
 * occurrences are locked as they are read (FOR UPDATE): a commit racing this one waits, then
 * finds them told, so the user is told once even without the turn lease that normally keeps
 * two commits apart.
 */
export async function stageMissedReminderNotice(
  transaction: Prisma.TransactionClient,
  outbox: OutboxService,
  draft: Omit<OutboundDraft, 'text' | 'kind'> & { language: string | null; now: Date },
): Promise<number> {
  // Read committed: a transaction that waited for these locks re-checks the condition on
  // the rows as the other left them, and skips the ones it marked told.
  const locked = await transaction.$queryRaw<Array<{ id: string }>>`
    SELECT "id" FROM "ReminderDelivery"
    WHERE "userId" = ${draft.userId}::uuid AND "status" = 'undeliverable' AND "noticeDeliveredAt" IS NULL
    ORDER BY "dueAt" LIMIT 20
    FOR UPDATE`;
  if (locked.length === 0) return 0;
  const missed = await transaction.reminderDelivery.findMany({
    where: { id: { in: locked.map((row) => row.id) } },
    include: { reminder: { select: { text: true, timezone: true } } },
    orderBy: { dueAt: 'asc' },
  });
  const lines = missed.map((delivery) => `• ${delivery.reminder.text} (${formatLocal(delivery.dueAt, delivery.reminder.timezone)})`);
  const { language, now, ...outbound } = draft;
  const text = say(readerLanguage(language), lines.length === 1 ? 'reminderUndeliveredOne' : 'reminderUndelivered', { items: lines.join('\n') });
  const staged = await outbox.stage(transaction, { ...outbound, kind: 'system', text });
  await transaction.message.create({
    data: { userId: draft.userId, role: 'assistant', kind: 'reminder_notice', content: text, channel: draft.channel, tokenCount: estimateTokens(text), turnId: draft.turnId ?? null, outboundGroupId: staged.groupId, createdAt: now },
  });
  await transaction.reminderDelivery.updateMany({ where: { id: { in: missed.map((delivery) => delivery.id) } }, data: { noticeDeliveredAt: now } });
  return missed.length;
}
