import type { KeywordCommand } from '../channels/keywords.js';
import { fallbackLanguage } from '../orchestrator/fallback-replies.js';

const replies = {
  en: {
    stop: "You're unsubscribed: Herald won't message you again, reminders included. Text START any time to come back.",
    start: "Welcome back! Herald can message you again. What can I do for you?",
    help: 'Herald is your assistant by text. Ask me anything, or say "remind me to call mom at 5", "add milk to my shopping list", "remember that I\'m vegetarian". Text STOP to unsubscribe.',
  },
  he: {
    stop: 'הוסרתם מהרשימה: Herald לא ישלח לכם עוד הודעות, כולל תזכורות. שלחו START בכל עת כדי לחזור.',
    start: 'ברוכים השבים! Herald יכול לשלוח לכם הודעות שוב. במה אפשר לעזור?',
    help: 'Herald הוא העוזר שלכם בהודעות. שאלו כל דבר, או כתבו "תזכיר לי להתקשר לאמא ב-5", "תוסיף חלב לרשימת הקניות". שלחו STOP להסרה.',
  },
} as const;

/** The model-free answer to STOP, START or HELP, in the user's language. */
export function keywordReply(keyword: KeywordCommand, language: string | null): string {
  return replies[fallbackLanguage(language)][keyword];
}
