import { confirmationQuestion } from '../../questions/pending-question.js';
import { withoutModel } from '../turn-outcome.js';
import type { TurnAnswer } from './turn-answer.js';

/** MY DATA, DELETE MY DATA and the owners' commands (src/turns/turn-commands.ts). */
export const commandAnswer: TurnAnswer = {
  name: 'command',
  async answer(turn) {
    if (!turn.command) return undefined;
    const result = await turn.command.run();
    const { confirmation } = result;
    return withoutModel({
      reply: result.reply,
      ...(confirmation ? { questions: [confirmationQuestion(confirmation)] } : {}),
    });
  },
};
