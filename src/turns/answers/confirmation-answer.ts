import type { ActionRunner } from '../../questions/action-runner.js';
import type { PendingAction } from '../../questions/pending-action.js';
import { yesOrNo } from '../../questions/answer-words.js';
import { confirmationPayloadSchema } from '../../questions/pending-question.js';
import type { PendingQuestions } from '../../questions/pending-questions.js';
import type { Clock } from '../../shared/clock.js';
import { say } from '../../texts/texts.js';
import { withoutModel, type TurnOutcome } from '../turn-outcome.js';
import type { IncomingTurn, LatestQuestion, TurnAnswer } from './turn-answer.js';

/** How recently a confirmation must have been run for a second YES to be told "already done". */
const REPEATED_YES_WINDOW_MS = 10 * 60 * 1000;

/**
 * YES or NO to held actions (docs/ARCHITECTURE.md "The orchestrator", step 6), without a model: YES within the lifetime
 * claims the confirmation (only one answer can) and runs its actions once, in order; NO
 * cancels it; anything else cancels it and moves on (the user changed the subject). A late
 * YES is told it came too late; a repeated one that it is already done.
 */
export function confirmationAnswer(deps: { questions: PendingQuestions; runner: ActionRunner; clock: Clock }): TurnAnswer {
  return {
    name: 'confirmation',
    async answer(turn) {
      // A photo or a voice note while the question waits is a turn of its own, and the question
      // stays: a spoken "yes" (or a caption) never confirms, a typed YES does.
      if (turn.carriesMedia) return undefined;
      const confirmation = (await turn.questions()).find((question) => question.kind === 'confirmation');
      if (!confirmation) return undefined;
      const answer = yesOrNo(turn.text);
      const minutes = Math.round(deps.questions.ttlMs / 60_000);
      switch (confirmation.status) {
        case 'expired':
          return confirmation.expiredNow && answer === 'yes' ? withoutModel({ reply: say(turn.language, 'confirmExpired', { minutes }) }) : undefined;
        case 'pending':
          if (answer === undefined) {
            await deps.questions.cancel(confirmation, 'dropped');
            return undefined;
          }
          if (answer === 'no') {
            // A YES may have claimed it between our read and this NO: say what became of it, never "I won't do that".
            if (!(await deps.questions.cancel(confirmation, 'declined'))) return settledElsewhere(confirmation, turn, deps);
            return withoutModel({ reply: say(turn.language, 'confirmCancelled') });
          }
          return run(confirmation, turn, deps);
        case 'executing':
          // This very message claimed it before its turn was cut short: carry on.
          if (confirmation.claimedBy && turn.batch.some((message) => message.id === confirmation.claimedBy)) return run(confirmation, turn, deps);
          return answer === 'yes' ? withoutModel({ reply: say(turn.language, 'confirmUnsure'), status: 'failed', errorKind: 'interrupted', errorMessage: 'a confirmed action was interrupted' }) : undefined;
        case 'done': {
          const recently = confirmation.resolvedAt !== null && deps.clock.now().getTime() - confirmation.resolvedAt.getTime() <= REPEATED_YES_WINDOW_MS;
          return answer === 'yes' && recently ? withoutModel({ reply: say(turn.language, 'confirmAlreadyDone') }) : undefined;
        }
        default:
          return undefined;
      }
    },
  };
}

/** Claims the confirmation (only one YES can), runs its actions in order, and records what happened. */
async function run(confirmation: LatestQuestion, turn: IncomingTurn, deps: { questions: PendingQuestions; runner: ActionRunner }): Promise<TurnOutcome> {
  const claim = await deps.questions.claim(confirmation.id, turn.batch.map((message) => message.id));
  if (claim === 'taken') return settledElsewhere(confirmation, turn, deps);
  const { actions } = confirmationPayloadSchema.parse(confirmation.payload);
  const outcome = await runActions(actions, turn, deps.runner);
  await deps.questions.finish(confirmation, outcome.record, outcome.failures.length === 0);
  turn.logger.info({ questionId: confirmation.id, actions: actions.map((action) => action.tool), failed: outcome.failures.length }, 'confirmed actions ran');
  return withoutModel({
    reply: outcome.lines.join('\n'),
    status: outcome.failures.length === 0 ? 'succeeded' : 'failed',
    mayHaveErased: true,
    ...(outcome.failures.length > 0 ? { errorKind: 'tool', errorMessage: outcome.failures.join('; ') } : {}),
  });
}

/**
 * The answer when another answer settled the confirmation between our read and our claim (two
 * YES at once, a YES and a NO, or it expired meanwhile): what became of it.
 */
async function settledElsewhere(confirmation: LatestQuestion, turn: IncomingTurn, deps: { questions: PendingQuestions }): Promise<TurnOutcome> {
  const status = await deps.questions.statusOf(confirmation.id);
  const key = status === 'done' ? 'confirmAlreadyDone' : status === 'executing' ? 'confirmUnsure' : status === 'cancelled' ? 'confirmCancelled' : 'confirmExpired';
  return withoutModel({ reply: say(turn.language, key, { minutes: Math.round(deps.questions.ttlMs / 60_000) }) });
}

/** Runs held actions in order (confirmed): a line each for the reply, and what each gave. */
async function runActions(actions: PendingAction[], turn: IncomingTurn, runner: ActionRunner) {
  const lines: string[] = [];
  const record: Array<{ tool: string; ok: boolean; error?: string }> = [];
  const failures: string[] = [];
  for (const action of actions) {
    const result = await runner.run(action, { userId: turn.user.id, timezone: turn.user.timezone, language: turn.language }, true);
    if (result.ok) {
      record.push({ tool: action.tool, ok: true });
      // A bulk change says how many it changed (some may have gone meanwhile); other actions say their "done".
      const own = typeof result.output === 'object' && result.output !== null ? (result.output as { reply?: unknown }).reply : undefined;
      lines.push(typeof own === 'string' ? own : action.done);
    } else {
      record.push({ tool: action.tool, ok: false, error: result.error });
      failures.push(`${action.tool}: ${result.error}`);
      lines.push(say(turn.language, 'actionFailed', { error: result.error }));
    }
  }
  return { lines, record, failures };
}
