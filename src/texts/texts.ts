import { ar } from './ar.js';
import { de } from './de.js';
import { en, type TextKey, type TextTable } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { he } from './he.js';
import { pt } from './pt.js';
import { ru } from './ru.js';
import { detectLanguage } from './text-language.js';

export type { TextKey, TextTable } from './en.js';

/** Every language Herald's fixed texts are written in, one table each. */
export const TEXT_TABLES = { en, he, es, fr, de, pt, ar, ru } satisfies Record<string, TextTable>;

/** A language Herald has fixed texts in. */
export type TextLanguage = keyof typeof TEXT_TABLES;

/** Whether Herald has fixed texts in `code` ("iw" is Hebrew's old code). */
export function textLanguageOf(code: string | null | undefined): TextLanguage | undefined {
  const short = code?.toLowerCase().slice(0, 2);
  if (short === 'iw') return 'he';
  return short && short in TEXT_TABLES ? (short as TextLanguage) : undefined;
}

/**
 * Which table Herald's own words for this reader come from: the language of what they just
 * wrote when it can be told (any language Herald has no table for gets English), else
 * their stored language (the default for texts with no words: "2", "yes", a photo), else English.
 */
export function readerLanguage(stored: string | null | undefined, messageText = ''): TextLanguage {
  const detected = messageText ? detectLanguage(messageText) : undefined;
  if (detected) return textLanguageOf(detected) ?? 'en';
  return textLanguageOf(stored) ?? 'en';
}

/** One of Herald's fixed texts in `language`, its `{placeholders}` filled. */
export function say(language: TextLanguage, key: TextKey, values: Record<string, string | number> = {}): string {
  const template: string = TEXT_TABLES[language][key];
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in values ? String(values[name]) : match));
}

/** The `{placeholders}` a template uses, sorted (for the tables' consistency test). */
export function placeholdersOf(template: string): string[] {
  return [...new Set([...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!))].sort();
}
