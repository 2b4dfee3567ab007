import type { ActionRunner } from '../../questions/action-runner.js';
import { questionFor, withAsk, type PendingAction } from '../../questions/pending-action.js';
import { pickCandidates, yesOrNo, type ChoicePick } from '../../questions/answer-words.js';
import { choicePayloadSchema, type ChoicePayload } from '../../questions/pending-question.js';
import type { PendingQuestions } from '../../questions/pending-questions.js';
import { say } from '../../texts/texts.js';
import { withoutModel, type TurnOutcome } from '../turn-outcome.js';
import type { IncomingTurn, LatestQuestion, TurnAnswer } from './turn-answer.js';

/**
 * The answer to Herald's own "Which one? 1) … 2) …" (or "Did you mean …?"), without a
 * model: a number, an ordinal, "both"/"all" or words of one label run the held call on
 * the picked candidate(s), pinned to them by id; a call that deletes still asks YES first.
 * NO drops the question. A number outside the list is asked about again, once. Anything
 * else drops it and is an ordinary message (the user moved on).
 */
export function choiceAnswer(deps: { questions: PendingQuestions; runner: ActionRunner }): TurnAnswer {
  return {
    name: 'choice',
    async answer(turn) {
      // A photo or a voice note while the question waits is a turn of its own, and the question stays.
      if (turn.carriesMedia) return undefined;
      const choice = (await turn.questions()).find((question) => question.kind === 'choice');
      if (!choice) return undefined;
      const payload = choicePayloadSchema.parse(choice.payload);
      if (choice.status === 'executing' && choice.claimedBy && turn.batch.some((message) => message.id === choice.claimedBy)) {
        // This very message picked before its turn was cut short: finish what it picked.
        const indexes = Array.isArray(choice.answer) ? (choice.answer as number[]) : [];
        return act(choice, payload, indexes, turn, deps);
      }
      if (choice.status !== 'pending') return undefined;
      const pick = readPick(turn.text, payload);
      if (!pick) {
        await deps.questions.cancel(choice, 'dropped');
        return undefined;
      }
      if (pick.kind === 'none') {
        await deps.questions.cancel(choice, 'declined');
        return withoutModel({ reply: say(turn.language, 'choiceDropped') });
      }
      if (pick.kind === 'out_of_range') {
        if (payload.askedAgain) {
          await deps.questions.cancel(choice, 'dropped');
          return undefined;
        }
        await deps.questions.update(choice.id, { ...payload, askedAgain: true });
        return withoutModel({ reply: say(turn.language, 'choiceAskAgain', { count: payload.candidates.length }) });
      }
      const claim = await deps.questions.claim(choice.id, turn.batch.map((message) => message.id), pick.indexes);
      if (claim === 'taken') return withoutModel({ reply: say(turn.language, 'confirmAlreadyDone') });
      return act(choice, payload, pick.indexes, turn, deps);
    },
  };
}

/** A call that reports in its own words (Herald's set_timezone: "Got it: New York time"). */
function ownWords(output: unknown): string | undefined {
  const reply = (output as { reply?: unknown } | null)?.reply;
  return typeof reply === 'string' && reply !== '' ? reply : undefined;
}

function readPick(text: string, payload: ChoicePayload): ChoicePick | undefined {
  if (payload.weak) {
    const answer = yesOrNo(text);
    if (answer === 'yes') return { kind: 'pick', indexes: [0] };
    return answer === 'no' ? { kind: 'none' } : undefined;
  }
  return pickCandidates(text, payload.candidates.map((candidate) => candidate.label));
}

/** Runs the held call on each picked candidate; a call that must be confirmed becomes one YES question for all of them. */
async function act(choice: LatestQuestion, payload: ChoicePayload, indexes: number[], turn: IncomingTurn, deps: { questions: PendingQuestions; runner: ActionRunner }): Promise<TurnOutcome> {
  const actionTurn = { userId: turn.user.id, timezone: turn.user.timezone, language: turn.language };
  const lines: string[] = [];
  const held: PendingAction[] = [];
  const record: Array<{ label: string; ok: boolean; held?: boolean; error?: string }> = [];
  for (const index of indexes) {
    const candidate = payload.candidates[index];
    if (!candidate) continue;
    const call = { agent: payload.agent, tool: payload.tool, input: candidate.input };
    const confirmation = await deps.runner.confirmationFor(call, actionTurn);
    if (confirmation) {
      held.push({ ...call, input: confirmation.input, question: confirmation.question, done: confirmation.done });
      record.push({ label: candidate.label, ok: true, held: true });
      continue;
    }
    const result = await deps.runner.run(call, actionTurn, false);
    if (result.ok) lines.push(ownWords(result.output) ?? say(turn.language, 'choiceDone', { label: candidate.label }));
    else if (result.gone) lines.push(say(turn.language, 'choiceGone', { label: candidate.label }));
    else lines.push(say(turn.language, 'actionFailed', { error: result.error }));
    record.push({ label: candidate.label, ok: result.ok, ...(result.ok ? {} : { error: result.error }) });
  }
  await deps.questions.finish(choice, record, record.every((entry) => entry.ok));
  turn.logger.info({ questionId: choice.id, picked: indexes, held: held.length }, 'a choice was answered without a model');
  if (held.length === 0) return withoutModel({ reply: lines.join('\n'), status: record.every((entry) => entry.ok) ? 'succeeded' : 'failed' });
  const question = questionFor(held);
  return withoutModel({
    reply: [...lines, withAsk(question, say(turn.language, 'confirmAsk'))].join('\n'),
    questions: [{ kind: 'confirmation', question, payload: { actions: held } }],
  });
}
