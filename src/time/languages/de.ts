import type { LexiconSource } from '../lexicon.js';

/*
 * German. Phrases are written with umlauts; the "ae/oe/ue" spellings people type without
 * them ("naechste", "frueh") are added below. Compound numbers ("fünfundzwanzig") and
 * ordinals ("fünfundzwanzigsten") are one word each, so they are generated here: the lexicon
 * joins only tens-first compounds (src/time/lexicon.ts).
 *
 * Words that mean two things are listed as the longer phrases that decide them:
 * - "morgen" is tomorrow; "heute Morgen", "am Morgen", "Montagmorgen" are mornings.
 * - "vor" is "ago" ("vor 3 Tagen"); "viertel vor 3", "zehn vor 8", "15 Minuten vor 12" are
 *   clock times and "2 Tage vor Weihnachten" is before.
 * - "so" alone is left out: "So." / "So," is Sunday, "so um 3" / "so gegen 3" is "around 3".
 */

const units = ['', 'ein', 'zwei', 'drei', 'vier', 'fünf', 'sechs', 'sieben', 'acht', 'neun'];
const tens: Array<[string, number]> = [['zwanzig', 20], ['dreißig', 30], ['vierzig', 40], ['fünfzig', 50]];

/** Cardinal number words 0–59 (the words people write for hours, minutes, days and counts). */
function cardinals(): Map<string, number> {
  const words = new Map<string, number>([
    ['null', 0], ['eins', 1], ['ein', 1], ['eine', 1], ['einen', 1], ['einem', 1], ['einer', 1], ['ner', 1], ['nem', 1], ['nen', 1],
    ['zwei', 2], ['zwo', 2], ['drei', 3], ['vier', 4], ['fünf', 5], ['sechs', 6], ['sieben', 7], ['acht', 8], ['neun', 9],
    ['zehn', 10], ['elf', 11], ['zwölf', 12], ['dreizehn', 13], ['vierzehn', 14], ['fünfzehn', 15], ['sechzehn', 16],
    ['siebzehn', 17], ['achtzehn', 18], ['neunzehn', 19], ['sechzig', 60],
  ]);
  for (const [ten, value] of tens) {
    words.set(ten, value);
    for (let unit = 1; unit <= 9; unit += 1) words.set(`${units[unit]}und${ten}`, value + unit);
  }
  return words;
}

/** The one spelling of each number 1–59 used to build other phrases. */
function numberWord(value: number): string {
  const plain = ['', 'ein', 'zwei', 'drei', 'vier', 'fünf', 'sechs', 'sieben', 'acht', 'neun', 'zehn', 'elf', 'zwölf', 'dreizehn', 'vierzehn', 'fünfzehn', 'sechzehn', 'siebzehn', 'achtzehn', 'neunzehn'];
  if (value < 20) return value === 1 ? 'eins' : plain[value] ?? '';
  const ten = tens.find(([, tenValue]) => tenValue === value - (value % 10));
  if (!ten) return '';
  return value % 10 === 0 ? ten[0] : `${units[value % 10]}und${ten[0]}`;
}

/** Ordinal stems 1–31: "erst", "zweit", "dritt", …, "einunddreißigst"; the endings are added. */
function ordinalStems(): Map<string, number> {
  const stems = new Map<string, number>([
    ['erst', 1], ['zweit', 2], ['dritt', 3], ['viert', 4], ['fünft', 5], ['sechst', 6], ['siebt', 7], ['siebent', 7], ['acht', 8],
    ['neunt', 9], ['zehnt', 10], ['elft', 11], ['zwölft', 12],
  ]);
  for (let value = 13; value <= 19; value += 1) stems.set(`${numberWord(value)}t`, value);
  for (let value = 20; value <= 31; value += 1) stems.set(`${numberWord(value)}st`, value);
  return stems;
}

const endings = ['e', 'en', 'er', 'es', 'em'];

const weekdays: Array<[string, number]> = [
  ['montag', 1], ['dienstag', 2], ['mittwoch', 3], ['donnerstag', 4], ['freitag', 5], ['samstag', 6], ['sonnabend', 6], ['sonntag', 7],
];

/** Parts of the day as a word glued to a weekday ("Montagabend") or after it ("Montag Abend"). */
const dayParts: Array<[string, string]> = [
  ['morgen', 'part:morning'], ['früh', 'part:morning'], ['vormittag', 'part:morning'], ['mittag', 'clock:720'],
  ['nachmittag', 'part:afternoon'], ['abend', 'part:evening'], ['nacht', 'part:night'],
];

