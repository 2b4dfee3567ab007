import { fallbackLanguage } from '../orchestrator/fallback-replies.js';

/**
 * What Herald says about access, without a model. Strangers get English (nothing is known
 * about them, not even a language); users and owners get their own language.
 */
export const strangerReplies = {
  /** Invite mode, an unknown sender: at most once a day. */
  private: 'This is a private assistant. If you have an invite code, reply JOIN <code>.',
  /** A used, expired or wrong code: the same words for each, so nothing hints which. */
  joinFailed: "Sorry, that invite code didn't work. Ask the person who invited you for a new one.",
  /** A code that worked. */
  joined: "Welcome to Herald! You're in. Text me anything: reminders, lists, your calendar, questions.",
  /** JOIN from a number that may already use Herald: the code is not spent. */
  alreadyIn: "You're already in: text me anything.",
  /** Open mode, past NEW_USERS_PER_HOUR. */
  busy: 'Herald is not taking new people right now. Please try again in an hour.',
} as const;

const ownerWording = {
  en: {
    invited: (phone: string, welcomed: boolean) => `${phone} can use Herald now.${welcomed ? ' I sent them your welcome.' : ''}`,
    alreadyInvited: (phone: string) => `${phone} could already use Herald.`,
    ownerAlways: (phone: string) => `${phone} is an owner and can always use Herald.`,
    code: (code: string, expires: string) => `Invite code: ${code} (works once, until ${expires}). They text JOIN ${code} to this number.`,
    revoked: (phone: string) => `${phone} can no longer use Herald. Their data stays until they delete it (or you run npm run accounts).`,
    notAllowed: (phone: string) => `${phone} was not on the invite list.`,
    cannotRevokeOwner: (phone: string) => `${phone} is an owner (OWNER_PHONES); remove them there.`,
    badPhone: 'That is not a phone number in international form, such as +15551234567.',
    openMode: 'Herald is in open mode: anyone may use it. Users, most recently active first:',
    inviteMode: (count: number) => `${count} number${count === 1 ? '' : 's'} may use Herald, most recently active first:`,
    never: 'never',
    justNow: 'just now',
    more: (count: number) => `…and ${count} more (npm run accounts -- users).`,
    welcomeSuffix: 'Text anything to start. Reply STOP to opt out.',
    defaultWelcome: "You've been invited to Herald, an assistant you can text.",
  },
  he: {
    invited: (phone: string, welcomed: boolean) => `${phone} יכול להשתמש ב-Herald עכשיו.${welcomed ? ' שלחתי לו את ההודעה שלך.' : ''}`,
    alreadyInvited: (phone: string) => `${phone} כבר היה יכול להשתמש ב-Herald.`,
    ownerAlways: (phone: string) => `${phone} הוא בעלים ותמיד יכול להשתמש ב-Herald.`,
    code: (code: string, expires: string) => `קוד הזמנה: ${code} (לשימוש אחד, עד ${expires}). שולחים JOIN ${code} למספר הזה.`,
    revoked: (phone: string) => `${phone} כבר לא יכול להשתמש ב-Herald. הנתונים שלו נשארים עד שימחק אותם.`,
    notAllowed: (phone: string) => `${phone} לא היה ברשימת המוזמנים.`,
    cannotRevokeOwner: (phone: string) => `${phone} הוא בעלים (OWNER_PHONES); יש להסיר אותו משם.`,
    badPhone: 'זה לא מספר טלפון בפורמט בינלאומי, כמו ‎+972501234567.',
    openMode: 'Herald פתוח לכולם. משתמשים, לפי פעילות אחרונה:',
    inviteMode: (count: number) => `${count} מספרים יכולים להשתמש ב-Herald, לפי פעילות אחרונה:`,
    never: 'אף פעם',
    justNow: 'עכשיו',
    more: (count: number) => `…ועוד ${count} (npm run accounts -- users).`,
    welcomeSuffix: 'שלחו כל הודעה כדי להתחיל. STOP להסרה.',
    defaultWelcome: 'הוזמנתם ל-Herald, עוזר שאפשר לשלוח לו הודעות.',
  },
};

/** Owner-facing wording in the owner's language. */
export function ownerReplies(language: string | null) {
  return ownerWording[fallbackLanguage(language)];
}
