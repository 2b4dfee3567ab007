import type { LexiconSource } from '../lexicon.js';

/** Hebrew words for time. */
export const hebrew: LexiconSource = {
  language: 'he',
  phrases: {},
};
