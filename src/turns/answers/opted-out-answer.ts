import { withoutModel } from '../turn-outcome.js';
import type { TurnAnswer } from './turn-answer.js';

/** An opted-out user's messages are kept, marked ignored, and never answered (until START). */
export const optedOutAnswer: TurnAnswer = {
  name: 'opted_out',
  async answer(turn) {
    return turn.user.optedOut ? withoutModel({ ignored: true }) : undefined;
  },
};
