import { readerLanguage, say } from '../texts/texts.js';

const keys = {
  ask: 'confirmAsk',
  cancelled: 'confirmCancelled',
  expired: 'confirmExpired',
  alreadyDone: 'confirmAlreadyDone',
  unsure: 'confirmUnsure',
  failed: 'actionFailed',
} as const;

export type ConfirmationReply = keyof typeof keys;

/** Herald's own words around confirmations (no model writes them), in the user's language, `{placeholders}` filled. */
export function confirmationReply(kind: ConfirmationReply, language: string | null, values: Record<string, string | number> = {}, messageText = ''): string {
  return say(readerLanguage(language, messageText), keys[kind], values);
}
