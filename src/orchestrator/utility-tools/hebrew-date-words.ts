/**
 * Hebrew date words, translated to the English that chrono-node and resolve_date's own rules
 * read (chrono-node has no Hebrew locale): מחר, מחרתיים, היום, יום שישי הבא, השבוע, בעוד 3
 * ימים, month names… Written afresh for Herald (seed 003's Hebrew was garbled in transit).
 */

/** Builds a regex that matches a Hebrew phrase only as whole words (`\b` is ASCII-only in JavaScript). */
function hebrewPhrase(source: string): RegExp {
  return new RegExp(`(?<!\\p{L})(?:${source})(?!\\p{L})`, 'gu');
}

const hebrewWeekdays: Record<string, string> = {
  'ראשון': 'sunday',
  'שני': 'monday',
  'שלישי': 'tuesday',
  'רביעי': 'wednesday',
  'חמישי': 'thursday',
  'שישי': 'friday',
  'שבת': 'saturday',
};

const hebrewMonths: Record<string, string> = {
  'ינואר': 'january',
  'פברואר': 'february',
  'מרץ': 'march',
  'מרס': 'march',
  'אפריל': 'april',
  'מאי': 'may',
  'יוני': 'june',
  'יולי': 'july',
  'אוגוסט': 'august',
  'ספטמבר': 'september',
  'אוקטובר': 'october',
  'נובמבר': 'november',
  'דצמבר': 'december',
};

/** Hebrew "next" / "this coming" / "last" after a noun, mapped to the English word placed before it. */
function hebrewQualifier(qualifier: string | undefined): string {
  if (qualifier === 'הבא' || qualifier === 'הבאה') return 'next ';
  if (qualifier === 'הקרוב' || qualifier === 'הקרובה') return 'this ';
  if (qualifier === undefined) return '';
  return 'last ';
}

const hebrewQualifierAlternation = 'הבא|הבאה|הקרוב|הקרובה|שעבר|הקודם|הקודמת|האחרון|האחרונה';

/**
 * Hebrew date words and their English equivalents, applied in order: longer phrases first so
 * "מחרתיים" (day after tomorrow) is not read as "מחר" (tomorrow), and "יום שישי" (Friday) is
 * translated before the lone "יום" (day). Leading ב/ל/ה/ו/מ are Hebrew prefixes ("on", "to",
 * "the", "and", "from") glued to the word.
 */
