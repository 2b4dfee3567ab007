import type { LexiconSource } from '../lexicon.js';

/*
 * Hebrew words for time. Hebrew glues prepositions to the word (ב "at/on/in", ל "to/for/of",
 * ו "and", מ "from", ה "the", כ "about"): the lexicon tries `prefixes` when a whole word is
 * unknown, so "למחר", "ממחר", "ומחר", "הערב" need no entries of their own. A phrase of several
 * words cannot be reached that way ("ביום שישי" is ב + "יום שישי"), so its glued forms are
 * listed (`prefixed`).
 *
 * Choices made on purpose:
 * - ב glued to a number word is "at" ("בשמונה"); before a weekday, a month or a phrase it adds
 *   nothing ("בשבת", "בדצמבר", "ביום שישי"). Written apart from digits ("ב-5", "ב-15 בדצמבר",
 *   "ב-3.12") it is "at": the grammar reads a day after "at" too, and the longer reading wins, so
 *   "ב-15 בדצמבר" is a date and "ב-5" 5 o'clock.
 * - ל glued to a word is "of" ("1 למרץ", "לחודש הבא", "למחר"); before an hour word it is the
 *   clock's "to" ("רבע לשש", "עשרים לשלוש"): those are listed. "ה-10 לחודש" is the next 10th.
 * - ו glued to a word is a joining word ("ומחר בבוקר"); before minutes and numbers it is "and"
 *   ("חמש ורבע", "עשרים ושלוש"): those are listed.
 * - "שבועות" alone is Shavuot (nobody writes "weeks" alone for a date); "שלושה שבועות" is
 *   listed. After digits ("3 שבועות") it stays the holiday, and the phrase is refused.
 * - "ערב X" is the eve of holiday X; "ערב שבת" is Friday; "ערב" alone is the evening.
 * - "עד" is "until" (ranges: "ממחר עד שישי"); the deadlines "עד מחר", "עד סוף היום/השבוע/החודש"
 *   are listed as "by".
 */

/** Feminine cardinals (hours, minutes): "שלוש", "חמש", "אחת עשרה". */
const feminine: Record<string, number> = {
  אחת: 1, שתיים: 2, שתים: 2, שלוש: 3, שלש: 3, ארבע: 4, חמש: 5, שש: 6, שבע: 7, שמונה: 8, תשע: 9, עשר: 10,
  'אחת עשרה': 11, 'אחת-עשרה': 11, 'שתים עשרה': 12, 'שתיים עשרה': 12, 'שלוש עשרה': 13, 'ארבע עשרה': 14, 'חמש עשרה': 15,
  'שש עשרה': 16, 'שבע עשרה': 17, 'שמונה עשרה': 18, 'תשע עשרה': 19,
};

/** Masculine cardinals (days, weeks, months; colloquial minutes: "עשרה לחמש"). */
const masculine: Record<string, number> = {
  אחד: 1, שניים: 2, שלושה: 3, שלשה: 3, ארבעה: 4, חמישה: 5, חמשה: 5, שישה: 6, ששה: 6, שבעה: 7, שמונה: 8, תשעה: 9, עשרה: 10,
  'אחד עשר': 11, 'שנים עשר': 12, 'שניים עשר': 12, 'שלושה עשר': 13, 'ארבעה עשר': 14, 'חמישה עשר': 15, 'שישה עשר': 16,
  'שבעה עשר': 17, 'שמונה עשר': 18, 'תשעה עשר': 19,
};

const tens: Record<string, number> = { עשרים: 20, שלושים: 30, שלשים: 30, ארבעים: 40, חמישים: 50, שישים: 60 };

/** Construct forms before a definite plural ("שלושת הימים"). */
const construct: Record<string, number> = {
  שלושת: 3, שלשת: 3, ארבעת: 4, חמשת: 5, ששת: 6, שבעת: 7, שמונת: 8, תשעת: 9, עשרת: 10,
};

