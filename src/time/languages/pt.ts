import type { LexiconSource } from '../lexicon.js';

/** Portuguese words for time. */
export const portuguese: LexiconSource = {
  language: 'pt',
  phrases: {},
};
