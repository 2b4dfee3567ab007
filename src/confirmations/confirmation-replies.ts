import { fallbackLanguage } from '../orchestrator/fallback-replies.js';

/** Herald's own words around confirmations (no model writes them), in the user's language. */
const replies = {
  en: {
    ask: 'Reply YES to confirm.',
    cancelled: "OK, I won't do that.",
    expired: "That request waited more than {minutes} minutes, so I didn't do it. Ask again if you still want it.",
    alreadyDone: 'That is already done.',
    unsure: "I started that earlier but can't tell whether it finished. Please check, and ask again if needed.",
    failed: "I couldn't do that: {error}",
  },
  he: {
    ask: 'השיבו כן לאישור.',
    cancelled: 'בסדר, לא אעשה את זה.',
    expired: 'הבקשה חיכתה יותר מ-{minutes} דקות, ולכן לא ביצעתי אותה. בקשו שוב אם עדיין צריך.',
    alreadyDone: 'זה כבר בוצע.',
    unsure: 'התחלתי בזה קודם אך איני יודע אם זה הסתיים. בדקו, ובקשו שוב אם צריך.',
    failed: 'לא הצלחתי: {error}',
  },
} as const;

export type ConfirmationReply = keyof (typeof replies)['en'];

/** A confirmation reply in the user's language, with its `{placeholders}` filled. */
export function confirmationReply(kind: ConfirmationReply, language: string | null, values: Record<string, string | number> = {}, messageText = ''): string {
  const template: string = replies[fallbackLanguage(language, messageText)][kind];
  return template.replace(/\{(\w+)\}/g, (_match, key: string) => String(values[key] ?? ''));
}
