import type { PrismaClient } from '../db/prisma-types.js';
import type { Clock } from '../shared/clock.js';
import type { UserService } from '../users/user-service.js';
import { loadHistoryWindow, type HistoryWindowConfig } from './history-window.js';
import type { OrchestratorContext, ResumedPlan, TurnAttachment } from './orchestrator-context.js';

export type { ResumedPlan } from './orchestrator-context.js';
import { capTurnText } from './message-cap.js';
import { countryOfPhone } from '../channels/phone-number.js';

/** The message (or burst of messages) a turn answers. */
export interface TurnInput {
  turnId: string;
  userId: string;
  channel: 'sms' | 'whatsapp' | 'rcs';
  messages: Array<{ id: string; content: string; numMedia: number }>;
  /** The plan whose question these messages answer. */
  resume?: ResumedPlan | undefined;
  /**
   * What src/media made of the turn's attachments, voice notes and pin. When given, the
   * turn's text is `parts` (typed and spoken) and attachments are accounted for by it.
   */
  media?: {
    parts: Array<{ text: string; spoken: boolean }>;
    attachments: TurnAttachment[];
    location?: string | undefined;
    notes: string[];
  };
}

/**
 * Builds the OrchestratorContext for a turn: user config, facts and the history window,
 * loaded in parallel (seed 000 "Message Handler Flow").
 */
export class ContextAssembler {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly users: UserService,
    private readonly clock: Clock,
    private readonly window: HistoryWindowConfig,
    /** TURN_MAX_MESSAGE_TOKENS: the most of the turn's own text the model is shown. */
    private readonly maxMessageTokens = Number.POSITIVE_INFINITY,
  ) {}

  async assemble(input: TurnInput): Promise<OrchestratorContext> {
    const messageIds = input.messages.map((message) => message.id);
    const [user, facts, history, answeredBefore] = await Promise.all([
      this.users.getConfig(input.userId),
      this.prisma.fact.findMany({
        where: { userId: input.userId },
        orderBy: [{ category: 'asc' }, { createdAt: 'asc' }],
        select: { id: true, category: true, content: true },
      }),
      loadHistoryWindow(this.prisma, this.clock, input.userId, messageIds, this.window),
      this.hasModelAnswered(input.userId),
    ]);
    if (!user) throw new Error(`turn ${input.turnId}: user ${input.userId} does not exist`);
    const media = input.media;
    const texts = media ? media.parts.map((part) => part.text) : input.messages.map((message) => message.content);
    const capped = capTurnText(texts.filter((text) => text.length > 0).join('\n'), this.maxMessageTokens);
    const country = countryOfPhone(user.phone);
    return {
      turnId: input.turnId,
      // Onboarding (ask for a name, confirm the time zone) belongs to the first answer only.
      // Nothing records a name on the User row yet (memory-agent keeps "my name is…" as a
      // fact), so keying it on the name alone would ask on every message, forever.
      user: { id: user.id, name: user.name, timezone: user.timezone, language: user.language, ...(country ? { country } : {}), isNew: user.isNew && !answeredBefore, ...(user.trip ? { trip: user.trip } : {}) },
      channel: input.channel,
      facts,
      history,
      message: {
        text: capped.text,
        messageIds,
        attachments: media ? 0 : input.messages.reduce((total, message) => total + message.numMedia, 0),
        ...(capped.cut ? { cut: capped.cut } : {}),
        ...(media && media.parts.some((part) => part.spoken) ? { parts: media.parts } : {}),
        ...(media && media.attachments.length > 0 ? { media: media.attachments } : {}),
        ...(media?.location ? { location: media.location } : {}),
        ...(media && media.notes.length > 0 ? { mediaNotes: media.notes } : {}),
      },
      ...(input.resume ? { resume: input.resume } : {}),
    };
  }

  /** Whether the model has already answered this user in an earlier turn (keyword and media-only replies do not count). */
  private async hasModelAnswered(userId: string): Promise<boolean> {
    const earlier = await this.prisma.turn.findFirst({ where: { userId, status: 'succeeded', modelCalls: { gt: 0 } }, select: { id: true } });
    return earlier !== null;
  }
}
