/**
 * Common words that tell Latin-script languages apart: a note is stemmed with its own
 * language's text search configuration ("running" and "run" are one word in English only
 * when stemmed as English), so a user who writes in Spanish and English gets both right.
 */
const STOPWORDS: Record<string, readonly string[]> = {
  en: ['the', 'and', 'is', 'of', 'to', 'in', 'it', 'that', 'for', 'with', 'was', 'on', 'my', 'at', 'this', 'are', 'you', 'from', 'have', 'be'],
  es: ['el', 'la', 'de', 'que', 'y', 'en', 'los', 'las', 'del', 'por', 'con', 'para', 'una', 'es', 'mi', 'pero', 'como', 'muy', 'está', 'se'],
  fr: ['le', 'la', 'les', 'de', 'des', 'et', 'est', 'une', 'un', 'du', 'que', 'pour', 'dans', 'pas', 'avec', 'mon', 'sur', 'qui', 'au', 'il'],
  de: ['der', 'die', 'das', 'und', 'ist', 'nicht', 'ein', 'eine', 'zu', 'mit', 'den', 'von', 'ich', 'auf', 'für', 'dem', 'sich', 'auch', 'mein', 'es'],
  it: ['il', 'la', 'di', 'che', 'e', 'per', 'un', 'una', 'sono', 'con', 'non', 'del', 'della', 'mio', 'gli', 'le', 'ma', 'come', 'anche', 'nel'],
  pt: ['o', 'a', 'de', 'que', 'e', 'do', 'da', 'em', 'um', 'uma', 'para', 'com', 'não', 'os', 'as', 'meu', 'mas', 'como', 'no', 'na'],
  nl: ['de', 'het', 'een', 'en', 'van', 'is', 'dat', 'niet', 'met', 'op', 'voor', 'zijn', 'mijn', 'ook', 'aan', 'maar', 'als', 'bij', 'er', 'te'],
};

/**
 * The language a note is written in, as an ISO 639-1 code: by script for Hebrew, Arabic,
 * Cyrillic and Greek; by common words for Latin-script languages; else the user's own
 * language; else "und" (undetermined). The search index maps the code to a configuration
 * (herald_search.config_for), which also falls back sensibly for codes it does not know.
 */
export function detectLanguage(text: string, userLanguage?: string | null): string {
  const letters = text.match(/\p{L}/gu) ?? [];
  if (letters.length === 0) return userLanguage ?? 'und';
  const count = (pattern: RegExp) => letters.filter((letter) => pattern.test(letter)).length;
  const share = (pattern: RegExp) => count(pattern) / letters.length;
  if (share(/\p{Script=Hebrew}/u) > 0.3) return 'he';
  if (share(/\p{Script=Arabic}/u) > 0.3) return 'ar';
  if (share(/\p{Script=Cyrillic}/u) > 0.3) return userLanguage === 'uk' || userLanguage === 'be' ? userLanguage : 'ru';
  if (share(/\p{Script=Greek}/u) > 0.3) return 'el';
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  let best = { language: userLanguage ?? 'und', hits: 0 };
  for (const [language, stopwords] of Object.entries(STOPWORDS)) {
    const hits = words.filter((word) => stopwords.includes(word)).length;
    // The user's language wins ties: a short note in it is most likely theirs.
    if (hits > best.hits || (hits === best.hits && hits > 0 && language === userLanguage)) best = { language, hits };
  }
  return best.language;
}