/** Ordinals with the article ("הראשון", "השלישית"); bare "ראשון", "שני"… are weekdays. */
const ordinals: Record<string, number> = {
  הראשון: 1, הראשונה: 1, השני: 2, השנייה: 2, השניה: 2, השלישי: 3, השלישית: 3, הרביעי: 4, הרביעית: 4,
  החמישי: 5, החמישית: 5, השישי: 6, השישית: 6, השביעי: 7, השביעית: 7, השמיני: 8, השמינית: 8, התשיעי: 9, התשיעית: 9,
  העשירי: 10, העשירית: 10,
};

const weekdays: Record<string, number> = { ראשון: 7, שני: 1, שלישי: 2, רביעי: 3, חמישי: 4, שישי: 5, שבת: 6 };
/** "יום א׳" … "יום ו׳", "יום ש׳": the letters count the days from Sunday. */
const weekdayLetters: Record<string, number> = { א: 7, ב: 1, ג: 2, ד: 3, ה: 4, ו: 5, ש: 6 };

const months: Record<string, number> = {
  ינואר: 1, ינו: 1, פברואר: 2, פבר: 2, מרץ: 3, מרס: 3, אפריל: 4, אפר: 4, מאי: 5, יוני: 6, יולי: 7,
  אוגוסט: 8, אוג: 8, ספטמבר: 9, ספט: 9, אוקטובר: 10, אוק: 10, אוקט: 10, נובמבר: 11, נוב: 11, דצמבר: 12, דצמ: 12, דצ: 12,
};

const fullMonths: Record<string, number> = {
  ינואר: 1, פברואר: 2, מרץ: 3, מרס: 3, אפריל: 4, מאי: 5, יוני: 6, יולי: 7, אוגוסט: 8, ספטמבר: 9, אוקטובר: 10, נובמבר: 11, דצמבר: 12,
};

/** Holiday names → keys of src/time/holidays.ts. */
const holidays: Record<string, string> = {
  'ראש השנה': 'rosh-hashanah', 'רה': 'rosh-hashanah', 'ראש השנה העברית': 'rosh-hashanah',
  'יום כיפור': 'yom-kippur', 'יום כפור': 'yom-kippur', 'יום הכיפורים': 'yom-kippur', 'יום הכפורים': 'yom-kippur', כיפור: 'yom-kippur', כפור: 'yom-kippur', יוהכ: 'yom-kippur',
  סוכות: 'sukkot', סכות: 'sukkot', 'חג הסוכות': 'sukkot', 'חג סוכות': 'sukkot',
  'שמחת תורה': 'simchat-torah', 'שמיני עצרת': 'simchat-torah',
  חנוכה: 'hanukkah', 'חג החנוכה': 'hanukkah', 'חג חנוכה': 'hanukkah',
  'טו בשבט': 'tu-bishvat',
  פורים: 'purim', 'חג פורים': 'purim', 'חג הפורים': 'purim',
  פסח: 'passover', 'חג הפסח': 'passover', 'חג פסח': 'passover',
  'יום העצמאות': 'yom-haatzmaut', 'יום עצמאות': 'yom-haatzmaut',
  'יום השואה': 'yom-hashoah', 'יום השואה והגבורה': 'yom-hashoah', 'יום הזיכרון לשואה ולגבורה': 'yom-hashoah', 'יום הזכרון לשואה ולגבורה': 'yom-hashoah',
  'יום הזיכרון': 'yom-hazikaron', 'יום הזכרון': 'yom-hazikaron', 'יום הזיכרון לחללי מערכות ישראל': 'yom-hazikaron',
  'לג בעומר': 'lag-baomer', 'לג בעמר': 'lag-baomer',
  שבועות: 'shavuot', 'חג השבועות': 'shavuot', 'חג שבועות': 'shavuot',
  'תשעה באב': 'tisha-bav', 'ט באב': 'tisha-bav',
  'ראש השנה האזרחית': 'new-year', 'השנה האזרחית החדשה': 'new-year',
  כריסמס: 'christmas', 'חג המולד': 'christmas', 'קריסמס': 'christmas',
  פסחא: 'easter', 'חג הפסחא': 'easter',
  רמדאן: 'ramadan', רמדן: 'ramadan', הרמדאן: 'ramadan',
  'עיד אל פיטר': 'eid-al-fitr', 'עיד אל פטר': 'eid-al-fitr', 'עיד אל אדחא': 'eid-al-adha', 'עיד אל אדחה': 'eid-al-adha',
  האלווין: 'halloween', הלואין: 'halloween', 'ליל כל הקדושים': 'halloween',
  'יום ולנטיין': 'valentines-day', ולנטיין: 'valentines-day', ולנטיינס: 'valentines-day', 'יום הוולנטיין': 'valentines-day',
  'חג ההודיה': 'thanksgiving', 'בלאק פריידי': 'black-friday', 'יום הפועלים': 'workers-day',
};

