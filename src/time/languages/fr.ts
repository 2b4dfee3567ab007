import type { LexiconSource } from '../lexicon.js';

/*
 * French. Accents need not be written twice: phrases are folded when compiled, so "après"
 * also reads "apres". An apostrophe between letters is dropped ("aujourd'hui" = "aujourdhui",
 * "d'octobre" = "doctobre"), so elided forms are listed as the words they become.
 *
 * Words that mean two things are listed as the longer phrases that decide them:
 * - "sept" is seven ("sept heures"); "le 15 sept", "mardi 15 sept", "mi-sept" are September.
 * - "heure(s)" is the hour mark: "à 3 heures" is a time, "dans 3 heures" an amount.
 * - "huit jours" and "quinze jours" are a week and two weeks, as French counts them.
 * - "la veille" alone (the day before what?) and "l'Aïd" (which one?) are left out.
 */

const unitWords = ['', 'un', 'deux', 'trois', 'quatre', 'cinq', 'six', 'sept', 'huit', 'neuf'];
const tens: Array<[string, number]> = [['vingt', 20], ['trente', 30], ['quarante', 40], ['cinquante', 50]];

/** Number words the lexicon cannot join by itself: "dix-sept", "vingt-et-un". */
function numberWords(out: Record<string, string>): void {
  const simple: Array<[string, number]> = [
    ['zero', 0], ['zéro', 0], ['un', 1], ['une', 1], ['deux', 2], ['trois', 3], ['quatre', 4], ['cinq', 5], ['six', 6], ['sept', 7], ['huit', 8],
    ['neuf', 9], ['dix', 10], ['onze', 11], ['douze', 12], ['treize', 13], ['quatorze', 14], ['quinze', 15], ['seize', 16], ['soixante', 60],
    ...tens,
  ];
  for (const [word, value] of simple) out[word] = `num:${value}`;
  for (const [unit, value] of [['sept', 17], ['huit', 18], ['neuf', 19]] as const) {
    out[`dix-${unit}`] = `num:${value}`;
    out[`dix ${unit}`] = `num:${value}`;
    out[`dix${unit}`] = `num:${value}`;
  }
  for (const [ten, value] of tens) {
    out[`${ten}-et-un`] = `num:${value + 1}`;
    out[`${ten}-et-une`] = `num:${value + 1}`;
    out[`${ten}et-un`] = `num:${value + 1}`;
  }
}

/** The spelling of 1–59 used to build other phrases ("vingt-cinq"). */
function spelled(value: number): string {
  const teens = ['dix', 'onze', 'douze', 'treize', 'quatorze', 'quinze', 'seize', 'dix-sept', 'dix-huit', 'dix-neuf'];
  if (value < 10) return unitWords[value] ?? '';
  if (value < 20) return teens[value - 10] ?? '';
  const ten = tens.find(([, tenValue]) => tenValue === value - (value % 10));
  if (!ten) return '';
  if (value % 10 === 0) return ten[0];
  if (value % 10 === 1) return `${ten[0]} et un`;
  return `${ten[0]}-${unitWords[value % 10] ?? ''}`;
}

/** Ordinal words 2–31 ("deuxième", "vingt et unième", "trente-et-unième"), each spelled the ways people write it. */
function ordinalWords(out: Record<string, string>): void {
  const unitOrdinals = ['', 'unième', 'deuxième', 'troisième', 'quatrième', 'cinquième', 'sixième', 'septième', 'huitième', 'neuvième'];
  const teens = ['dixième', 'onzième', 'douzième', 'treizième', 'quatorzième', 'quinzième', 'seizième', 'dix-septième', 'dix-huitième', 'dix-neuvième'];
  const add = (word: string, value: number): void => {
    out[word] = `ord:${value}`;
    if (word.includes('-')) out[word.replace(/-/g, ' ')] = `ord:${value}`;
    // "deuxieme" is folded already; "deuxème" (no "i") is a common misspelling.
    if (word.endsWith('ième')) out[`${word.slice(0, -4)}ème`] = `ord:${value}`;
  };
  for (let value = 2; value <= 9; value += 1) add(unitOrdinals[value] ?? '', value);
  teens.forEach((word, index) => add(word, 10 + index));
  for (const [ten, value] of tens.slice(0, 2)) {
    add(`${ten.replace(/e$/, '')}ième`, value);
    add(`${ten} et unième`, value + 1);
    add(`${ten}-et-unième`, value + 1);
    for (let unit = 2; unit <= 9 && value + unit <= 31; unit += 1) add(`${ten}-${unitOrdinals[unit] ?? ''}`, value + unit);
  }
  out.second = 'ord:2';
  out.seconde = 'unit:second';
  out.secondes = 'unit:second';
}

