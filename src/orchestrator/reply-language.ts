import { detectLanguage, languageName } from '../texts/text-language.js';

/**
 * The language a reply should be in, named for a prompt: the language of the user's
 * latest message whatever it is (sub-agents never see the message, so they get a name);
 * the stored profile language only when the message says nothing (media, "2", "ok"); else
 * English. The planner, which reads the message itself, may name it better in its plan
 * (`language`), and then that name wins.
 */
export function replyLanguage(language: string | null, messageText: string): string {
  const detected = detectLanguage(messageText);
  if (detected) return languageName(detected);
  return language ? languageName(language) : 'English';
}
