import type { PrismaClient } from '../db/prisma-types.js';
import type { Clock } from '../shared/clock.js';
import type { HistoryMessage } from './orchestrator-context.js';

/** The sliding window's limits (seed 000 "Conversation History Window"). */
export interface HistoryWindowConfig {
  maxAgeHours: number;
  maxMessages: number;
  maxTokens: number;
}

/** A stored message with its pre-computed token count. */
export interface WindowCandidate extends HistoryMessage {
  tokenCount: number;
}

/**
 * Applies the window to messages given newest first: keep the newest up to
 * `maxMessages`, then drop the oldest until the total fits `maxTokens`. Returns them
 * oldest first, the order a conversation is read in.
 */
export function applyHistoryWindow(newestFirst: WindowCandidate[], config: HistoryWindowConfig): HistoryMessage[] {
  const kept: HistoryMessage[] = [];
  let tokens = 0;
  for (const message of newestFirst.slice(0, config.maxMessages)) {
    if (tokens + message.tokenCount > config.maxTokens) break;
    tokens += message.tokenCount;
    kept.push({
      role: message.role,
      content: message.content,
      createdAt: message.createdAt,
      ...(message.transcribed ? { transcribed: true } : {}),
      ...(message.attachments ? { attachments: message.attachments } : {}),
    });
  }
  return kept.reverse();
}

/**
 * Loads the user's conversation window from Postgres: messages of the last
 * `maxAgeHours` (what Herald sent on its own, such as reminders, included), excluding the
 * ones being answered now, progress notes, and inbound messages that were deliberately
 * left unanswered.
 */
export async function loadHistoryWindow(
  prisma: PrismaClient,
  clock: Clock,
  userId: string,
  excludeMessageIds: string[],
  config: HistoryWindowConfig,
): Promise<HistoryMessage[]> {
  const since = new Date(clock.now().getTime() - config.maxAgeHours * 3_600_000);
  const rows = await prisma.message.findMany({
    where: {
      userId,
      createdAt: { gte: since },
      id: { notIn: excludeMessageIds },
      // Everything Herald sent is in it (reminders, notices), but not "on it" progress notes, which say nothing.
      kind: { not: 'progress' },
      OR: [{ role: 'assistant' }, { inboundStatus: 'handled' }],
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: config.maxMessages,
    select: { role: true, content: true, createdAt: true, tokenCount: true, transcribed: true, numMedia: true },
  });
  return applyHistoryWindow(
    rows.map(({ numMedia, ...row }) => ({ ...row, attachments: numMedia })),
    config,
  );
}
