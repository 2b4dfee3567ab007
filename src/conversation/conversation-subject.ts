import type { Message } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Clock } from '../shared/clock.js';

import type { ConversationSubject } from '../context/orchestrator-context.js';

export type { ConversationSubject } from '../context/orchestrator-context.js';

/**
 * Ties a reply to what it answers. On WhatsApp a reply that quotes one of Herald's messages
 * carries that message's Twilio sid (OriginalRepliedMessageSid): its outbox part leads to
 * the conversation message, whatever its age. Otherwise a reminder delivered within the
 * reply window (REMINDER_REPLY_WINDOW_MS) is the subject.
 */
export class ConversationSubjects {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    private readonly replyWindowMs: number,
  ) {}

  async of(userId: string, latest: Pick<Message, 'quotedSid'>): Promise<ConversationSubject | undefined> {
    if (latest.quotedSid) {
      const quoted = await this.quoted(userId, latest.quotedSid);
      if (quoted) return quoted;
    }
    const since = new Date(this.clock.now().getTime() - this.replyWindowMs);
    const recent = await this.prisma.message.findFirst({
      where: { userId, role: 'assistant', kind: { in: ['reminder', 'reminder_missed'] }, createdAt: { gte: since }, reminderId: { not: null } },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      include: { reminder: { select: { text: true } } },
    });
    if (!recent?.reminderId || !recent.reminder) return undefined;
    return { kind: 'reminder', reminderId: recent.reminderId, dueAt: recent.reminderDueAt, text: recent.reminder.text, message: recent.content, sentAt: recent.createdAt, quoted: false };
  }

  private async quoted(userId: string, sid: string): Promise<ConversationSubject | undefined> {
    const part = await this.prisma.outboundMessage.findFirst({ where: { userId, twilioSid: sid }, select: { groupId: true } });
    if (!part) return undefined;
    const message = await this.prisma.message.findFirst({ where: { userId, outboundGroupId: part.groupId }, include: { reminder: { select: { text: true } } } });
    if (!message) return undefined;
    if (message.reminderId && message.reminder) {
      return { kind: 'reminder', reminderId: message.reminderId, dueAt: message.reminderDueAt, text: message.reminder.text, message: message.content, sentAt: message.createdAt, quoted: true };
    }
    return { kind: 'message', message: message.content, sentAt: message.createdAt, quoted: true };
  }
}
