import type { ErrorBlame } from '../shared/errors.js';

/**
 * Replies Herald sends without a model: when the model fails, when none is configured.
 * A person texting must always get an answer, in their language when Herald knows it.
 */
const replies = {
  en: {
    apology: "Sorry, I couldn't get to that just now. Your message is saved; please try again in a minute.",
    timeout: "Sorry, that took me too long and I had to stop. Please try again, maybe in smaller pieces.",
    noModel:
      "Herald isn't connected to its AI model yet (no ANTHROPIC_API_KEY is set), so I can't answer properly. Your message is saved.",
    mediaOnly: "I can only read text for now, so I couldn't see what you sent. Could you describe it in words?",
    empty: "Your message reached me empty (or as something I can't read yet, like a location or a contact). What can I do for you?",
    progress: "On it — this is taking a little longer than usual. I'll text you as soon as it's done.",
    budget: "Sorry, that needed more work than I can do for one message, so I stopped. Could you ask for it in smaller pieces?",
    done: 'Done.',
  },
  he: {
    apology: 'סליחה, לא הצלחתי לטפל בזה כרגע. ההודעה שלך נשמרה; נסו שוב בעוד דקה.',
    timeout: 'סליחה, זה לקח לי יותר מדי זמן ועצרתי. נסו שוב, אולי בחלקים קטנים יותר.',
    noModel: 'Herald עדיין לא מחובר למודל הבינה המלאכותית (לא הוגדר ANTHROPIC_API_KEY), ולכן איני יכול לענות כראוי. ההודעה שלך נשמרה.',
    mediaOnly: 'בינתיים אני יכול לקרוא רק טקסט, אז לא ראיתי מה ששלחת. תוכלו לתאר את זה במילים?',
    empty: 'ההודעה שלך הגיעה אליי ריקה (או במבנה שאיני יודע לקרוא עדיין, כמו מיקום או איש קשר). במה אוכל לעזור?',
    progress: 'אני על זה — זה לוקח קצת יותר זמן מהרגיל. אכתוב לכם ברגע שזה יסתיים.',
    budget: 'סליחה, זה דרש יותר עבודה ממה שאני יכול לעשות בהודעה אחת, אז עצרתי. תוכלו לבקש את זה בחלקים קטנים יותר?',
    done: 'בוצע.',
  },
} as const;

export type FallbackReply = keyof (typeof replies)['en'];

/** Picks the reply's language: the user's known language, else Hebrew script in their message, else English. */
export function fallbackLanguage(language: string | null, messageText = ''): keyof typeof replies {
  if (language?.toLowerCase().startsWith('he') || language?.toLowerCase().startsWith('iw')) return 'he';
  if (!language && /[\u0590-\u05FF]/.test(messageText)) return 'he';
  return 'en';
}

/** A model-free reply in the user's language. */
export function fallbackReply(kind: FallbackReply, language: string | null, messageText = ''): string {
  return replies[fallbackLanguage(language, messageText)][kind];
}

/** Which apology fits a failure of this blame. */
export function apologyFor(blame: ErrorBlame): FallbackReply {
  if (blame === 'configuration') return 'noModel';
  if (blame === 'timeout') return 'timeout';
  if (blame === 'budget') return 'budget';
  return 'apology';
}

/** The one "on it" message sent while a long plan runs. */
export function progressMessage(language: string | null, messageText = ''): string {
  return fallbackReply('progress', language, messageText);
}
