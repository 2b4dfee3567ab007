import { beforeAll, describe, expect, it } from 'vitest';
import { detectLanguage, loadLanguageDetector } from '../../src/texts/text-language.js';
import { placeholdersOf, readerLanguage, say, TEXT_TABLES, type TextKey } from '../../src/texts/texts.js';

/**
 * Herald's fixed texts (issue 19, item 8): one table per language, every language with
 * every key and the same placeholders; the language of what the reader just wrote, when it
 * can be told, else their stored one, else English.
 */
describe('the fixed-text tables', () => {
  const keys = Object.keys(TEXT_TABLES.en) as TextKey[];

  it('has the eight languages', () => {
    expect(Object.keys(TEXT_TABLES).sort()).toEqual(['ar', 'de', 'en', 'es', 'fr', 'he', 'pt', 'ru']);
  });

  it.each(Object.keys(TEXT_TABLES))('%s has every key, each with exactly the English placeholders, and none left empty', (language) => {
    const table = TEXT_TABLES[language as keyof typeof TEXT_TABLES] as Record<string, string>;
    expect(Object.keys(table).sort()).toEqual([...keys].sort());
    for (const key of keys) {
      expect(table[key]!.trim(), `${language}.${key}`).not.toBe('');
      expect(placeholdersOf(table[key]!), `${language}.${key}`).toEqual(placeholdersOf(TEXT_TABLES.en[key]));
    }
  });

  it.each(Object.keys(TEXT_TABLES))('%s: a confirmation asks YES or NO and never suggests CANCEL or STOP', (language) => {
    const table = TEXT_TABLES[language as keyof typeof TEXT_TABLES];
    for (const key of ['confirmAsk', 'choiceAsk', 'choiceDidYouMean', 'choiceAskAgain'] as const) expect(table[key]).not.toMatch(/CANCEL|STOP/i);
  });

  it('is not a word-for-word copy: each language reads differently from English', () => {
    for (const [language, table] of Object.entries(TEXT_TABLES)) {
      if (language === 'en') continue;
      const same = keys.filter((key) => (table as Record<string, string>)[key] === TEXT_TABLES.en[key] && /[a-z]{4}/i.test(TEXT_TABLES.en[key]));
      expect(same, language).toEqual([]);
    }
  });

  it('fills placeholders, and leaves unknown ones visible rather than empty', () => {
    expect(say('en', 'snoozed', { time: '8:10 AM', text: 'Call mom' })).toBe("OK, I'll remind you again at 8:10 AM: Call mom");
    expect(say('es', 'choiceAskAgain', { count: 3 })).toBe('Responde con un número del 1 al 3, o NO para dejarlo.');
    expect(say('en', 'reminder')).toBe('⏰ Reminder: {text}');
  });
});

describe('which language the reader gets', () => {
  beforeAll(async () => {
    await loadLanguageDetector();
  });

  it.each([
    ['borra todas mis citas de mañana por favor', 'es'],
    ["annule le rappel du dentiste s'il te plaît", 'fr'],
    ['lösche bitte den Termin beim Zahnarzt', 'de'],
    ['me lembre de ligar para a mãe às cinco', 'pt'],
    ['what do I have tomorrow morning', 'en'],
    ['מה יש לי מחר', 'he'],
    ['احذف التذكير من فضلك', 'ar'],
    ['удали напоминание пожалуйста', 'ru'],
  ])('"%s" is %s', (text, language) => {
    expect(detectLanguage(text)).toBe(language);
    expect(readerLanguage('en', text)).toBe(language);
  });

  it('words that say nothing of a language ("2", "ok", "snooze 45 minutes", a code in capitals) get the stored language, else English', () => {
    for (const text of ['2', 'ok', 'snooze 45 minutes', '👍', '', 'JOIN K7MQ2XAB', 'JOIN KMNPQRST please', 'OK THANKS SO MUCH']) {
      expect(readerLanguage('es', text)).toBe('es');
      expect(readerLanguage(null, text)).toBe('en');
    }
  });

  it('a language Herald has no table for gets English fixed texts', () => {
    expect(detectLanguage('cancella il promemoria del dentista per favore')).toBe('it');
    expect(readerLanguage('he', 'cancella il promemoria del dentista per favore')).toBe('en');
  });
});
