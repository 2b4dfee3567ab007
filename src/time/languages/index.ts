import { compileLexicon, type Lexicon, type LexiconSource } from '../lexicon.js';
import { arabic } from './ar.js';
import { english } from './en.js';
import { french } from './fr.js';
import { german } from './de.js';
import { hebrew } from './he.js';
import { portuguese } from './pt.js';
import { russian } from './ru.js';
import { spanish } from './es.js';

/** The languages Herald reads dates in (the same eight it writes: src/texts). */
export const timeLanguages = ['en', 'he', 'es', 'fr', 'de', 'pt', 'ru', 'ar'] as const;
export type TimeLanguage = (typeof timeLanguages)[number];

/** A language's lexicon and the grammar rules that differ by language. */
export interface TimeLanguageRules {
  language: TimeLanguage;
  lexicon: Lexicon;
  /** "6 menos cuarto" (hour, to, minutes) is a time (see GrammarOptions). */
  hourToMinutes: boolean;
  /** "שישי השלישי" (weekday, ordinal) is the third Friday (see GrammarOptions). */
  ordinalAfterWeekday: boolean;
}

const sources: Record<TimeLanguage, { source: LexiconSource; hourToMinutes: boolean }> = {
  en: { source: english, hourToMinutes: false },
  he: { source: hebrew, hourToMinutes: false },
  es: { source: spanish, hourToMinutes: true },
  fr: { source: french, hourToMinutes: true },
  de: { source: german, hourToMinutes: false },
  pt: { source: portuguese, hourToMinutes: true },
  ru: { source: russian, hourToMinutes: false },
  ar: { source: arabic, hourToMinutes: true },
};

const compiled = new Map<TimeLanguage, TimeLanguageRules>();

/** The rules for `language`, compiled once. */
export function languageRules(language: TimeLanguage): TimeLanguageRules {
  const cached = compiled.get(language);
  if (cached) return cached;
  const entry = sources[language];
  const rules = { language, lexicon: compileLexicon(entry.source), hourToMinutes: entry.hourToMinutes, ordinalAfterWeekday: language === 'he' || language === 'ar' };
  compiled.set(language, rules);
  return rules;
}

/** True for a code Herald reads dates in. */
export function isTimeLanguage(code: string | undefined | null): code is TimeLanguage {
  return code !== undefined && code !== null && (timeLanguages as readonly string[]).includes(code);
}
