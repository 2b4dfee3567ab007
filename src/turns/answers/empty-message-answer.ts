import { fallbackReply } from '../../texts/fallback-replies.js';
import { withoutModel } from '../turn-outcome.js';
import type { TurnAnswer } from './turn-answer.js';

/**
 * Nothing to read: attachments only, or nothing at all (an empty SMS, a WhatsApp location or
 * contact card). A model call could only guess; answer without one, in the stored language.
 * Attachments Herald can read (src/media) are not "nothing": the orchestrator gets them.
 */
export const emptyMessageAnswer: TurnAnswer = {
  name: 'empty',
  async answer(turn) {
    if (turn.carriesMedia || !turn.batch.every((message) => message.content.trim() === '')) return undefined;
    const kind = turn.batch.some((message) => message.numMedia > 0) ? 'mediaOnly' : 'empty';
    return withoutModel({ reply: fallbackReply(kind, turn.language) });
  },
};
