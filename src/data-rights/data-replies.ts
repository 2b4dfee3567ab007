import { fallbackLanguage } from '../orchestrator/fallback-replies.js';

const wording = {
  en: {
    myData: (link: string) => `Here is everything Herald holds about you: ${link}\nTo erase it all, text DELETE MY DATA.`,
    myDataFailed: 'Sorry, I could not put your data on a page just now. Please try again in a minute.',
    confirmErase:
      'This erases everything Herald holds about you: messages, memory, reminders, lists, calendar, connected accounts and pages. It cannot be undone.',
    erased: 'Done: everything Herald held about you is erased. If you text again, you start afresh.',
  },
  he: {
    myData: (link: string) => `כל מה ש-Herald שומר עליך: ${link}\nכדי למחוק הכול, שלחו "מחק את הנתונים שלי".`,
    myDataFailed: 'סליחה, לא הצלחתי להכין את הדף עכשיו. נסו שוב בעוד דקה.',
    confirmErase: 'זה ימחק את כל מה ש-Herald שומר עליך: הודעות, זיכרון, תזכורות, רשימות, יומן, חשבונות מחוברים ודפים. אי אפשר לבטל.',
    erased: 'בוצע: כל מה ש-Herald שמר עליך נמחק. אם תכתבו שוב, תתחילו מחדש.',
  },
};

/** Data-rights replies in the user's language (or, while it is unknown, the language they wrote in). */
export function dataReplies(language: string | null, messageText = '') {
  return wording[fallbackLanguage(language, messageText)];
}
