import type { Fact, HistoryMessage, OrchestratorContext, UserContext } from '../../../src/context/orchestrator-context.js';

/** Strings planted in memory and history: no sub-agent request may contain them (FR-7, FR-8). */
export const SECRET_FACT = 'Allergic to KIWI-FACT-7731';
export const SECRET_FACT_2 = 'Sister is called MARIGOLD-FACT-2208';
export const SECRET_HISTORY_USER = 'Last week I asked about the HISTORY-PELICAN-4410 trip';
export const SECRET_HISTORY_ASSISTANT = 'Sure, the HISTORY-OTTER-9921 booking is noted';

/** The default user: Dana in Los Angeles. */
const testUser: UserContext = { id: 'user_1', name: 'Dana', timezone: 'America/Los_Angeles', language: 'en', isNew: false };

/** Wednesday 2026-01-28 10:30 in Los Angeles (18:30 UTC). */
export const WEDNESDAY_MORNING = '2026-01-28T18:30:00Z';

export interface ContextOptions {
  text?: string;
  user?: Partial<UserContext>;
  facts?: Fact[];
  history?: HistoryMessage[];
  turnId?: string;
  channel?: 'sms' | 'whatsapp';
}

/** An OrchestratorContext: a user with a time zone, two facts and a short history window. */
export function makeContext(options: ContextOptions = {}): OrchestratorContext {
  return {
    turnId: options.turnId ?? 'turn_1',
    user: { ...testUser, ...options.user },
    channel: options.channel ?? 'sms',
    facts: options.facts ?? [
      { id: 'fact_1', category: 'health', content: SECRET_FACT },
      { id: 'fact_2', category: 'people', content: SECRET_FACT_2 },
    ],
    history: options.history ?? [
      { role: 'user', content: SECRET_HISTORY_USER, createdAt: new Date('2026-01-28T17:00:00Z') },
      { role: 'assistant', content: SECRET_HISTORY_ASSISTANT, createdAt: new Date('2026-01-28T17:00:05Z') },
    ],
    message: { text: options.text ?? 'hello there', messageIds: ['msg_1'], attachments: 0 },
  };
}
