import type { Channel, Message } from '../../generated/prisma/client.js';
import type { KeywordCommand } from '../../channels/keywords.js';
import type { Logger } from '../../logging/logger.js';
import type { LatestQuestion } from '../../questions/pending-questions.js';

export type { LatestQuestion } from '../../questions/pending-questions.js';
import type { TextLanguage } from '../../texts/texts.js';
import type { UserConfig } from '../../users/user-service.js';
import type { TurnCommand } from '../turn-commands.js';
import type { TurnOutcome } from '../turn-outcome.js';

/** The turn as the model-free answers see it. */
export interface IncomingTurn {
  turnId: string;
  user: UserConfig;
  /** The inbound messages this turn answers, in arrival order. */
  batch: Message[];
  latest: Message;
  channel: Channel;
  /** What the user said: a quick burst of the same answer ("yes", "yes!") is one answer. */
  text: string;
  keyword: KeywordCommand | undefined;
  command: TurnCommand | undefined;
  /**
   * The batch brings something Herald reads besides its text (a photo, a PDF, a voice note, a
   * pin: src/media). Such a message is a turn of its own: a question waiting for YES or a
   * pick stays pending (a spoken "yes" never confirms), and an empty text is not "empty".
   */
  carriesMedia: boolean;
  /** The language of Herald's own words for this message (src/texts). */
  language: TextLanguage;
  logger: Logger;
  /** The latest turn's questions, newest first (read once per turn). */
  questions(): Promise<LatestQuestion[]>;
}

/**
 * One answer that needs no model (docs/ARCHITECTURE.md "Conversation"): a keyword, a command, YES/NO,
 * a number for "which one?", snooze/done after a reminder. The runner tries them in order
 * before the orchestrator; the first to return an outcome answers the turn. Each is its own
 * small file in this folder.
 */
export interface TurnAnswer {
  /** For logs: "keyword", "confirmation"… */
  name: string;
  answer(turn: IncomingTurn): Promise<TurnOutcome | undefined>;
}