const hebrewReplacements: Array<[RegExp, string | ((groups: Array<string | undefined>) => string)]> = [
  [hebrewPhrase('(?:ב|ל)?סו(?:ף|פ)\\s+(?:ה)?שבוע\\s+(?:ה)?בא'), 'next weekend'],
  [hebrewPhrase('(?:ב|ל)?(?:סו(?:ף|פ)\\s+(?:ה)?שבוע|סופ"ש|סופ\'ש|סופש)'), 'this weekend'],
  [hebrewPhrase('(?:ב|ל)?(?:ה)?שבוע\\s+(?:ה)?בא'), 'next week'],
  [hebrewPhrase('(?:ב|ל)?(?:ה)?שבוע\\s+(?:שעבר|הקודם|האחרון)'), 'last week'],
  [hebrewPhrase('(?:ב|ל)?השבוע'), 'this week'],
  [hebrewPhrase('(?:ב|ל)?(?:ה)?חודש\\s+(?:ה)?בא'), 'next month'],
  [hebrewPhrase('(?:ב|ל)?(?:ה)?חודש\\s+(?:שעבר|הקודם|האחרון)'), 'last month'],
  [hebrewPhrase('(?:ב|ל)?החודש'), 'this month'],
  [hebrewPhrase('(?:ב|ל)?(?:ה)?שנה\\s+(?:ה)?באה'), 'next year'],
  [hebrewPhrase('(?:ב|ל)?(?:ה)?שנה\\s+(?:שעברה|הקודמת|האחרונה)'), 'last year'],
  [hebrewPhrase('(?:ב|ל)?השנה'), 'this year'],
  [
    hebrewPhrase(`(?:ב|ו|ה|מ|ל)?יום\\s+(ראשון|שני|שלישי|רביעי|חמישי|שישי|שבת)(?:\\s+(${hebrewQualifierAlternation}))?`),
    ([day, qualifier]) => `${hebrewQualifier(qualifier)}${hebrewWeekdays[day ?? ''] ?? ''}`,
  ],
  [
    hebrewPhrase(`(?:ב|ו|ה|מ|ל)?שבת(?:\\s+(${hebrewQualifierAlternation}))?`),
    ([qualifier]) => `${hebrewQualifier(qualifier)}saturday`,
  ],
  [hebrewPhrase('(?:ו|ל|מ)?מחרתיים'), 'day after tomorrow'],
  [hebrewPhrase('(?:ו|ל|מ)?שלשום'), 'day before yesterday'],
  [hebrewPhrase('(?:ו|ל|מ)?מחר'), 'tomorrow'],
  [hebrewPhrase('(?:ו|ל|מ)?היום'), 'today'],
  [hebrewPhrase('(?:ו|ל|מ)?אתמול'), 'yesterday'],
  [hebrewPhrase('הבוקר'), 'this morning'],
  [hebrewPhrase('הערב'), 'this evening'],
  [hebrewPhrase('הלילה'), 'tonight'],
  [hebrewPhrase('(?:ב)?(?:אחר\\s+ה?צהריים|אחה"צ)'), 'afternoon'],
  [hebrewPhrase('(?:ב)?צהריים'), 'noon'],
  [hebrewPhrase('(?:ב)?בוקר'), 'morning'],
  [hebrewPhrase('(?:ב)?ערב'), 'evening'],
  [hebrewPhrase('(?:ב)?לילה'), 'night'],
  [
    hebrewPhrase(`(?:ב|ל)?(${Object.keys(hebrewMonths).join('|')})`),
    ([month]) => hebrewMonths[month ?? ''] ?? '',
  ],
  [hebrewPhrase('(?:ב)?עוד|תוך'), 'in'],
  [hebrewPhrase('יומיים'), '2 days'],
  [hebrewPhrase('שבועיים'), '2 weeks'],
  [hebrewPhrase('חודשיים'), '2 months'],
  [hebrewPhrase('שעתיים'), '2 hours'],
  [hebrewPhrase('חצי\\s+שעה'), '30 minutes'],
  [/(\d+)\s*(?:ימים|יום)(?!\p{L})/gu, '$1 days'],
  [/(\d+)\s*(?:שבועות|שבוע)(?!\p{L})/gu, '$1 weeks'],
  [/(\d+)\s*(?:חודשים|חודש)(?!\p{L})/gu, '$1 months'],
  [/(\d+)\s*(?:שעות|שעה)(?!\p{L})/gu, '$1 hours'],
  [/(\d+)\s*(?:דקות|דקה)(?!\p{L})/gu, '$1 minutes'],
  [hebrewPhrase('יום'), 'a day'],
  [hebrewPhrase('שבוע'), 'a week'],
  [hebrewPhrase('חודש'), 'a month'],
  [hebrewPhrase('שעה'), 'an hour'],
  [hebrewPhrase('בשעה'), 'at'],
  // "ב-15:00" is "at 15:00"; "ב-3 february" is "on 3 february".
  [/(?<!\p{L})ב-?(?=\d{1,2}:\d{2})/gu, 'at '],
  [/(?<!\p{L})ב-(?=\d)/gu, ''],
  [hebrewPhrase('עד'), 'to'],
  [hebrewPhrase('מ'), 'from'],
];

/**
 * Lower-cases an expression, tidies spacing and punctuation, and translates Hebrew date words
 * (מחר, מחרתיים, היום, יום שישי, השבוע…) to the English chrono-node and the rules here read.
 */
export function normalizeDateExpression(expression: string): string {
  let text = expression
    .normalize('NFC')
    .toLowerCase()
    // Hebrew gershayim and geresh (סופ״ש, אחה״צ) are usually typed as plain quotes.
    .replace(/[״“”]/g, '"')
    .replace(/[׳‘’]/g, "'")
    .replace(/־/g, '-');
  for (const [pattern, replacement] of hebrewReplacements) {
    text = typeof replacement === 'string'
      ? text.replace(pattern, replacement)
      : text.replace(pattern, (...args: unknown[]) => {
          // The callback gets (match, ...groups, offset, whole string); the offset is the first number.
          const offsetIndex = args.findIndex((argument, index) => index > 0 && typeof argument === 'number');
          const groups = args.slice(1, offsetIndex).map((group) => (typeof group === 'string' ? group : undefined));
          return replacement(groups);
        });
  }
  return text
    .replace(/\s+/g, ' ')
    .replace(/^[\s,.;:!?]+|[\s,.;:!?]+$/g, '')
    .trim();
}

