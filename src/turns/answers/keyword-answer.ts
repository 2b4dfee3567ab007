import type { PendingQuestions } from '../../questions/pending-questions.js';
import type { UserService } from '../../users/user-service.js';
import { keywordReply } from '../keyword-replies.js';
import { withoutModel } from '../turn-outcome.js';
import type { TurnAnswer } from './turn-answer.js';

/**
 * STOP, START and HELP (by channel: src/channels/keywords.ts). Opting out also drops any
 * question Herald is waiting on: a CANCEL on SMS while "Delete Dentist?" waits unsubscribes,
 * and the delete must not wait for a YES that can no longer be asked for.
 */
export function keywordAnswer(deps: { users: UserService; questions: PendingQuestions }): TurnAnswer {
  return {
    name: 'keyword',
    async answer(turn) {
      if (!turn.keyword) return undefined;
      if (turn.keyword === 'stop') {
        await deps.users.setOptedOut(turn.user.id, true);
        await deps.questions.cancelAll(turn.user.id);
      }
      if (turn.keyword === 'start') await deps.users.setOptedOut(turn.user.id, false);
      // Twilio's Advanced Opt-Out already answered this keyword on SMS; a second answer
      // would be noise (and, after STOP, Twilio would refuse it with 21610).
      if (turn.latest.optOutType) return withoutModel();
      return withoutModel({ reply: keywordReply(turn.keyword, turn.language), replyKind: 'notice' });
    },
  };
}
