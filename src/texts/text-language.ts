/**
 * The language a text is written in, for choosing Herald's fixed texts and learning a
 * user's language. eld (a compact n-gram detector, its smallest database) is loaded once,
 * off the request path: `loadLanguageDetector()` at start-up; until it is ready, only the
 * script is read (Hebrew, Arabic, Cyrillic). Short texts with no telling words ("2", "ok",
 * "snooze 10") have no language: the caller falls back to the user's stored one.
 */

/** The languages detection chooses among: Herald's eight, and the ones most often mistaken for them. */
const CANDIDATES = ['en', 'he', 'es', 'fr', 'de', 'pt', 'ar', 'ru', 'it', 'nl', 'ca', 'ro', 'pl', 'tr', 'uk', 'sv', 'da', 'no', 'fa', 'ur', 'cs', 'hu', 'fi', 'el', 'id', 'vi'];

interface Detector {
  detect(text: string): { language: string; isReliable(): boolean };
}

let detector: Detector | undefined;
let loading: Promise<void> | undefined;

/** Loads the detector (about 0.4 s, once); later calls share the first. */
export function loadLanguageDetector(): Promise<void> {
  loading ??= import('eld/extrasmall').then(({ eld }) => {
    eld.setLanguageSubset(CANDIDATES);
    detector = eld;
  });
  return loading;
}

/**
 * The ISO 639-1 code of the language `text` is written in, or undefined when it cannot be
 * told reliably (too short, no letters, mixed; words with digits and words in capitals are
 * left out). Text in Latin script needs at least three words: "snooze 45 minutes" or "ok
 * merci" say too little (n-grams read "minutes" as French). Hebrew, Arabic and Cyrillic
 * script tell their language from a single word.
 */
export function detectLanguage(text: string): string | undefined {
  // Links, codes and shouted command words ("JOIN K7MQ2X") say nothing of a language.
  const words = text
    .replace(/https?:\/\/\S+/g, ' ')
    .split(/\s+/)
    .filter((word) => !/\d/.test(word) && !(word.length > 1 && word === word.toUpperCase() && word !== word.toLowerCase()));
  const letters = words.join(' ').replace(/[^\p{L}\s'’-]+/gu, ' ').replace(/\s+/g, ' ').trim();
  if (letters.length < 2) return undefined;
  const latin = !/[\u0590-\u05FF\u0600-\u06FF\u0400-\u04FF]/.test(letters);
  if (latin && letters.split(' ').length < 3) return undefined;
  if (detector) {
    const result = detector.detect(letters);
    if (result.language && result.isReliable()) return result.language;
  }
  // Scripts that name their language well enough on their own.
  if (/[\u0590-\u05FF]/.test(letters)) return 'he';
  if (/[\u0600-\u06FF]/.test(letters)) return 'ar';
  if (!detector && /[\u0400-\u04FF]/.test(letters)) return 'ru';
  return undefined;
}

const names: Record<string, string> = {
  en: 'English', he: 'Hebrew', es: 'Spanish', fr: 'French', de: 'German', pt: 'Portuguese', ar: 'Arabic', ru: 'Russian', it: 'Italian', nl: 'Dutch',
  ca: 'Catalan', ro: 'Romanian', pl: 'Polish', tr: 'Turkish', uk: 'Ukrainian', bg: 'Bulgarian', sv: 'Swedish', da: 'Danish', no: 'Norwegian', fa: 'Persian',
  ur: 'Urdu', cs: 'Czech', hu: 'Hungarian', fi: 'Finnish', el: 'Greek', id: 'Indonesian', vi: 'Vietnamese', iw: 'Hebrew',
};

/** A language's English name for a prompt ("Spanish"), or the code itself when unknown. */
export function languageName(code: string): string {
  return names[code.toLowerCase().slice(0, 2)] ?? code;
}

/** The ISO 639-1 code of a language named for a prompt ("Spanish" → "es"), or undefined. */
export function languageCode(name: string): string | undefined {
  const wanted = name.trim().toLowerCase();
  if (/^[a-z]{2}$/.test(wanted)) return wanted;
  return Object.entries(names).find(([, english]) => english.toLowerCase() === wanted)?.[0];
}
