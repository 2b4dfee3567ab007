const names: Record<string, string> = { en: 'English', he: 'Hebrew', iw: 'Hebrew', ar: 'Arabic', ru: 'Russian', es: 'Spanish', fr: 'French', de: 'German' };

/**
 * The language a reply should be in, described for a prompt: the user's known language,
 * else Hebrew when the message is written in Hebrew script, else "the language of the
 * user's message" (sub-agents never see the message itself, so they get a name when
 * one can be told).
 */
export function replyLanguage(language: string | null, messageText: string): string {
  if (language) return names[language.toLowerCase().slice(0, 2)] ?? language;
  if (/[\u0590-\u05FF]/.test(messageText)) return 'Hebrew';
  if (/[\u0600-\u06FF]/.test(messageText)) return 'Arabic';
  if (/[\u0400-\u04FF]/.test(messageText)) return 'Russian';
  return 'English';
}
