import { yesOrNo } from './answer-words.js';

/**
 * The answers to "Reply YES or NO": the whole message, any case, with trailing punctuation
 * or an emoji allowed (src/questions/answer-words.ts). CANCEL declines; on SMS it never
 * gets here, being a carrier opt-out word.
 */
export function confirmationAnswer(text: string): 'yes' | 'no' | undefined {
  return yesOrNo(text);
}
