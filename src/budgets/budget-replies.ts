import { fallbackLanguage } from '../orchestrator/fallback-replies.js';

const wording = {
  en: {
    user: "You've reached today's limit for Herald's answers. I'll be back at midnight; reminders still arrive, and STOP and HELP still work.",
    deployment: "Herald has reached its limit for today and can't answer until midnight. Reminders still arrive.",
    owners: (budget: string, zone: string) => `Herald's daily budget (${budget}) is spent: nobody gets model answers until midnight (${zone}). Raise DAILY_BUDGET_USD to change it.`,
  },
  he: {
    user: 'הגעת למגבלה היומית של התשובות של Herald. אחזור בחצות; תזכורות ממשיכות להגיע, ו-STOP ו-HELP עדיין עובדים.',
    deployment: 'Herald הגיע למגבלה היומית שלו ולא יוכל לענות עד חצות. תזכורות ממשיכות להגיע.',
    owners: (budget: string, zone: string) => `התקציב היומי של Herald (${budget}) נוצל: אף אחד לא יקבל תשובות מהמודל עד חצות (${zone}). אפשר להגדיל את DAILY_BUDGET_USD.`,
  },
};

/** The budget notices, in the reader's language. */
export function budgetReplies(language: string | null) {
  return wording[fallbackLanguage(language)];
}