function generated(): Record<string, string> {
  const out: Record<string, string> = {};
  // Numbers.
  for (const [word, value] of cardinals()) out[word] = `num:${value}`;
  // "zwei drei Tage", "in drei vier Minuten": two or three, not 2:03; read as a range so it is refused.
  for (let first = 1; first <= 8; first += 1) {
    const one = first === 1 ? 'ein' : units[first] ?? '';
    const two = units[first + 1] ?? '';
    out[`${one} ${two}`] = `num:${first} until num:${first + 1}`;
    out[`${one} bis ${two}`] = `num:${first} until num:${first + 1}`;
    out[`${one} oder ${two}`] = `num:${first} until num:${first + 1}`;
  }
  // "zweieinhalb Stunden", "dreieinhalb Tage".
  for (let unit = 2; unit <= 9; unit += 1) out[`${units[unit]}einhalb`] = `num:${unit} and half`;
  // Ordinals with every ending: "ersten", "dritter", "neunundzwanzigsten".
  for (const [stem, value] of ordinalStems()) for (const ending of endings) out[`${stem}${ending}`] = `ord:${value}`;
  // "Montagmorgen", "Montag Morgen", "Freitagabend", "Sonntagnachmittag", and the habitual "montags" (a recurrence).
  for (const [weekday, value] of weekdays) {
    out[weekday] = `weekday:${value}`;
    out[`${weekday}s`] = `every weekday:${value}`;
    for (const [part, symbols] of dayParts) {
      out[`${weekday}${part}`] = `weekday:${value} ${symbols}`;
      out[`${weekday} ${part}`] = `weekday:${value} ${symbols}`;
      out[`${weekday}${part}s`] = `every weekday:${value} ${symbols}`;
    }
  }
  // Clock words with a spelled count: "zehn vor acht", "fünf vor halb acht" (7:25), "zehn nach halb acht" (7:40).
  for (let minutes = 1; minutes <= 29; minutes += 1) {
    const word = minutes === 1 ? 'eine' : numberWord(minutes);
    out[`${word} vor`] = `num:${minutes} to`;
    out[`${word} minuten vor`] = `num:${minutes} unit:minute to`;
    if (minutes < 15) {
      out[`${word} vor halb`] = `num:${30 + minutes} unit:minute to`;
      out[`${word} nach halb`] = `num:${30 - minutes} unit:minute to`;
    }
  }
  // "viertel acht" is 7:15 (south and east).
  const hours = ['eins', 'zwei', 'drei', 'vier', 'fünf', 'sechs', 'sieben', 'acht', 'neun', 'zehn', 'elf', 'zwölf'];
  hours.forEach((word, index) => {
    const hour = index + 1;
    const before = hour === 1 ? 12 : hour - 1;
    out[`viertel ${word}`] = `num:${before} and quarter`;
    out[`viertel ${hour}`] = `num:${before} and quarter`;
    if (hour === 1) out['viertel ein'] = `num:${before} and quarter`;
  });
  // "übernächste Woche": two weeks on ("übernächsten Freitag" is the plain after-next).
  for (const ending of endings) {
    out[`übernächst${ending}`] = 'after-next';
    for (const [unit, symbol] of [['woche', 'week'], ['wochenende', 'weekend'], ['monat', 'month'], ['monats', 'month'], ['jahr', 'year'], ['jahres', 'year']] as const) {
      out[`übernächst${ending} ${unit}`] = `next after-next unit:${symbol}`;
    }
    out[`nächst${ending}`] = 'next';
    out[`folgend${ending}`] = 'next';
    out[`kommend${ending}`] = 'this';
    // "kommende Woche" is next week ("kommenden Freitag" is this coming one; "kommendes Wochenende" the coming weekend).
    for (const [unit, symbol] of [['woche', 'week'], ['monat', 'month'], ['monats', 'month'], ['jahr', 'year'], ['jahres', 'year']] as const) {
      out[`kommend${ending} ${unit}`] = `next unit:${symbol}`;
    }
    out[`letzt${ending}`] = 'last';
    out[`vergangen${ending}`] = 'last';
    out[`vorig${ending}`] = 'last';
    out[`dies${ending}`] = 'this';
  }
  // "heute in einer Woche", "Montag in zwei Wochen", "morgen in acht Tagen": counted from that day.
  const later: Array<[string, string]> = [
    ['in einer woche', 'num:1 unit:week'], ['in 1 woche', 'num:1 unit:week'], ['in acht tagen', 'num:1 unit:week'], ['in 8 tagen', 'num:1 unit:week'],
    ['in zwei wochen', 'num:2 unit:week'], ['in 2 wochen', 'num:2 unit:week'], ['in vierzehn tagen', 'num:2 unit:week'], ['in 14 tagen', 'num:2 unit:week'],
    ['in drei wochen', 'num:3 unit:week'], ['in 3 wochen', 'num:3 unit:week'],
  ];
  const from: Array<[string, string]> = [['morgen', 'rel:1'], ['übermorgen', 'rel:2'], ...weekdays.map(([word, value]): [string, string] => [word, `weekday:${value}`])];
  for (const [words, amount] of later) {
    out[`heute ${words}`] = `in ${amount}`;
    for (const [day, symbol] of from) out[`${day} ${words}`] = `${amount} after ${symbol}`;
  }
  // "eine halbe Stunde", "in einer Viertelstunde", "in 'ner dreiviertel Stunde".
  for (const article of ['', 'ein ', 'eine ', 'einer ', 'einen ', 'einem ', 'ner ', 'nem ']) {
    for (const [words, symbols] of [
      ['halbe stunde', 'half unit:hour'], ['halben stunde', 'half unit:hour'], ['viertelstunde', 'quarter unit:hour'], ['viertel stunde', 'quarter unit:hour'],
      ['dreiviertelstunde', 'three-quarters unit:hour'], ['dreiviertel stunde', 'three-quarters unit:hour'], ['halbe minute', 'half unit:minute'], ['halben minute', 'half unit:minute'],
      ['halbes jahr', 'half unit:year'], ['halben jahr', 'half unit:year'], ['halbe woche', 'half unit:week'],
    ] as const) {
      out[`${article}${words}`] = symbols;
    }
  }
  return out;
}