const weekdays: Array<[string, number]> = [
  ['lundi', 1], ['mardi', 2], ['mercredi', 3], ['jeudi', 4], ['vendredi', 5], ['samedi', 6], ['dimanche', 7],
  ['lun', 1], ['mar', 2], ['mer', 3], ['jeu', 4], ['ven', 5], ['sam', 6], ['dim', 7],
];

function generated(): Record<string, string> {
  const out: Record<string, string> = {};
  numberWords(out);
  ordinalWords(out);
  for (const [weekday, value] of weekdays) {
    out[weekday] = `weekday:${value}`;
    if (weekday.length > 3) out[`${weekday}s`] = `every weekday:${value}`;
    else out[`${weekday}.`] = `weekday:${value}`;
  }
  // "sept" alone is seven; after a day of the month it is September: "le 15 sept", "mardi 15 sept", "le 1er sept".
  for (let day = 1; day <= 31; day += 1) {
    out[`le ${day} sept`] = `the ord:${day} month:9`;
    for (const [weekday, value] of weekdays) {
      out[`${weekday} ${day} sept`] = `weekday:${value} ord:${day} month:9`;
      if (weekday.length === 3) out[`${weekday}. ${day} sept`] = `weekday:${value} ord:${day} month:9`;
    }
  }
  out['le 1er sept'] = 'the ord:1 month:9';
  for (const [weekday, value] of weekdays) out[`${weekday} 1er sept`] = `weekday:${value} ord:1 month:9`;
  // "midi trente", "minuit cinq": minutes after noon or midnight.
  for (let minute = 1; minute <= 59; minute += 1) {
    const word = spelled(minute);
    for (const form of new Set([word, word.replace(/-/g, ' '), word.replace(/ et /g, '-et-')])) {
      out[`midi ${form}`] = `clock:${720 + minute}`;
      out[`minuit ${form}`] = `clock:${minute}`;
    }
  }
  // "fin d'après-midi", "en début de soirée", "milieu de matinée": parts of the day.
  const parts: Array<[string[], string, string]> = [
    [['de matinée', 'de la matinée', 'de matinee', 'du matin'], 'part:morning', 'clock:600'],
    [["d'après-midi", "de l'après-midi", "d'après midi", "de l'après midi", "d'aprem", "de l'aprem"], 'part:afternoon', 'clock:840'],
    [['de soirée', 'de la soirée', 'du soir'], 'part:evening', ''],
    [['de nuit', 'de la nuit'], 'part:night', ''],
  ];
  for (const [forms, part, middle] of parts) {
    for (const form of forms) {
      for (const edge of ['fin', 'début', 'la fin', 'le début']) out[`${edge} ${form}`] = part;
      if (middle) {
        out[`milieu ${form}`] = middle;
        out[`au milieu ${form}`] = middle;
        out[`le milieu ${form}`] = middle;
      }
    }
  }
  // "deux trois minutes", "dans trois quatre jours": two or three, not 2:03; read as a range so it is refused.
  for (let first = 1; first <= 8; first += 1) {
    const one = first === 1 ? 'un' : unitWords[first] ?? '';
    const two = unitWords[first + 1] ?? '';
    out[`${one} ${two}`] = `num:${first} until num:${first + 1}`;
    out[`${one}-${two}`] = `num:${first} until num:${first + 1}`;
    out[`${one} ou ${two}`] = `num:${first} until num:${first + 1}`;
  }
  // "d'ici vendredi", "d'ici demain" (by then); "d'ici 2 heures" is "in".
  for (const [weekday, value] of weekdays) out[`d'ici ${weekday}`] = `by weekday:${value}`;
  return out;
}

