import { languageName } from '../texts/text-language.js';

/**
 * What the planner is told a routine run asks for. The run is a turn Herald starts on its
 * own: the user did not just write this, so the request says so, carries the instruction in
 * the user's words and the condition, and names the one answer that sends nothing.
 */

/** The reply that means "nothing to send": the condition is not met, or there is nothing to say. */
export const NOTHING_TO_SEND = 'NOTHING_TO_SEND';

/** The routine as its run's request needs it. */
export interface RoutineForRequest {
  name: string;
  instruction: string;
  condition: string | null;
}

/**
 * The request text of one run: the orchestrator's "message" for the turn. The framing is
 * English; `language` (the user's stored one) names the language the message is written in,
 * so an instruction of a few words in Spanish is not answered in the framing's English.
 */
export function routineRequest(routine: RoutineForRequest, dueLocal: string, language?: string | null, options: { afterWindow?: boolean } = {}): string {
  const lines = [
    `[Routine "${routine.name}", due ${dueLocal}: the user set this up to run on its own; they did not just write it. Do it now, and write the one message to send them${language ? `, in ${languageName(language)}` : ''}.]`,
  ];
  if (options.afterWindow) {
    // Held for WhatsApp's 24-hour window (src/routines/held-routine-runs.ts): it goes out late,
    // right after Herald's reply to the user's latest message, which it is not an answer to.
    lines.push(
      `[Late: WhatsApp let Herald message the user only once they wrote again, so this run goes out now, right after Herald answered their latest message. It is not an answer to that message. Do it as of now, and start by saying in a few words that this is their "${routine.name}" routine, due ${dueLocal}, sent now that they wrote.]`,
    );
  }
  lines.push(routine.instruction);
  if (routine.condition) lines.push(`[Condition: ${routine.condition}. Check it first: if it is not met, reply exactly ${NOTHING_TO_SEND} and nothing else.]`);
  lines.push(`[If there is nothing worth sending, reply exactly ${NOTHING_TO_SEND}.]`);
  return lines.join('\n');
}

/** Whether a run's reply means nothing should be sent. */
export function isNothingToSend(reply: string): boolean {
  const text = reply.trim();
  return text.length === 0 || text.replace(/[.*`"']/g, '') === NOTHING_TO_SEND;
}
