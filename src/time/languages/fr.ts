import type { LexiconSource } from '../lexicon.js';

/** French words for time. */
export const french: LexiconSource = {
  language: 'fr',
  phrases: {},
};