/**
 * The forms of a phrase of several words with a preposition glued to its first word
 * ("יום שישי" → "ביום שישי", "מיום שישי", "וביום שישי"…), as the lexicon's `prefixes`
 * reads single words.
 */
function prefixed(entries: Record<string, string>, prefixes = 'ב ל מ ו וב ומ'): Record<string, string> {
  const meaning: Record<string, string> = { ב: '', ל: 'of', מ: 'from', ו: 'filler', וב: 'filler', ול: 'filler of', ומ: 'filler from' };
  const out: Record<string, string> = {};
  for (const [phrase, symbols] of Object.entries(entries)) {
    out[phrase] = symbols;
    for (const prefix of prefixes.split(' ')) out[`${prefix}${phrase}`] = `${meaning[prefix] ?? ''} ${symbols}`.trim();
  }
  return out;
}

function build(): Record<string, string> {
  const phrases: Record<string, string> = {};
  const add = (entries: Record<string, string>): void => {
    for (const [phrase, symbols] of Object.entries(entries)) phrases[phrase] = symbols;
  };

  // Numbers. "ו" + a number is "and" ("עשרים ושלוש", "שלוש ועשרים"); "ל" + an hour is the clock's "to" ("רבע לשש").
  const numbers: Record<string, number> = { ...feminine, ...masculine, ...tens };
  for (const [word, value] of Object.entries(numbers)) {
    phrases[word] = `num:${value}`;
    phrases[`ו${word}`] = `and num:${value}`;
    // "באחת עשרה" (at 11), "מחמש": the glued preposition, for the words of several words too.
    phrases[`ב${word}`] = `at num:${value}`;
    phrases[`מ${word}`] = `from num:${value}`;
    phrases[`וב${word}`] = `filler at num:${value}`;
  }
  for (const [word, value] of Object.entries({ ...feminine, ...masculine })) {
    phrases[`ל${word}`] = `to num:${value}`;
  }
  // "באחד לחודש", "באחד בינואר": masculine "one" is a day of the month (the hour is feminine, "באחת").
  phrases['באחד'] = 'the ord:1';
  for (const [word, value] of Object.entries(construct)) phrases[word] = `num:${value}`;
  phrases['שתי'] = 'num:2';
  phrases['אפס'] = 'num:0';
  for (const [word, value] of Object.entries(ordinals)) {
    phrases[word] = `the ord:${value}`;
  }
  // "העשרים בדצמבר", "התשעה עשר": a day of the month in words, with the article.
  for (const [word, value] of Object.entries({ ...masculine, ...feminine })) {
    if (value < 1 || value > 19) continue;
    phrases[`ה${word}`] = `the ord:${value}`;
  }
  const units: Record<string, number> = { אחד: 1, אחת: 1, שניים: 2, שתיים: 2, שלושה: 3, שלוש: 3, ארבעה: 4, ארבע: 4, חמישה: 5, חמש: 5, שישה: 6, שש: 6, שבעה: 7, שבע: 7, שמונה: 8, תשעה: 9, תשע: 9 };
  phrases['העשרים'] = 'the ord:20';
  phrases['השלושים'] = 'the ord:30';
  for (const [word, value] of Object.entries(units)) {
    phrases[`העשרים ו${word}`] = `the ord:${20 + value}`;
    if (value === 1) phrases[`השלושים ו${word}`] = 'the ord:31';
  }

  // Weekdays: "שישי", "יום שישי", "יום ו׳", and the forms glued to a preposition.
  const days: Record<string, string> = {};
  for (const [word, value] of Object.entries(weekdays)) {
    phrases[word] = `weekday:${value}`;
    phrases[`ב${word}`] = `weekday:${value}`;
    phrases[`וב${word}`] = `filler weekday:${value}`;
    days[`יום ${word}`] = `weekday:${value}`;
  }
  for (const [letter, value] of Object.entries(weekdayLetters)) days[`יום ${letter}`] = `weekday:${value}`;
  add(prefixed(days));
  phrases['שבת'] = 'weekday:6';
  add(prefixed({ 'ערב שבת': 'weekday:5', 'ליל שבת': 'weekday:5 part:night', 'מוצאי שבת': 'weekday:6 part:evening', מוצש: 'weekday:6 part:evening', }));

  // Months, and "בדצמבר" (in/of December: "3 בדצמבר", "באוקטובר 2027").
  for (const [word, value] of Object.entries(months)) {
    phrases[word] = `month:${value}`;
    phrases[`ב${word}`] = `month:${value}`;
    phrases[`וב${word}`] = `filler month:${value}`;
  }
  // "חודש דצמבר", "בחודש מרץ"; "שנת 2027".
  const monthNames: Record<string, string> = {};
  for (const [word, value] of Object.entries(fullMonths)) monthNames[`חודש ${word}`] = `month:${value}`;
  add(prefixed(monthNames));
  phrases['שנת'] = 'of';
  // "עשרה בדצמבר", "בשלושה במרץ", "בראשון בינואר": a day of the month in words before the month
  // (the grammar reads a number word as a day only after the month: "דצמבר עשרה").
  const spelled = new Set(['שלש', 'שלשה', 'חמשה', 'ששה', 'שתים', 'אחת-עשרה', 'שתים עשרה', 'שניים עשר']);
  const dayWords: Record<string, number> = {};
  for (const [word, value] of Object.entries({ ...feminine, ...masculine })) if (!spelled.has(word)) dayWords[word] = value;
  dayWords['עשרים'] = 20;
  dayWords['שלושים'] = 30;
  for (const [word, value] of Object.entries(units)) {
    dayWords[`עשרים ו${word}`] = 20 + value;
    if (value === 1) dayWords[`שלושים ו${word}`] = 31;
  }
  const ordinalDays: Record<string, number> = { ראשון: 1, שני: 2, שלישי: 3, רביעי: 4, חמישי: 5, שישי: 6, שביעי: 7, שמיני: 8, תשיעי: 9, עשירי: 10 };
  for (const [month, monthValue] of Object.entries(fullMonths)) {
    for (const [word, value] of Object.entries(dayWords)) {
      phrases[`${word} ב${month}`] = `ord:${value} month:${monthValue}`;
      phrases[`ב${word} ב${month}`] = `ord:${value} month:${monthValue}`;
    }
    for (const [word, value] of Object.entries(ordinalDays)) phrases[`ב${word} ב${month}`] = `ord:${value} month:${monthValue}`;
  }

  // Units.
  add({
    שנייה: 'unit:second', שניה: 'unit:second', שניות: 'unit:second',
    דקה: 'unit:minute', דקות: 'unit:minute', דק: 'unit:minute', דקותיים: 'num:2 unit:minute',
    שעה: 'unit:hour', שעות: 'unit:hour', שעתיים: 'num:2 unit:hour', שעתים: 'num:2 unit:hour', ש: 'unit:hour', ד: 'unit:minute',
    יום: 'unit:day', ימים: 'unit:day', יומיים: 'num:2 unit:day', יומים: 'num:2 unit:day',
    שבוע: 'unit:week', שבועיים: 'num:2 unit:week', שבועים: 'num:2 unit:week',
    חודש: 'unit:month', חודשים: 'unit:month', חודשיים: 'num:2 unit:month',
    שנה: 'unit:year', שנים: 'unit:year', שנתיים: 'num:2 unit:year', שנתים: 'num:2 unit:year',
    'סוף שבוע': 'unit:weekend', סופש: 'unit:weekend', 'סופי שבוע': 'unit:weekend', 'סוף השבוע': 'unit:weekend',
    'רבע שעה': 'quarter unit:hour', 'חצי שעה': 'half unit:hour', 'שלושת רבעי שעה': 'three-quarters unit:hour', 'שלושה רבעי שעה': 'three-quarters unit:hour',
    'שעה ורבע': 'num:1.25 unit:hour', 'שעתיים ורבע': 'num:2.25 unit:hour', 'שעה ושלושת רבעי': 'num:1.75 unit:hour',
    'דקה וחצי': 'num:1.5 unit:minute', 'יום וחצי': 'num:1.5 unit:day', 'שבוע וחצי': 'num:1.5 unit:week', 'חודש וחצי': 'num:1.5 unit:month',
    // "בשבוע הבא", "שני בשבוע הבא"; "ה-15 בחודש הבא".
    בשבוע: 'on unit:week',
    // "ה-10 לחודש", "ב-1 בחודש": the day of the month (the next one); "ה-15 לחודש הבא": next month's.
    לחודש: 'ord-suffix day-of-month', בחודש: 'ord-suffix day-of-month',
    'לחודש הבא': 'of unit:month next', 'בחודש הבא': 'of unit:month next', 'לחודש שעבר': 'of unit:month last', 'בחודש שעבר': 'of unit:month last',
    'לחודש הזה': 'of unit:month this', 'בחודש הזה': 'of unit:month this', 'לחודש הנוכחי': 'of unit:month this', 'בחודש הנוכחי': 'of unit:month this',
    // "יום שישי האחרון בחודש", "יום שני הראשון בחודש הבא": the nth weekday.
    'האחרון בחודש': 'last of the unit:month', 'האחרונה בחודש': 'last of the unit:month', 'האחרון לחודש': 'last of the unit:month', 'האחרונה לחודש': 'last of the unit:month',
    'לחודש הקודם': 'of unit:month last', 'בחודש הקודם': 'of unit:month last', 'לחודש הקרוב': 'of unit:month next', 'בחודש הקרוב': 'of unit:month next',
  });
  // "שלושה שבועות": "weeks" after a number word ("שבועות" alone is the holiday).
  for (const [word, value] of Object.entries({ ...masculine, ...tens })) {
    phrases[`${word} שבועות`] = `num:${value} unit:week`;
  }
  phrases['שני שבועות'] = 'num:2 unit:week';
  for (const [unit, symbol] of [['ימים', 'day'], ['חודשים', 'month'], ['שבועות', 'week'], ['שעות', 'hour'], ['דקות', 'minute']] as const) {
    phrases[`שני ${unit}`] = `num:2 unit:${symbol}`;
    phrases[`שתי ${unit}`] = `num:2 unit:${symbol}`;
  }
  // "שלושת הימים הקרובים", "ביומיים הקרובים": the next N days (the grammar reads "next 3 days").
  const rolling: Record<string, string> = {};
  for (const [plural, unit] of [['הימים', 'day'], ['השבועות', 'week'], ['החודשים', 'month']] as const) {
    for (const [word, value] of Object.entries(construct)) {
      for (const [after, qualifier] of [['הקרובים', 'next'], ['הבאים', 'next'], ['האחרונים', 'last'], ['שעברו', 'last']] as const) {
        rolling[`${word} ${plural} ${after}`] = `${qualifier} num:${value} unit:${unit}`;
      }
    }
  }
  for (const [word, unit] of [['יומיים', 'day'], ['שבועיים', 'week'], ['חודשיים', 'month']] as const) {
    for (const [after, qualifier] of [['הקרובים', 'next'], ['הבאים', 'next'], ['האחרונים', 'last']] as const) {
      rolling[`${word} ${after}`] = `${qualifier} num:2 unit:${unit}`;
      rolling[`ה${word} ${after}`] = `${qualifier} num:2 unit:${unit}`;
    }
  }
  add(prefixed(rolling, 'ב ל'));

  // Days relative to today, and now.
  add({
    היום: 'rel:0', מחר: 'rel:1', מחרתיים: 'rel:2', מחרתים: 'rel:2', אתמול: 'rel:-1', שלשום: 'rel:-2', למחרת: 'rel:1', אמש: 'rel:-1 part:night',
    עכשיו: 'now', כעת: 'now', מיד: 'now', מייד: 'now', מיידית: 'now', 'כמה שיותר מהר': 'now', 'בהקדם': 'now', 'בהקדם האפשרי': 'now', 'ברגע זה': 'now',
  });

  // Parts of the day.
  add({
    בוקר: 'part:morning', צהריים: 'part:midday', צהרים: 'part:midday', 'צהרי היום': 'part:midday', ערב: 'part:evening', לילה: 'part:night',
    אחהצ: 'part:afternoon', 'אחר הצהריים': 'part:afternoon', 'אחרי הצהריים': 'part:afternoon', 'אחר הצהרים': 'part:afternoon',
    'אחרי הצהרים': 'part:afternoon', 'אחר צהריים': 'part:afternoon', 'אחרי צהריים': 'part:afternoon',
    'לפנות בוקר': 'part:morning', 'לפנות ערב': 'part:evening', 'שעות הבוקר': 'part:morning', 'שעות הערב': 'part:evening',
    'שעות אחר הצהריים': 'part:afternoon', 'שעות הצהריים': 'part:midday', 'שעות הלילה': 'part:night',
    בשעות: 'at', 'בשעות אחר הצהריים': 'at part:afternoon', 'בשעות אחרי הצהריים': 'at part:afternoon',
    חצות: 'clock:0', 'חצות הלילה': 'clock:0', 'חצות היום': 'clock:720', 'בחצות': 'at clock:0', 'בחצות הלילה': 'at clock:0',
    'לפני הצהריים': 'part:morning', לפנהצ: 'part:morning',
  });
  add(prefixed({
    'אחר הצהריים': 'part:afternoon', 'אחרי הצהריים': 'part:afternoon', 'אחר הצהרים': 'part:afternoon', 'אחר צהריים': 'part:afternoon',
    'לפנות בוקר': 'part:morning', 'לפנות ערב': 'part:evening', 'צהרי היום': 'part:midday',
  }));

  // Clock words: "רבע לשש", "שש ורבע", "חמש וחצי", "בשעה 5", "חמש פחות רבע".
  add({
    רבע: 'quarter', חצי: 'half', 'שלושה רבעי': 'three-quarters', 'שלושת רבעי': 'three-quarters',
    ורבע: 'and quarter', וחצי: 'and half', 'ושלושה רבעי': 'and three-quarters',
    בשעה: 'at', שעה: 'unit:hour', בסביבות: 'at', סביבות: 'at', 'בערך': 'filler', 'בדיוק': 'filler',
    'בשעה בדיוק': 'at', 'עגול': 'oclock', 'עגולות': 'oclock',
  });
  // "חמש פחות רבע" (4:45), "שש פחות עשרה": hour, "minus", minutes.
  const minus: Record<string, string> = { רבע: 'quarter', עשרה: 'num:10', עשר: 'num:10', חמישה: 'num:5', חמש: 'num:5', עשרים: 'num:20', 'עשרים וחמש': 'num:25', 'עשרים וחמישה': 'num:25' };
  for (const [hour, value] of Object.entries(feminine)) {
    if (value > 12) continue;
    for (const [words, minutes] of Object.entries(minus)) {
      phrases[`${hour} פחות ${words}`] = `${minutes} to num:${value}`;
      phrases[`ב${hour} פחות ${words}`] = `at ${minutes} to num:${value}`;
    }
  }

  // Qualifiers, after the noun: "שישי הבא", "שבוע שעבר", "שבת הקרובה".
  add({
    // (The plurals "הקרובים", "הבאים", "האחרונים" only after a count: see the rolling spans.)
    הבא: 'next', הבאה: 'next', 'הבא הבא': 'after-next',
    הקרוב: 'this', הקרובה: 'this',
    שעבר: 'last', שעברה: 'last', הקודם: 'last', הקודמת: 'last', האחרון: 'last', האחרונה: 'last', שחלף: 'last', שחלפה: 'last',
    הזה: 'this', הזאת: 'this', הזו: 'this', הנוכחי: 'this', הנוכחית: 'this',
    'שאחרי הבא': 'after-next', 'אחרי הבא': 'after-next', 'הבא אחריו': 'after-next', 'הבאה אחריה': 'after-next', 'שאחריו': 'after-next', 'שאחריה': 'after-next',
  });

  // Durations: "בעוד 3 ימים", "לפני שבוע", "תוך שעה", "שבוע מהיום".
  add({
    בעוד: 'in', עוד: 'in', 'בעוד כ': 'in', 'בעוד כ -': 'in', כ: '', 'כ -': '', 'לפני כ -': 'ago', תוך: 'within', בתוך: 'within',
    לפני: 'ago', 'לפני כ': 'ago', מעכשיו: 'from-now', 'מהיום': 'from rel:0', 'מהרגע': 'from-now',
    אחרי: 'after',
  });

  // Edges: "סוף החודש", "תחילת השבוע הבא", "אמצע מרץ", "סוף היום".
  add({
    בהמשך: 'rest', שארית: 'rest', שאר: 'rest', יתרת: 'rest', 'כל שאר': 'rest', 'במשך שאר': 'rest', 'במשך כל': 'filler',
    סוף: 'end', תחילת: 'start', התחלת: 'start', אמצע: 'mid',
    'סוף היום': 'eod', 'סוף יום': 'eod', 'סוף יום העבודה': 'eod', 'סוף יום עבודה': 'eod', 'עד סוף היום': 'by eod', 'עד סוף יום': 'by eod',
    'סוף השבוע': 'unit:weekend',
    'עד סוף השבוע': 'by unit:weekend', 'עד סוף החודש': 'by end the unit:month', 'עד סוף השנה': 'by end the unit:year',
    'עד מחר': 'by rel:1', 'עד מחרתיים': 'by rel:2', 'עד היום': 'by rel:0',
  });
  add(prefixed({ 'סוף השבוע': 'unit:weekend', 'סוף היום': 'eod', 'סוף יום': 'eod' }));

  // Joining words. (ב/ל/מ/ה written apart from a number: "ב-17:00", "ה-15", "מ-9", "רבע ל-12".)
  add({
    ב: 'at', 'ב -': 'at', וב: 'at', 'וב -': 'at', ה: 'the', 'ה -': 'the', מה: 'from the', 'מה -': 'from the',
    מ: 'from', 'מ -': 'from', ל: 'to', 'ל -': 'to', ו: 'and', 'ו -': 'and', 'עד ה': 'until the', 'עד ה -': 'until the',
    של: 'of the', עד: 'until', 'עד ל': 'until', 'עד ל -': 'until', בין: 'between', 'לא יאוחר מ': 'by', 'לא יאוחר מ -': 'by',
    'לא יאוחר מאשר': 'by', 'לכל המאוחר': 'filler', 'החל מ': 'from', 'החל מ -': 'from', 'החל מה': 'from the', 'החל מה -': 'from the',
    'כל': 'every', 'כל יום': 'every', 'כל שבוע': 'every', 'כל חודש': 'every', 'כל שנה': 'every', 'מדי': 'every', 'יומי': 'every', 'שבועי': 'every',
  });

  // Holidays, with "ערב X" (the eve), "חג X", and the glued prepositions.
  const holidayPhrases: Record<string, string> = {};
  for (const [name, key] of Object.entries(holidays)) {
    holidayPhrases[name] = `holiday:${key}`;
    holidayPhrases[`ערב ${name}`] = `eve holiday:${key}`;
  }
  holidayPhrases['ליל הסדר'] = 'eve holiday:passover';
  holidayPhrases['סילבסטר'] = 'eve holiday:new-year';
  holidayPhrases['ערב ראש השנה האזרחית'] = 'eve holiday:new-year';
  add(prefixed(holidayPhrases));
  // "שבוע לפני פסח", "יומיים לפני יום שישי": "לפני" before a day is "before", not "ago".
  const before: Record<string, string> = {};
  for (const [name, key] of Object.entries(holidays)) before[`לפני ${name}`] = `before holiday:${key}`;
  for (const [word, value] of Object.entries(weekdays)) {
    before[`לפני ${word}`] = `before weekday:${value}`;
    before[`לפני יום ${word}`] = `before weekday:${value}`;
  }
  add(before);

  return phrases;
}

/** Hebrew words for time. */
export const hebrew: LexiconSource = {
  language: 'he',
  phrases: build(),
  // כ is "about" ("בעוד כשעה", "כעשר דקות"): it changes nothing.
  prefixes: { ב: 'at', ל: 'of', ו: 'filler', מ: 'from', ה: 'the', כ: '' },
};
