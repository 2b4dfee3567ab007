import type { LexiconSource } from '../lexicon.js';

/** Arabic words for time. */
export const arabic: LexiconSource = {
  language: 'ar',
  phrases: {},
};
