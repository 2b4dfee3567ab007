/**
 * The words that answer Herald's questions, without a model: YES/NO to a confirmation or a
 * "Did you mean …?", and a number, an ordinal, "both"/"all" or a label to a "Which one?".
 * The whole message must be the answer (any case, trailing punctuation or an emoji
 * allowed); anything more is an ordinary message. English and Hebrew in full (Hebrew
 * written afresh), and the common words of Herald's other languages.
 */

/** Lower-cased, apostrophes dropped, punctuation and symbols turned to spaces (not "#"), spaces collapsed. */
function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFC')
    .replace(/['’"“”«»]/g, '')
    .replace(/[^\p{L}\p{N}\s#]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const YES = new Set([
  'yes', 'y', 'yeah', 'yep', 'yup', 'ok', 'okay', 'k', 'sure', 'confirm', 'yes please', 'go ahead', 'do it',
  'כן', 'אישור', 'מאשר', 'מאשרת', 'בטח', 'יאללה', 'סבבה',
  'sí', 'si', 'vale', 'claro', 'oui', 'ouais', 'd accord', 'daccord', 'ja', 'jawohl', 'klar', 'sim', 'claro que sim', 'да', 'ага', 'نعم', 'أجل', 'اجل',
]);
// CANCEL declines too: on SMS it never gets here (it is a carrier opt-out word, src/channels/keywords.ts).
const NO = new Set([
  'no', 'n', 'nope', 'no thanks', 'dont', 'do not', 'cancel', 'never mind', 'nevermind', 'forget it', 'none', 'neither',
  'לא', 'ביטול', 'בטל', 'עזוב', 'לא תודה', 'אף אחד',
  'no gracias', 'ninguno', 'ninguna', 'cancelar', 'non', 'non merci', 'annuler', 'aucun', 'aucune', 'nein', 'nein danke', 'abbrechen', 'keiner', 'keine', 'keins',
  'não', 'nao', 'nenhum', 'nenhuma', 'нет', 'отмена', 'ни один', 'لا', 'إلغاء', 'الغاء',
]);

/** "yes", "no", or undefined when the message is anything else. */
export function yesOrNo(text: string): 'yes' | 'no' | undefined {
  const normalized = normalizeAnswer(text);
  if (YES.has(normalized)) return 'yes';
  if (NO.has(normalized)) return 'no';
  return undefined;
}

const ALL = new Set([
  'both', 'all', 'all of them', 'both of them', 'both please', 'all please', 'every one', 'everything',
  'שניהם', 'שתיהן', 'שתיהם', 'כולם', 'כולן', 'הכל', 'הכול', 'את שניהם', 'את כולם',
  'ambos', 'ambas', 'todos', 'todas', 'los dos', 'las dos', 'les deux', 'tous', 'toutes', 'beide', 'alle', 'os dois', 'as duas', 'оба', 'обе', 'все', 'كلاهما', 'الكل', 'الجميع',
]);

/** Ordinal and number words, 1-based, by language; a Hebrew word may also carry the article ה. */
const ORDINALS: Record<string, number> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10,
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  '1st': 1, '2nd': 2, '3rd': 3, '4th': 4, '5th': 5, '6th': 6, '7th': 7, '8th': 8, '9th': 9, '10th': 10,
  ראשון: 1, ראשונה: 1, שני: 2, שנייה: 2, שניה: 2, שלישי: 3, שלישית: 3, רביעי: 4, רביעית: 4, חמישי: 5, חמישית: 5, שישי: 6, שישית: 6, שביעי: 7, שמיני: 8, תשיעי: 9, עשירי: 10,
  אחד: 1, אחת: 1, שתיים: 2, שניים: 2, שלוש: 3, שלושה: 3, ארבע: 4, ארבעה: 4, חמש: 5, חמישה: 5,
  primero: 1, primera: 1, primer: 1, segundo: 2, segunda: 2, tercero: 3, tercera: 3, tercer: 3, cuarto: 4, cuarta: 4, quinto: 5, quinta: 5,
  uno: 1, una: 1, dos: 2, tres: 3, cuatro: 4, cinco: 5,
  premier: 1, première: 1, premiere: 1, deuxième: 2, deuxieme: 2, second_: 2, seconde: 2, troisième: 3, troisieme: 3, quatrième: 4, quatrieme: 4, cinquième: 5, cinquieme: 5,
  un: 1, deux: 2, trois: 3, quatre: 4, cinq: 5,
  erste: 1, erster: 1, ersten: 1, erstes: 1, zweite: 2, zweiter: 2, zweiten: 2, zweites: 2, dritte: 3, dritter: 3, dritten: 3, vierte: 4, vierter: 4, fünfte: 5, fünfter: 5,
  eins: 1, zwei: 2, drei: 3, vier: 4, fünf: 5,
  primeiro: 1, primeira: 1, terceiro: 3, terceira: 3, quarto_: 4, quarta: 4,
  первый: 1, первая: 1, первое: 1, второй: 2, вторая: 2, второе: 2, третий: 3, третья: 3, третье: 3, четвёртый: 4, четвертый: 4, четвёртая: 4, пятый: 5, пятая: 5,
  один: 1, одна: 1, два: 2, две: 2, три: 3, четыре: 4, пять: 5,
  الأول: 1, الاول: 1, الأولى: 1, الاولى: 1, الثاني: 2, الثانية: 2, الثالث: 3, الثالثة: 3, الرابع: 4, الرابعة: 4, الخامس: 5, الخامسة: 5,
};

/** Words around a pick that say nothing about which ("the second one", "number 2", "la segunda"). */
const FILLER = new Set([
  'the', 'one', 'ones', 'option', 'number', 'no', 'num', 'nr', 'item', 'please', 'pls', 'and', 'or', 'is', 'it', 'its', 'i', 'mean', 'meant', 'want', 'that', 'this',
  'את', 'מספר', 'זה', 'זו', 'זאת', 'ה', 'בבקשה', 'ו',
  'el', 'la', 'los', 'las', 'lo', 'le', 'les', 'der', 'die', 'das', 'den', 'o', 'a', 'os', 'as', 'y', 'e', 'et', 'und', 'número', 'numero', 'nummer', 'por', 'favor', 'bitte',
  'номер', 'и', 'رقم', 'و',
]);

/** What an answer to "Which one?" picks. */
export type ChoicePick =
  /** These candidates (0-based, in order). */
  | { kind: 'pick'; indexes: number[] }
  /** None of them: drop the question. */
  | { kind: 'none' }
  /** A number or ordinal outside the list ("3" of two). */
  | { kind: 'out_of_range' };

function ordinalOf(word: string): number | undefined {
  const digits = /^#?(\d{1,3})(?:st|nd|rd|th|[ºªe.]|er|ème)?$/u.exec(word);
  if (digits) return Number(digits[1]);
  const value = ORDINALS[word] ?? ORDINALS[`${word}_`];
  if (value !== undefined) return value;
  // Hebrew "השני": the article is a prefix letter.
  if (word.startsWith('ה') && word.length > 2) return ORDINALS[word.slice(1)];
  return undefined;
}

/**
 * The candidates an answer picks: numbers ("2", "#2", "2nd", "1 and 2"), ordinals in
 * Herald's languages ("the second one", "השנייה", "la segunda"), "both"/"all", "last", or
 * words found in exactly one candidate's label ("dad" for "Call dad, Thu 10:05").
 * Undefined: the message is not an answer (the user moved on).
 */
export function pickCandidates(text: string, labels: string[]): ChoicePick | undefined {
  const normalized = normalizeAnswer(text);
  if (!normalized) return undefined;
  if (ALL.has(normalized)) return { kind: 'pick', indexes: labels.map((_label, index) => index) };
  if (NO.has(normalized)) return { kind: 'none' };
  const words = normalized.split(' ').filter((word) => !FILLER.has(word));
  if (words.length === 0) return undefined;
  if (words.length === 1 && ['last', 'אחרון', 'האחרון', 'אחרונה', 'האחרונה', 'último', 'última', 'dernier', 'dernière', 'letzte', 'letzter', 'последний', 'последняя', 'الأخير'].includes(words[0]!)) {
    return { kind: 'pick', indexes: [labels.length - 1] };
  }
  const ordinals = words.map(ordinalOf);
  if (ordinals.every((value) => value !== undefined)) {
    const picked = [...new Set(ordinals)];
    if (picked.some((value) => value < 1 || value > labels.length)) return { kind: 'out_of_range' };
    return { kind: 'pick', indexes: picked.map((value) => value - 1) };
  }
  // Words of one label: every word of the answer appears in it, and in no other label.
  if (words.length > 4 || words.some((word) => word.length < 2)) return undefined;
  const fits = labels.flatMap((label, index) => {
    const haystack = ` ${normalizeAnswer(label)} `;
    return words.every((word) => haystack.includes(` ${word} `) || haystack.includes(` ${word}`)) ? [index] : [];
  });
  return fits.length === 1 ? { kind: 'pick', indexes: fits } : undefined;
}
