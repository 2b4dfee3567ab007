import type { OrchestratorContext } from '../context/orchestrator-context.js';
import { fallbackLanguage } from '../orchestrator/fallback-replies.js';

/** Herald's own words about attachments, voice notes and location pins (no model writes them). */
const replies = {
  en: {
    photo: 'your photo',
    pdf: 'the PDF',
    voice: 'your voice note',
    attachment: 'your attachment',
    numbered: 'attachment {n}',
    tooLarge: "I couldn't take {what}: it's over my {limit} limit.",
    photoFile: "I can't open {what} ({type}). Please send it as a photo, not a file.",
    unsupported: "I can't open {what} ({type}). I can read photos (JPEG, PNG, WebP, GIF), PDFs and voice notes.",
    downloadFailed: "I couldn't download {what}. Please send it again.",
    corrupt: "{What} seems to be damaged, so I couldn't open it.",
    pdfPages: 'The PDF has {pages} pages; I read up to {max}. Could you send just the pages that matter?',
    pdfLocked: "The PDF is password-protected, so I can't read it.",
    tooMuch: "That's a lot at once, so I skipped {what}. Please send it in another message.",
    voiceEmpty: '{What} reached me empty.',
    voiceTooLong: '{What} is {minutes} min long; I listen to up to {max} min. Could you send a shorter one, or type it?',
    voiceUnreadable: "I couldn't play {what}. Could you type it instead?",
    voiceOff:
      "I can't listen to voice notes here yet (whoever runs this Herald can turn it on by setting TRANSCRIPTION_BASE_URL). Could you type it instead?",
    voiceFailed: "Sorry, I couldn't listen to your voice note just now. It's saved; please try again in a minute, or type it.",
    nothingHeard: "I couldn't make out any words in your voice note. Could you try again, or type it?",
    heard: 'I heard: "{text}".',
    zoneQuestion: 'This pin is in the {zone} time zone (it is {time} there). Make {zone} your time zone?',
    zoneSame: 'This pin is in {zone}, which is already your time zone.',
    zoneUnknown: "I couldn't tell the time zone of this pin (it may be at sea).",
    zoneDone: 'Your time zone is now {zone}.',
  },
  he: {
    photo: 'התמונה שלך',
    pdf: 'קובץ ה-PDF',
    voice: 'ההקלטה שלך',
    attachment: 'הקובץ שלך',
    numbered: 'קובץ {n}',
    tooLarge: 'לא יכולתי לקבל את {what}: הוא מעל המגבלה שלי, {limit}.',
    photoFile: 'איני יכול לפתוח את {what} ({type}). שלחו אותו כתמונה, לא כקובץ.',
    unsupported: 'איני יכול לפתוח את {what} ({type}). אני קורא תמונות (JPEG, PNG, WebP, GIF), קובצי PDF והודעות קוליות.',
    downloadFailed: 'לא הצלחתי להוריד את {what}. שלחו שוב בבקשה.',
    corrupt: 'נראה ש{what} פגום, ולכן לא הצלחתי לפתוח אותו.',
    pdfPages: 'בקובץ ה-PDF יש {pages} עמודים; אני קורא עד {max}. תוכלו לשלוח רק את העמודים החשובים?',
    pdfLocked: 'קובץ ה-PDF מוגן בסיסמה, ולכן איני יכול לקרוא אותו.',
    tooMuch: 'זה הרבה בבת אחת, אז דילגתי על {what}. שלחו אותו בהודעה נפרדת.',
    voiceEmpty: '{what} הגיעה אליי ריקה.',
    voiceTooLong: 'אורך {what} {minutes} דקות; אני מקשיב עד {max} דקות. תוכלו לשלוח הקלטה קצרה יותר, או להקליד?',
    voiceUnreadable: 'לא הצלחתי להשמיע את {what}. תוכלו להקליד במקום?',
    voiceOff: 'איני יכול עדיין להקשיב להודעות קוליות כאן (מי שמפעיל את Herald יכול להפעיל זאת בהגדרת TRANSCRIPTION_BASE_URL). תוכלו להקליד?',
    voiceFailed: 'סליחה, לא הצלחתי להקשיב להודעה הקולית כרגע. היא נשמרה; נסו שוב בעוד דקה, או הקלידו.',
    nothingHeard: 'לא הצלחתי לשמוע מילים בהודעה הקולית. תוכלו לנסות שוב, או להקליד?',
    heard: 'שמעתי: "{text}".',
    zoneQuestion: 'הנעץ הזה נמצא באזור הזמן {zone} (השעה שם {time}). לקבוע את {zone} כאזור הזמן שלך?',
    zoneSame: 'הנעץ הזה נמצא ב-{zone}, שהוא כבר אזור הזמן שלך.',
    zoneUnknown: 'לא הצלחתי לקבוע את אזור הזמן של הנעץ הזה (אולי הוא בים).',
    zoneDone: 'אזור הזמן שלך הוא עכשיו {zone}.',
  },
} as const;

export type MediaReply = keyof (typeof replies)['en'];

/** One of Herald's media texts in the user's language, with `{placeholders}` filled (`{What}` capitalised). */
export function mediaReply(kind: MediaReply, language: string | null, values: Record<string, string | number> = {}, messageText = ''): string {
  const template: string = replies[fallbackLanguage(language, messageText)][kind];
  return template.replace(/\{(\w+)\}/g, (_match, key: string) => {
    const value = String(values[key] ?? values[key.toLowerCase()] ?? '');
    return key === 'What' ? value.charAt(0).toUpperCase() + value.slice(1) : value;
  });
}

/**
 * 'I heard: "…".' for a turn whose words were spoken (a voice note), so a question asked
 * for YES quotes what was heard; undefined for typed text. Long transcripts are shortened.
 */
export function heardLine(context: OrchestratorContext): string | undefined {
  const spoken = (context.message.parts ?? []).filter((part) => part.spoken).map((part) => part.text.trim()).filter(Boolean).join(' ');
  if (!spoken) return undefined;
  const text = spoken.length > 200 ? `${spoken.slice(0, 197).trimEnd()}…` : spoken;
  return mediaReply('heard', context.user.language, { text }, context.message.text);
}
