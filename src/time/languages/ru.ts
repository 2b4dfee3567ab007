import type { LexiconSource } from '../lexicon.js';

/** Russian words for time. */
export const russian: LexiconSource = {
  language: 'ru',
  phrases: {},
};
