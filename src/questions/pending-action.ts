import { z } from 'zod';

/** One held action, stored with its exact arguments: what YES runs. */
export const pendingActionSchema = z.object({
  /** The agent whose tool it is, or "system" for Herald's own actions. */
  agent: z.string(),
  tool: z.string(),
  input: z.unknown(),
  /** Asked in the reply: 'Delete "Dentist" on Fri 14 Mar, 3:00 PM?' */
  question: z.string(),
  /** Said after the YES when it worked: 'Deleted "Dentist".' */
  done: z.string(),
});

export type PendingAction = z.infer<typeof pendingActionSchema>;

/** What a turn asks the user to confirm: its actions and the one question covering them. */
export interface ConfirmationAsk {
  actions: PendingAction[];
  question: string;
}

/** One question for several actions, in order. */
export function questionFor(actions: PendingAction[]): string {
  return actions.map((action) => action.question.trim()).join(' ');
}

/** A question and Herald's "Reply YES or NO." after it: on its own line when the question lists things. */
export function withAsk(question: string, ask: string): string {
  return question.includes('\n') ? `${question}\n${ask}` : `${question} ${ask}`;
}
