import type { ErrorBlame } from '../shared/errors.js';
import { readerLanguage, say } from './texts.js';

/**
 * Replies Herald sends without a model: when the model fails, when none is configured.
 * A person texting must always get an answer, in their language (src/texts).
 */
export type FallbackReply = 'apology' | 'timeout' | 'noModel' | 'mediaOnly' | 'empty' | 'progress' | 'budget' | 'done';

/** A model-free reply in the user's language. */
export function fallbackReply(kind: FallbackReply, language: string | null, messageText = ''): string {
  return say(readerLanguage(language, messageText), kind);
}

/** Which apology fits a failure of this blame. */
export function apologyFor(blame: ErrorBlame): FallbackReply {
  if (blame === 'configuration') return 'noModel';
  if (blame === 'timeout') return 'timeout';
  if (blame === 'budget') return 'budget';
  return 'apology';
}

/** The one "on it" message sent while a long plan runs. */
export function progressMessage(language: string | null, messageText = ''): string {
  return fallbackReply('progress', language, messageText);
}
