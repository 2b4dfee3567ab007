import type { PrismaClient } from '../../db/prisma-types.js';
import { readButtonPayload } from '../../questions/button-payload.js';
import type { PendingQuestions } from '../../questions/pending-questions.js';
import { say } from '../../texts/texts.js';
import { withoutModel } from '../turn-outcome.js';
import type { IncomingTurn, TurnAnswer } from './turn-answer.js';

/**
 * A tap on one of Herald's buttons (WhatsApp or RCS quick reply, list picker: Twilio's
 * `ButtonPayload`), without a model. The payload names the question by its short id and
 * the answer exactly as it could be typed ("yes", "no", "2"); a tap on the open question
 * is handed to the confirmation or choice answer as that text, so it acts exactly as a
 * typed YES or "2" would. A payload that names no question of this user (another user's,
 * or not Herald's) is not a tap: the message is read as the text it carries. A tap on a
 * question that expired or was already settled says so; the same button tapped again (ten
 * taps in a second) is answered once: the repeats are silent.
 */
export function tapAnswer(deps: { prisma: PrismaClient; questions: PendingQuestions; confirmation: TurnAnswer; choice: TurnAnswer }): TurnAnswer {
  return {
    name: 'tap',
    async answer(turn) {
      const payload = turn.latest.buttonPayload;
      const tap = readButtonPayload(payload);
      if (!tap || !payload) return undefined;
      const question = await deps.questions.byShortId(turn.user.id, tap.shortId);
      if (!question || (question.kind !== 'confirmation' && question.kind !== 'choice')) {
        turn.logger.warn({ payloadKind: 'herald' }, 'a tap named no question of this user; read as text');
        return undefined;
      }
      const current = (await turn.questions()).find((candidate) => candidate.id === question.id);
      const resuming = current?.status === 'executing' && current.claimedBy !== null && turn.batch.some((message) => message.id === current.claimedBy);
      if (current && (current.status === 'pending' || resuming)) {
        turn.logger.info({ questionId: question.id, answer: tap.answer }, 'a tap answers the open question');
        const typed: IncomingTurn = { ...turn, text: tap.answer };
        return (question.kind === 'confirmation' ? deps.confirmation : deps.choice).answer(typed);
      }
      if (await repeatedTap(deps.prisma, turn, payload)) {
        turn.logger.info({ questionId: question.id }, 'the same button tapped again; already answered, so nothing is said');
        return withoutModel({ ignored: true });
      }
      // The latest questions were read with the injected clock: one past its lifetime is marked expired there.
      const expired = (current?.status ?? question.status) === 'expired';
      const minutes = Math.round(deps.questions.ttlMs / 60_000);
      return withoutModel({ reply: say(turn.language, expired ? 'tapExpired' : 'tapClosed', { minutes }) });
    },
  };
}

/** Whether the user tapped this very button before this turn's messages (a burst of taps). */
async function repeatedTap(prisma: PrismaClient, turn: IncomingTurn, payload: string): Promise<boolean> {
  const earlier = await prisma.message.count({
    where: { userId: turn.user.id, role: 'user', buttonPayload: payload, id: { notIn: turn.batch.map((message) => message.id) }, createdAt: { lte: turn.latest.createdAt } },
  });
  return earlier > 0;
}