const phrases: Record<string, string> = {
  // Days relative to today.
  heute: 'rel:0', heut: 'rel:0', morgen: 'rel:1', gestern: 'rel:-1', übermorgen: 'rel:2', vorgestern: 'rel:-2', überübermorgen: 'rel:3', vorvorgestern: 'rel:-3',
  'am nächsten tag': 'rel:1', 'am folgenden tag': 'rel:1', 'am tag danach': 'rel:1', 'tag danach': 'rel:1',
  'heute morgen': 'rel:0 part:morning', 'heute früh': 'rel:0 part:morning', 'diesen morgen': 'rel:0 part:morning', 'heute vormittag': 'rel:0 part:morning',
  'heute mittag': 'rel:0 clock:720', 'diesen mittag': 'rel:0 clock:720', 'diesen nachmittag': 'rel:0 part:afternoon', 'diesen abend': 'rel:0 part:evening', 'diese nacht': 'rel:0 part:night',
  'morgen morgen': 'rel:1 part:morning', 'morgen früh': 'rel:1 part:morning', 'gestern morgen': 'rel:-1 part:morning', 'gestern früh': 'rel:-1 part:morning',
  'übermorgen morgen': 'rel:2 part:morning', 'vorgestern morgen': 'rel:-2 part:morning', 'am nächsten morgen': 'rel:1 part:morning', 'nächsten morgen': 'rel:1 part:morning',
  'am nächsten abend': 'rel:1 part:evening',
  jetzt: 'now', 'genau jetzt': 'now', 'gerade eben': 'now', 'gerade jetzt': 'now', sofort: 'now', 'ab sofort': 'now', umgehend: 'now', momentan: 'now', aktuell: 'now', 'im moment': 'now',
  'so früh wie möglich': 'now', 'so bald wie möglich': 'now', 'sobald wie möglich': 'now', 'so schnell wie möglich': 'now', 'baldmöglichst': 'now', 'schnellstmöglich': 'now',
  'möglichst bald': 'now', 'schnellstens': 'now', 'zum frühestmöglichen zeitpunkt': 'now', asap: 'now',
  // Weekdays (the names and "montags" come from generated()).
  mo: 'weekday:1', 'mo.': 'weekday:1', di: 'weekday:2', 'di.': 'weekday:2', mi: 'weekday:3', 'mi.': 'weekday:3', do: 'weekday:4', 'do.': 'weekday:4',
  fr: 'weekday:5', 'fr.': 'weekday:5', sa: 'weekday:6', 'sa.': 'weekday:6', 'so.': 'weekday:7', 'so,': 'weekday:7',
  // Months.
  januar: 'month:1', jänner: 'month:1', jan: 'month:1', jän: 'month:1', februar: 'month:2', feber: 'month:2', feb: 'month:2', febr: 'month:2',
  märz: 'month:3', mär: 'month:3', mrz: 'month:3', april: 'month:4', apr: 'month:4', mai: 'month:5', juni: 'month:6', jun: 'month:6', juno: 'month:6',
  juli: 'month:7', jul: 'month:7', julei: 'month:7', august: 'month:8', aug: 'month:8', september: 'month:9', sep: 'month:9', sept: 'month:9',
  oktober: 'month:10', okt: 'month:10', november: 'month:11', nov: 'month:11', dezember: 'month:12', dez: 'month:12',
  // Units.
  sekunde: 'unit:second', sekunden: 'unit:second', sek: 'unit:second', minute: 'unit:minute', minuten: 'unit:minute', min: 'unit:minute', mins: 'unit:minute',
  stunde: 'unit:hour', stunden: 'unit:hour', std: 'unit:hour', stdn: 'unit:hour', tag: 'unit:day', tage: 'unit:day', tagen: 'unit:day', tages: 'unit:day', tg: 'unit:day',
  woche: 'unit:week', wochen: 'unit:week', monat: 'unit:month', monate: 'unit:month', monaten: 'unit:month', monats: 'unit:month',
  jahr: 'unit:year', jahre: 'unit:year', jahren: 'unit:year', jahres: 'unit:year', wochenende: 'unit:weekend', wochenenden: 'unit:weekend',
  // "heute in acht Tagen", "in acht Tagen": a week; "vierzehn Tage" is two weeks, as counted.
  'acht tagen': 'num:1 unit:week', 'acht tage': 'num:1 unit:week',
  // Parts of the day.
  morgens: 'part:morning', früh: 'part:morning', frühmorgens: 'part:morning', 'früh morgens': 'part:morning', 'in der früh': 'part:morning', 'am morgen': 'part:morning',
  'am frühen morgen': 'part:morning', vormittag: 'part:morning', vormittags: 'part:morning', 'am vormittag': 'part:morning', 'am späten vormittag': 'part:morning',
  mittag: 'clock:720', 'am mittag': 'clock:720', 'zu mittag': 'clock:720', mittags: 'part:midday', mittagszeit: 'clock:720', 'zur mittagszeit': 'clock:720', 'um die mittagszeit': 'clock:720',
  nachmittag: 'part:afternoon', nachmittags: 'part:afternoon', 'am nachmittag': 'part:afternoon', 'am frühen nachmittag': 'part:afternoon', 'am späten nachmittag': 'part:afternoon',
  abend: 'part:evening', abends: 'part:evening', 'am abend': 'part:evening', 'am frühen abend': 'part:evening', 'am späten abend': 'part:evening', spätabends: 'part:evening',
  spätabend: 'part:evening', 'spät abends': 'part:evening', nacht: 'part:night', nachts: 'part:night', 'spät in der nacht': 'part:night', 'heute nacht': 'rel:0 part:night',
  mitternacht: 'clock:0', mitternachts: 'clock:0', 'um mitternacht': 'clock:0',
  // Clock words.
  uhr: 'oclock', punkt: 'at', genau: 'filler', pünktlich: 'filler',
  halb: 'half-before', halbe: 'half', halben: 'half', einhalb: 'and half', 'ein halb': 'and half', anderthalb: 'num:1 and half', eineinhalb: 'num:1 and half',
  viertel: 'quarter', dreiviertel: 'three-quarters', 'drei viertel': 'three-quarters',
  'viertel nach': 'quarter after', 'viertel vor': 'quarter to', 'viertel über': 'quarter after', 'minuten vor': 'unit:minute to', 'min vor': 'unit:minute to',
  nach: 'after', vor: 'ago',
  'tag vor': 'unit:day before', 'tage vor': 'unit:day before', 'wochen vor': 'unit:week before', 'woche vor': 'unit:week before',
  'monat vor': 'unit:month before', 'monate vor': 'unit:month before', 'jahr vor': 'unit:year before', 'jahre vor': 'unit:year before',
  'nach dem nächsten': 'after-next', 'nach der nächsten': 'after-next', 'nach nächster': 'after-next', 'nach nächstem': 'after-next',
  // Time zones after a time: "16 Uhr MEZ", "9 Uhr deutscher Zeit".
  mez: 'tz:60', mesz: 'tz:120', 'deutscher zeit': 'tz:Europe/Berlin', 'deutsche zeit': 'tz:Europe/Berlin', 'nach deutscher zeit': 'tz:Europe/Berlin',
  'wiener zeit': 'tz:Europe/Vienna', 'österreichischer zeit': 'tz:Europe/Vienna', 'schweizer zeit': 'tz:Europe/Zurich', 'londoner zeit': 'tz:Europe/London',
  'new yorker zeit': 'tz:America/New_York', 'ostküstenzeit': 'tz:America/New_York',
  // Durations.
  in: 'in', innerhalb: 'within', 'innerhalb von': 'within', binnen: 'within', später: 'from-now', 'von jetzt an': 'from-now', 'ab jetzt': 'from-now', 'von heute an': 'from-now',
  'ab heute': 'from-now',
  // Words between the parts.
  // "am" is "an dem": "am 15.2.", "am 3.", "am Freitag".
  am: 'the', an: 'on', den: 'the', der: 'the', zum: 'the', um: 'at', gegen: 'at', 'so um': 'at', 'so gegen': 'at', 'um ca': 'at', 'um circa': 'at', 'so ca': 'filler', 'so circa': 'filler',
  'so etwa': 'filler', 'so ungefähr': 'filler', ca: 'filler', circa: 'filler', zirka: 'filler', etwa: 'filler', 'in etwa': 'filler', ungefähr: 'filler', rund: 'filler',
  für: 'filler', 'im laufe': 'filler', 'im laufe des': 'filler', 'im laufe der': 'filler',
  die: 'the', das: 'the', dem: 'the', des: 'of', zur: 'the', im: 'in', 'im jahr': 'of', 'im jahre': 'of', 'des jahres': 'of',
  vom: 'from', von: 'from', ab: 'from', bis: 'until', 'bis zum': 'until', 'bis zur': 'until', 'bis ende': 'by end', zwischen: 'between', und: 'and', '&': 'and',
  spätestens: 'by', 'bis spätestens': 'by', allerspätestens: 'by', 'spätestens bis': 'by', 'spätestens am': 'by', 'spätestens um': 'by at',
  anfang: 'start', beginn: 'start', 'zu beginn': 'start', 'am anfang': 'start', ende: 'end', 'am ende': 'end', 'gegen ende': 'end', mitte: 'mid',
  'rest des': 'rest', 'rest der': 'rest', 'den rest des': 'rest', 'den rest der': 'rest',
  monatsende: 'end unit:month', monatsanfang: 'start unit:month', monatsbeginn: 'start unit:month', monatsmitte: 'mid unit:month',
  jahresende: 'end unit:year', jahresanfang: 'start unit:year', jahresbeginn: 'start unit:year', jahresmitte: 'mid unit:year',
  wochenanfang: 'start unit:week', wochenbeginn: 'start unit:week', wochenmitte: 'mid unit:week',
  tagesende: 'eod', 'ende des tages': 'eod', 'bis ende des tages': 'eod', 'heute bis ende des tages': 'eod', 'ende heute': 'eod',
  jeden: 'every', jede: 'every', jeder: 'every', jedes: 'every', alle: 'every', täglich: 'every', wöchentlich: 'every', monatlich: 'every', jährlich: 'every',
  'jeden tag': 'every', 'jede woche': 'every',
  // Ordinal suffixes after digits: "15ten", "1ste", "3te".
  te: 'ord-suffix', ten: 'ord-suffix', ter: 'ord-suffix', tes: 'ord-suffix', tem: 'ord-suffix', ste: 'ord-suffix', sten: 'ord-suffix', ster: 'ord-suffix',
  // Holidays: names only; the dates come from date-holidays (src/time/holidays.ts).
  weihnachten: 'holiday:christmas', weihnacht: 'holiday:christmas', weihnachtstag: 'holiday:christmas', 'erster weihnachtstag': 'holiday:christmas',
  'ersten weihnachtstag': 'holiday:christmas', 'erster weihnachtsfeiertag': 'holiday:christmas', 'ersten weihnachtsfeiertag': 'holiday:christmas',
  weihnachtsfeiertag: 'holiday:christmas', christtag: 'holiday:christmas', 'zweiter weihnachtstag': 'holiday:boxing-day', 'zweiten weihnachtstag': 'holiday:boxing-day',
  'zweiter weihnachtsfeiertag': 'holiday:boxing-day', 'zweiten weihnachtsfeiertag': 'holiday:boxing-day', stephanstag: 'holiday:boxing-day', stefanitag: 'holiday:boxing-day',
  heiligabend: 'eve holiday:christmas', 'heiliger abend': 'eve holiday:christmas', 'heiligen abend': 'eve holiday:christmas', weihnachtsabend: 'eve holiday:christmas',
  'heilig abend': 'eve holiday:christmas', neujahr: 'holiday:new-year', neujahrstag: 'holiday:new-year', silvester: 'eve holiday:new-year', silvesterabend: 'eve holiday:new-year',
  ostern: 'holiday:easter', ostersonntag: 'holiday:easter', osterfest: 'holiday:easter', ostermontag: 'holiday:easter-monday', karfreitag: 'holiday:good-friday',
  'orthodoxe ostern': 'holiday:orthodox-easter', 'orthodoxes ostern': 'holiday:orthodox-easter', 'orthodoxes osterfest': 'holiday:orthodox-easter', 'orthodoxer ostersonntag': 'holiday:orthodox-easter',
  'orthodoxe weihnachten': 'holiday:orthodox-christmas', 'orthodoxes weihnachten': 'holiday:orthodox-christmas', 'orthodoxes weihnachtsfest': 'holiday:orthodox-christmas',
  allerheiligen: 'holiday:all-saints', valentinstag: 'holiday:valentines-day', 'valentins tag': 'holiday:valentines-day', halloween: 'holiday:halloween',
  muttertag: 'holiday:mothers-day', 'tag der arbeit': 'holiday:workers-day', maifeiertag: 'holiday:workers-day', 'erster mai': 'holiday:workers-day', 'ersten mai': 'holiday:workers-day',
  'tag der erde': 'holiday:earth-day', 'sankt patrick': 'holiday:st-patricks-day', 'st. patrick': 'holiday:st-patricks-day', patrickstag: 'holiday:st-patricks-day',
  'rosch ha-schana': 'holiday:rosh-hashanah', 'rosch haschana': 'holiday:rosh-hashanah', 'rosch ha schana': 'holiday:rosh-hashanah', 'rosch ha-schanah': 'holiday:rosh-hashanah',
  'rosch haschanah': 'holiday:rosh-hashanah', 'jüdisches neujahr': 'holiday:rosh-hashanah', 'jom kippur': 'holiday:yom-kippur', 'jom kipur': 'holiday:yom-kippur', versöhnungstag: 'holiday:yom-kippur',
  chanukka: 'holiday:hanukkah', chanukkah: 'holiday:hanukkah', chanukah: 'holiday:hanukkah', pessach: 'holiday:passover', passah: 'holiday:passover', passa: 'holiday:passover',
  laubhüttenfest: 'holiday:sukkot', sukkot: 'holiday:sukkot', schawuot: 'holiday:shavuot', wochenfest: 'holiday:shavuot', purim: 'holiday:purim',
  'simchat tora': 'holiday:simchat-torah', 'simchat torah': 'holiday:simchat-torah', 'tu bischevat': 'holiday:tu-bishvat', 'tu bischwat': 'holiday:tu-bishvat',
  'tischa beaw': 'holiday:tisha-bav', 'lag baomer': 'holiday:lag-baomer', 'jom haschoa': 'holiday:yom-hashoah', 'jom hashoah': 'holiday:yom-hashoah',
  'jom haatzmaut': 'holiday:yom-haatzmaut', 'jom hazikaron': 'holiday:yom-hazikaron',
  ramadan: 'holiday:ramadan', zuckerfest: 'holiday:eid-al-fitr', 'fest des fastenbrechens': 'holiday:eid-al-fitr', opferfest: 'holiday:eid-al-adha',
  'islamisches neujahr': 'holiday:islamic-new-year', 'islamisches neujahrsfest': 'holiday:islamic-new-year', 'maulid an-nabi': 'holiday:mawlid', mawlid: 'holiday:mawlid',
};

/** "nächste" → also "naechste", "frueh", "uebermorgen", "maerz": how German is typed without umlauts. */
function withTransliterations(table: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { ...table };
  for (const [phrase, symbols] of Object.entries(table)) {
    if (!/[äöü]/.test(phrase)) continue;
    const typed = phrase.replace(/ä/g, 'ae').replace(/ö/g, 'oe').replace(/ü/g, 'ue');
    if (!(typed in out)) out[typed] = symbols;
  }
  return out;
}

/** German words for time. */
export const german: LexiconSource = {
  language: 'de',
  phrases: withTransliterations({ ...generated(), ...phrases }),
};
