import type { LexiconSource } from '../lexicon.js';

/** Spanish words for time. */
export const spanish: LexiconSource = {
  language: 'es',
  phrases: {},
};
