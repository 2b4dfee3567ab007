import type { LexiconSource } from '../lexicon.js';

/** German words for time. */
export const german: LexiconSource = {
  language: 'de',
  phrases: {},
};
