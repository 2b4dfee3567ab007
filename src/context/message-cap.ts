import { readerLanguage, say } from '../texts/texts.js';

/** What was left of a turn's text after the cap. */
export interface CappedText {
  text: string;
  /** Set when the text was cut: characters kept and characters received. */
  cut?: { kept: number; total: number };
}

/**
 * Caps the text a turn hands the model (TURN_MAX_MESSAGE_TOKENS, at about four characters
 * a token). Each webhook is capped at 10,000 characters, but a burst is merged into one
 * turn: forty long texts at once would otherwise become one ~100k-token planner prompt.
 * The cut falls on whitespace near the limit when there is some, never inside a surrogate pair.
 */
export function capTurnText(text: string, maxTokens: number): CappedText {
  const limit = maxTokens * 4;
  if (text.length <= limit) return { text };
  let end = limit;
  const space = text.lastIndexOf(' ', limit);
  const newline = text.lastIndexOf('\n', limit);
  const boundary = Math.max(space, newline);
  if (boundary > limit * 0.8) end = boundary;
  else if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end -= 1;
  return { text: text.slice(0, end).trimEnd(), cut: { kept: end, total: text.length } };
}

/** The model-free line added to the reply when the turn's text was cut, in the user's language. */
export function cutNote(cut: { kept: number; total: number }, language: string | null, messageText = ''): string {
  return say(readerLanguage(language, messageText), 'cut', { kept: cut.kept.toLocaleString('en-US'), total: cut.total.toLocaleString('en-US') });
}
