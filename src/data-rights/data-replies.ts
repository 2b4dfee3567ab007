import { readerLanguage, say } from '../texts/texts.js';

/** Data-rights replies in the user's language (or, while it is unknown, the language they wrote in). */
export function dataReplies(language: string | null, messageText = '') {
  const lang = readerLanguage(language, messageText);
  return {
    myData: (link: string) => say(lang, 'myData', { link }),
    myDataFailed: say(lang, 'myDataFailed'),
    confirmErase: say(lang, 'confirmErase'),
    confirmEraseAsk: (minutes: number) => say(lang, 'confirmEraseAsk', { minutes }),
    erased: say(lang, 'erased'),
  };
}