const phrases: Record<string, string> = {
  // Days relative to today.
  "aujourd'hui": 'rel:0', "aujourd hui": 'rel:0', aujourdui: 'rel:0', auj: 'rel:0', ajd: 'rel:0', aujd: 'rel:0', 'ce jour': 'rel:0', "ce jour-ci": 'rel:0',
  "aujourd'hui même": 'rel:0', 'dans la journée': 'rel:0', 'en semaine': 'every',
  demain: 'rel:1', dem: 'rel:1', dem1: 'rel:1', dmain: 'rel:1', hier: 'rel:-1',
  'après-demain': 'rel:2', 'après demain': 'rel:2', 'apres-demain': 'rel:2', apresdemain: 'rel:2', 'avant-hier': 'rel:-2', 'avant hier': 'rel:-2', avanthier: 'rel:-2',
  'après-après-demain': 'rel:3', 'après après-demain': 'rel:3',
  lendemain: 'rel:1', 'le lendemain': 'rel:1', surlendemain: 'rel:2', 'le surlendemain': 'rel:2', 'le jour suivant': 'rel:1', 'jour suivant': 'rel:1',
  "le jour d'après": 'rel:1', 'le lendemain du': 'num:1 unit:day after', 'le lendemain de': 'num:1 unit:day after', 'lendemain du': 'num:1 unit:day after',
  'lendemain de': 'num:1 unit:day after', 'le surlendemain du': 'num:2 unit:day after', 'la veille du': 'num:1 unit:day before', 'la veille de': 'num:1 unit:day before',
  'veille du': 'num:1 unit:day before', 'veille de': 'num:1 unit:day before', "la veille d'": 'num:1 unit:day before', 'le jour précédent': 'rel:-1', "le jour d'avant": 'rel:-1',
  'ce matin': 'rel:0 part:morning', 'cette matinée': 'rel:0 part:morning', 'ce midi': 'rel:0 clock:720', 'cet après-midi': 'rel:0 part:afternoon',
  'cet après midi': 'rel:0 part:afternoon', 'cet aprem': 'rel:0 part:afternoon', 'cet aprèm': 'rel:0 part:afternoon', 'cette après-midi': 'rel:0 part:afternoon',
  'cette après midi': 'rel:0 part:afternoon', 'ce soir': 'rel:0 part:evening', 'cette soirée': 'rel:0 part:evening', 'cette nuit': 'rel:0 part:night',
  'cette matin': 'rel:0 part:morning',
  maintenant: 'now', mtn: 'now', mnt: 'now', 'tt de suite': 'now', 'dès maintenant': 'now', 'tout de suite': 'now', 'de suite': 'now', immédiatement: 'now', 'sur-le-champ': 'now', 'en ce moment': 'now',
  actuellement: 'now', "à l'instant": 'now', "à l'instant même": 'now', 'dès que possible': 'now', 'dès que tu peux': 'now', 'le plus tôt possible': 'now',
  'le plus vite possible': 'now', 'au plus vite': 'now', 'au plus tôt': 'now', 'aussitôt que possible': 'now', dqp: 'now', asap: 'now', 'maintenant même': 'now',
  // Months ("sept" alone is seven: see generated()).
  janvier: 'month:1', janv: 'month:1', jan: 'month:1', février: 'month:2', fevrier: 'month:2', févr: 'month:2', fév: 'month:2', fev: 'month:2',
  mars: 'month:3', avril: 'month:4', avr: 'month:4', mai: 'month:5', juin: 'month:6', juillet: 'month:7', juil: 'month:7',
  août: 'month:8', aout: 'month:8', aoû: 'month:8', septembre: 'month:9', sep: 'month:9', 'mi-sept': 'mid month:9', 'mi sept': 'mid month:9', 'fin sept': 'end month:9',
  'début sept': 'start month:9', 'en sept': 'in month:9', octobre: 'month:10', oct: 'month:10', novembre: 'month:11', nov: 'month:11',
  décembre: 'month:12', dec: 'month:12', déc: 'month:12',
  "d'avril": 'of month:4', "d'août": 'of month:8', "d'aout": 'of month:8', "d'octobre": 'of month:10',
  // Units.
  sec: 'unit:second', minute: 'unit:minute', minutes: 'unit:minute', min: 'unit:minute', mins: 'unit:minute', mn: 'unit:minute',
  heure: 'h', heures: 'h', hr: 'h', hrs: 'h', "d'heure": 'h', "d'heures": 'h',
  jour: 'unit:day', jours: 'unit:day', j: 'unit:day', journée: 'unit:day', journées: 'unit:day',
  semaine: 'unit:week', semaines: 'unit:week', sem: 'unit:week', quinzaine: 'unit:fortnight', 'une quinzaine': 'unit:fortnight', 'quinzaine de jours': 'unit:fortnight',
  mois: 'unit:month', an: 'unit:year', ans: 'unit:year', année: 'unit:year', années: 'unit:year', "l'an": 'the unit:year', "l'année": 'the unit:year',
  'week-end': 'unit:weekend', 'week-ends': 'unit:weekend', weekend: 'unit:weekend', weekends: 'unit:weekend', 'week end': 'unit:weekend',
  'huit jours': 'num:1 unit:week', 'quinze jours': 'num:2 unit:week',
  'demi-heure': 'half unit:hour', 'demi heure': 'half unit:hour', 'une demi-heure': 'half unit:hour', 'une demi heure': 'half unit:hour',
  "quart d'heure": 'quarter unit:hour', "un quart d'heure": 'quarter unit:hour', "trois quarts d'heure": 'three-quarters unit:hour',
  'demi-journée': 'half unit:day', 'une demi-journée': 'half unit:day',
  // Parts of the day.
  matin: 'part:morning', matins: 'part:morning', tôt: 'part:morning', 'matin tôt': 'part:morning', 'tôt matin': 'part:morning', matinée: 'part:morning', 'du mat': 'part:morning', 'tôt le matin': 'part:morning', 'de bonne heure': 'part:morning',
  'au matin': 'part:morning', 'en matinée': 'part:morning',
  midi: 'clock:720', 'à midi': 'at clock:720', 'midi pile': 'clock:720', minuit: 'clock:0', 'à minuit': 'at clock:0', "l'heure du déjeuner": 'part:midday',
  "l'heure de déjeuner": 'part:midday', "à l'heure du déjeuner": 'part:midday', 'pause déjeuner': 'part:midday', 'à la pause déjeuner': 'part:midday',
  'après-midi': 'part:afternoon', 'après midi': 'part:afternoon', 'apres-midi': 'part:afternoon', "l'après-midi": 'part:afternoon', "l'après midi": 'part:afternoon',
  "d'après-midi": 'part:afternoon', "d'après midi": 'part:afternoon', aprem: 'part:afternoon', aprèm: 'part:afternoon', "l'aprem": 'part:afternoon', "l'aprèm": 'part:afternoon',
  "d'aprem": 'part:afternoon',
  soir: 'part:evening', soirs: 'part:evening', soirée: 'part:evening', 'au soir': 'part:evening', 'en soirée': 'part:evening', 'tard le soir': 'part:evening',
  nuit: 'part:night', 'tard dans la nuit': 'part:night', 'en pleine nuit': 'part:night',
  'milieu de journée': 'clock:720', 'milieu de la journée': 'clock:720', 'mi-journée': 'clock:720', 'mi journée': 'clock:720', 'milieu du jour': 'clock:720',
  'milieu de jour': 'clock:720', 'mi-matinée': 'clock:600', 'mi matinée': 'clock:600', 'milieu du matin': 'clock:600', 'mi-après-midi': 'clock:840',
  'en milieu de matinée': 'clock:600', "en milieu d'après-midi": 'clock:840', 'en milieu de journée': 'clock:720',
  // Clock words.
  quart: 'quarter', 'le quart': 'the quarter', quarts: 'quarter', 'trois quarts': 'three-quarters', 'trois quart': 'three-quarters', demi: 'half', demie: 'half',
  moins: 'to', pile: 'filler', précises: 'filler', précise: 'filler', pétantes: 'filler', tapantes: 'filler', tapant: 'filler', juste: 'filler',
  // Qualifiers.
  // The plurals ("les 3 prochains jours", "2 derniers mois") are left out: the count comes first, and "3 … mois" would read as the 3rd.
  prochain: 'next', prochaine: 'next', pro: 'next', proch: 'next', suivant: 'next', suivante: 'next', "d'après": 'next', 'qui suit': 'next', 'en huit': 'next', 'en 8': 'next', 'en quinze': 'after-next', 'en 15': 'after-next',
  'qui vient': 'this', 'à venir': 'this',
  dernier: 'last', dernière: 'last', passé: 'last', passée: 'last', précédent: 'last', précédente: 'last', "d'avant": 'last',
  // "cet" is "this" only before a vowel ("cet après-midi", listed); alone it is the zone: "16h CET".
  ce: 'this', cette: 'this', ces: 'this', ci: 'filler', cet: 'tz:60',
  // Time zones after a time: "16h heure de Paris", "10h HNE".
  'heure de paris': 'tz:Europe/Paris', "l'heure de paris": 'tz:Europe/Paris', 'heure française': 'tz:Europe/Paris', 'heure de france': 'tz:Europe/Paris',
  'heure de montréal': 'tz:America/Toronto', 'heure du québec': 'tz:America/Toronto', "heure de l'est": 'tz:America/Toronto', hne: 'tz:-300', hae: 'tz:-240',
  'heure de new york': 'tz:America/New_York', 'heure de londres': 'tz:Europe/London', 'heure suisse': 'tz:Europe/Zurich', 'heure de genève': 'tz:Europe/Zurich',
  'heure belge': 'tz:Europe/Brussels', 'heure de bruxelles': 'tz:Europe/Brussels',
  "aujourd'hui en huit": 'in num:1 unit:week', "d'aujourd'hui en huit": 'in num:1 unit:week', "aujourd'hui en quinze": 'in num:2 unit:week',
  'demain en huit': 'num:1 unit:week after rel:1', 'demain en quinze': 'num:2 unit:week after rel:1',
  'en huit jours': 'in num:1 unit:week', 'en quinze jours': 'in num:2 unit:week', 'en 8 jours': 'in num:8 unit:day', 'en 15 jours': 'in num:15 unit:day',
  // Durations.
  dans: 'in', ds: 'in', en: 'in', "d'ici": 'in', "d'ici demain": 'by rel:1', "d'ici ce soir": 'by rel:0 part:evening', "d'ici la fin": 'by end', "d'ici fin": 'by end', "d'ici le": 'by the',
  "d'ici à": 'by', sous: 'within', 'il y a': 'ago', 'il ya': 'ago', 'y a': 'ago', 'ya': 'ago', 'plus tard': 'from-now', 'à partir de maintenant': 'from-now',
  "à partir d'aujourd'hui": 'from-now', "à compter d'aujourd'hui": 'from-now',
  // Words between the parts.
  à: 'at', a: 'at', vers: 'at', 'vers les': 'at', 'aux alentours de': 'at', 'aux environs de': 'at', 'autour de': 'at', 'sur les coups de': 'at',
  environ: 'at', 'à peu près': 'at', 'peu près': 'at', approximativement: 'at', 'a.m.': 'ampm:am', 'a.m': 'ampm:am', plutôt: 'filler', pour: 'filler', 'aux alentours': 'filler',
  le: 'the', la: 'the', les: 'the', "l'": 'the', de: 'of', du: 'of', des: 'of', "d'": 'of', au: 'until', aux: 'at', et: 'and', entre: 'between',
  "jusqu'à": 'until', "jusqu'au": 'until', jusque: 'until', 'à partir de': 'from', 'à partir du': 'from', 'à compter de': 'from', 'à compter du': 'from',
  'au plus tard': 'by', avant: 'before', après: 'after', apres: 'after',
  fin: 'end', 'la fin': 'end', 'à la fin': 'end', 'en fin': 'end', début: 'start', debut: 'start', 'au début': 'start', 'en début': 'start', 'le début': 'start',
  mi: 'mid', milieu: 'mid', 'au milieu': 'mid', 'en milieu': 'mid', 'le milieu': 'mid', reste: 'rest', 'le reste': 'rest',
  'fin de mois': 'end of unit:month', "fin d'année": 'end of unit:year', 'fin de semaine': 'end of unit:week',
  'tous les': 'every', 'toutes les': 'every', chaque: 'every', quotidien: 'every', quotidiennement: 'every', hebdomadaire: 'every', mensuel: 'every', annuel: 'every',
  'tous les jours': 'every', 'chaque jour': 'every',
  // Ordinals ("premier"; "deuxième" … from ordinalWords) and the suffixes after digits ("1er", "2e", "3ème").
  premier: 'ord:1', première: 'ord:1', premiere: 'ord:1',
  er: 'ord-suffix', re: 'ord-suffix', ère: 'ord-suffix', ers: 'ord-suffix', e: 'ord-suffix', è: 'ord-suffix', ème: 'ord-suffix', eme: 'ord-suffix', ieme: 'ord-suffix',
  em: 'ord-suffix', nd: 'ord-suffix', nde: 'ord-suffix',
  // Holidays: names only; the dates come from date-holidays (src/time/holidays.ts).
  noël: 'holiday:christmas', noel: 'holiday:christmas', 'jour de noël': 'holiday:christmas', 'le jour de noël': 'holiday:christmas',
  'soir de noël': 'eve holiday:christmas part:evening', 'le soir de noël': 'eve holiday:christmas part:evening', 'nuit de noël': 'eve holiday:christmas part:night',
  'la nuit de noël': 'eve holiday:christmas part:night', 'veille de noël': 'eve holiday:christmas', 'réveillon de noël': 'eve holiday:christmas', 'le réveillon de noël': 'eve holiday:christmas',
  'nouvel an': 'holiday:new-year', 'le nouvel an': 'holiday:new-year', "jour de l'an": 'holiday:new-year', "le jour de l'an": 'holiday:new-year',
  "premier de l'an": 'holiday:new-year', 'saint-sylvestre': 'eve holiday:new-year', 'saint sylvestre': 'eve holiday:new-year', 'st sylvestre': 'eve holiday:new-year',
  'réveillon du nouvel an': 'eve holiday:new-year', 'réveillon de nouvel an': 'eve holiday:new-year', 'réveillon du jour de l’an': 'eve holiday:new-year',
  'veille du nouvel an': 'eve holiday:new-year', 'veille de nouvel an': 'eve holiday:new-year',
  pâques: 'holiday:easter', paques: 'holiday:easter', 'dimanche de pâques': 'holiday:easter', 'lundi de pâques': 'holiday:easter-monday', 'vendredi saint': 'holiday:good-friday',
  'pâques orthodoxe': 'holiday:orthodox-easter', 'noël orthodoxe': 'holiday:orthodox-christmas',
  toussaint: 'holiday:all-saints', 'la toussaint': 'holiday:all-saints', 'jour de la toussaint': 'holiday:all-saints', 'le jour de la toussaint': 'holiday:all-saints',
  'la journée de la toussaint': 'holiday:all-saints', 'saint-valentin': 'holiday:valentines-day', 'saint valentin': 'holiday:valentines-day', 'st valentin': 'holiday:valentines-day',
  'st-valentin': 'holiday:valentines-day', halloween: 'holiday:halloween', 'fête du travail': 'holiday:workers-day', 'fête du muguet': 'holiday:workers-day',
  'fête des travailleurs': 'holiday:workers-day', 'fête des mères': 'holiday:mothers-day', 'fête des meres': 'holiday:mothers-day', 'fête des pères': 'holiday:fathers-day',
  'saint-patrick': 'holiday:st-patricks-day', 'saint patrick': 'holiday:st-patricks-day', 'st patrick': 'holiday:st-patricks-day', 'jour de la terre': 'holiday:earth-day',
  'action de grâce': 'holiday:thanksgiving', 'action de grâces': 'holiday:thanksgiving', "l'action de grâce": 'holiday:thanksgiving', "l'action de grâces": 'holiday:thanksgiving',
  "jour de l'action de grâce": 'holiday:thanksgiving', "jour de l'action de grâces": 'holiday:thanksgiving', 'jour de thanksgiving': 'holiday:thanksgiving',
  'jour de thanks giving': 'holiday:thanksgiving', 'thanks giving': 'holiday:thanksgiving',
  'roch hachana': 'holiday:rosh-hashanah', 'roch hachanah': 'holiday:rosh-hashanah', 'rosh hachana': 'holiday:rosh-hashanah', 'nouvel an juif': 'holiday:rosh-hashanah',
  'yom kippour': 'holiday:yom-kippur', kippour: 'holiday:yom-kippur', hanoucca: 'holiday:hanukkah', hanoukka: 'holiday:hanukkah', hanouka: 'holiday:hanukkah',
  hanoukkah: 'holiday:hanukkah', pessah: 'holiday:passover', "pessa'h": 'holiday:passover', 'pâque juive': 'holiday:passover', souccot: 'holiday:sukkot',
  soukkot: 'holiday:sukkot', 'fête des cabanes': 'holiday:sukkot', chavouot: 'holiday:shavuot', pourim: 'holiday:purim', 'simhat torah': 'holiday:simchat-torah',
  'tou bichvat': 'holiday:tu-bishvat', 'tisha beav': 'holiday:tisha-bav', 'lag baomer': 'holiday:lag-baomer',
  ramadan: 'holiday:ramadan', ramadhan: 'holiday:ramadan', 'aïd el-fitr': 'holiday:eid-al-fitr', 'aïd el fitr': 'holiday:eid-al-fitr', 'aïd al-fitr': 'holiday:eid-al-fitr',
  'aïd al fitr': 'holiday:eid-al-fitr', 'aïd el-séghir': 'holiday:eid-al-fitr', 'aïd es-seghir': 'holiday:eid-al-fitr', 'aïd el-kébir': 'holiday:eid-al-adha',
  'aïd el kébir': 'holiday:eid-al-adha', 'aïd el-kebir': 'holiday:eid-al-adha', 'aïd al-adha': 'holiday:eid-al-adha', 'aïd al adha': 'holiday:eid-al-adha',
  'aïd el-adha': 'holiday:eid-al-adha', 'aïd el adha': 'holiday:eid-al-adha', tabaski: 'holiday:eid-al-adha', 'fête du mouton': 'holiday:eid-al-adha',
  'nouvel an musulman': 'holiday:islamic-new-year', 'nouvel an islamique': 'holiday:islamic-new-year', 'nouvel an hégirien': 'holiday:islamic-new-year',
  mawlid: 'holiday:mawlid', mouloud: 'holiday:mawlid',
};

/** French words for time. */
export const french: LexiconSource = {
  language: 'fr',
  phrases: { ...generated(), ...phrases },
};
