import { pickCandidates } from '../../questions/answer-words.js';
import { choicePayloadSchema } from '../../questions/pending-question.js';
import type { PendingQuestions } from '../../questions/pending-questions.js';
import type { Clock } from '../../shared/clock.js';
import { mentionsTime } from '../../time/mentions-time.js';
import { SET_TIMEZONE_ACTION, type WaitingMessages } from '../../timezones/set-timezone-action.js';
import { askZone, shouldAskZone } from '../../timezones/zone-question.js';
import { say } from '../../texts/texts.js';
import { withoutModel } from '../turn-outcome.js';
import type { TurnAnswer } from './turn-answer.js';

/**
 * Asks a user whose zone Herald only guessed which time it is where they are, once, at the
 * first message that needs a time ("remind me at 5pm"): that message waits, and the pick
 * (answered by the choice answer, without a model) settles the zone and puts it back in line
 * (src/timezones). A reply that is not a pick drops the question and the waiting message runs
 * after it, on the guess, which its reply then states.
 */
export function zoneQuestionAnswer(deps: { questions: PendingQuestions; waiting: WaitingMessages; clock: Clock }): TurnAnswer {
  return {
    name: 'zone',
    async answer(turn) {
      const asked = (await turn.questions()).find((question) => question.kind === 'choice' && question.status === 'pending');
      const payload = asked ? choicePayloadSchema.safeParse(asked.payload) : undefined;
      if (asked && payload?.success && payload.data.agent === SET_TIMEZONE_ACTION.agent && payload.data.tool === SET_TIMEZONE_ACTION.tool) {
        const pick = turn.carriesMedia ? undefined : pickCandidates(turn.text, payload.data.candidates.map((candidate) => candidate.label));
        // One pick is the choice answer's to run; anything else drops the question, and what waited runs next.
        if (pick?.kind === 'pick' && pick.indexes.length === 1) return undefined;
        await deps.questions.cancel(asked, pick?.kind === 'none' ? 'declined' : 'dropped');
        const first = payload.data.candidates[0]?.input as { replay?: string[] } | undefined;
        await deps.waiting.release(turn.user.id, first?.replay ?? []);
        turn.logger.info({ questionId: asked.id }, 'the zone question was not answered with a pick; the waiting message runs on the guess');
        return pick?.kind === 'none' ? withoutModel({ reply: say(turn.language, 'choiceDropped') }) : undefined;
      }
      if (!shouldAskZone(turn.user) || turn.carriesMedia || turn.keyword || turn.command) return undefined;
      if (!mentionsTime(turn.text, turn.language)) return undefined;
      const now = deps.clock.now();
      const ask = askZone(turn.user, turn.batch.map((message) => message.id), turn.language, now);
      turn.logger.info({ event: 'zone_asked', guess: turn.user.timezone }, 'asked the user which time zone they are in');
      return withoutModel({
        reply: ask.reply,
        questions: [ask.question],
        effects: [async (transaction) => void (await transaction.user.update({ where: { id: turn.user.id }, data: { timezoneAskedAt: now } }))],
      });
    },
  };
}
