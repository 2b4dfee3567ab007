import type { KeywordCommand } from '../channels/keywords.js';
import { readerLanguage, say } from '../texts/texts.js';

const keys = { stop: 'keywordStop', start: 'keywordStart', help: 'keywordHelp' } as const;

/** The model-free answer to STOP, START or HELP, in the user's language. */
export function keywordReply(keyword: KeywordCommand, language: string | null): string {
  return say(readerLanguage(language), keys[keyword]);
}
