import type { LexiconSource } from '../lexicon.js';

/*
 * Russian declines its words for time, so each one is listed in the cases people write:
 * "пятница" (nominative), "в пятницу" (accusative), "к пятнице" (dative), "до пятницы"
 * (genitive); "3 октября", "в октябре"; "пять", "пяти", "пятью". Letters are folded before
 * matching (ё = е, й = и), so the keys are written as Russian is.
 */

const phrases: Record<string, string> = {};

function add(spec: string, ...keys: string[]): void {
  for (const key of keys) phrases[key] = spec;
}

// Cardinal numbers in the cases they take after prepositions: "через пять минут", "около
// пяти", "к пяти", "с пятью", "без пяти".
const cardinals: Array<[number, string[]]> = [
  [0, ['ноль', 'нуль', 'ноля', 'нуля']],
  [1, ['один', 'одна', 'одно', 'одного', 'одной', 'одному', 'одну', 'одним', 'одном']],
  [2, ['два', 'две', 'двух', 'двум', 'двумя']],
  [3, ['три', 'трех', 'трем', 'тремя']],
  [4, ['четыре', 'четырех', 'четырем', 'четырьмя']],
  [5, ['пять', 'пяти', 'пятью']],
  [6, ['шесть', 'шести', 'шестью']],
  [7, ['семь', 'семи']],
  [8, ['восемь', 'восьми', 'восемью']],
  [9, ['девять', 'девяти', 'девятью']],
  [10, ['десять', 'десяти', 'десятью']],
  [11, ['одиннадцать', 'одиннадцати']],
  [12, ['двенадцать', 'двенадцати']],
  [13, ['тринадцать', 'тринадцати']],
  [14, ['четырнадцать', 'четырнадцати']],
  [15, ['пятнадцать', 'пятнадцати']],
  [16, ['шестнадцать', 'шестнадцати']],
  [17, ['семнадцать', 'семнадцати']],
  [18, ['восемнадцать', 'восемнадцати']],
  [19, ['девятнадцать', 'девятнадцати']],
  [20, ['двадцать', 'двадцати']],
  [30, ['тридцать', 'тридцати']],
  [40, ['сорок', 'сорока']],
  [50, ['пятьдесят', 'пятидесяти']],
  [60, ['шестьдесят', 'шестидесяти']],
];
for (const [value, words] of cardinals) add(`num:${value}`, ...words);
add('num:1.5', 'полтора', 'полторы', 'полутора');
// Collective numerals: "двое суток", "трое суток".
add('num:2', 'двое'); add('num:3', 'трое'); add('num:4', 'четверо'); add('num:5', 'пятеро'); add('num:6', 'шестеро'); add('num:7', 'семеро');
add('num:2', 'пара', 'пару', 'пары', 'парочку');

/** Nominative and genitive of each cardinal: "двадцать пять" / "двадцати пяти" (a compound keeps one case). */
const genitives: Record<number, string[]> = {
  1: ['одной', 'одного'], 2: ['двух'], 3: ['трех'], 4: ['четырех'], 5: ['пяти'], 6: ['шести'], 7: ['семи'], 8: ['восьми'], 9: ['девяти'],
  10: ['десяти'], 11: ['одиннадцати'], 12: ['двенадцати'], 13: ['тринадцати'], 14: ['четырнадцати'], 15: ['пятнадцати'], 16: ['шестнадцати'],
  17: ['семнадцати'], 18: ['восемнадцати'], 19: ['девятнадцати'], 20: ['двадцати'], 30: ['тридцати'], 40: ['сорока'], 50: ['пятидесяти'],
};
const nominatives: Record<number, string[]> = { 1: ['один', 'одна', 'одну'], 2: ['два', 'две'] };
function numberWords(value: number, genitive: boolean): string[] {
  if (value <= 20 || value % 10 === 0) {
    if (genitive) return genitives[value] ?? [];
    return nominatives[value] ?? (cardinals.find(([number]) => number === value)?.[1].slice(0, 1) ?? []);
  }
  const tens = numberWords(value - (value % 10), genitive);
  const units = numberWords(value % 10, genitive);
  return tens.flatMap((ten) => units.map((unit) => `${ten} ${unit}`));
}

// Ordinals, for days of the month ("третье марта", "к третьему марта", "третьего числа").
const ordinalStems: Array<[number, string]> = [
  [1, 'перв'], [2, 'втор'], [4, 'четверт'], [5, 'пят'], [6, 'шест'], [7, 'седьм'], [8, 'восьм'], [9, 'девят'],
  [10, 'десят'], [11, 'одиннадцат'], [12, 'двенадцат'], [13, 'тринадцат'], [14, 'четырнадцат'], [15, 'пятнадцат'],
  [16, 'шестнадцат'], [17, 'семнадцат'], [18, 'восемнадцат'], [19, 'девятнадцат'], [20, 'двадцат'], [30, 'тридцат'],
];
const ordinalEndings = ['ый', 'ой', 'ое', 'ого', 'ому', 'ом', 'ая', 'ую', 'ые', 'ых'];
const ordinalForms = new Map<number, string[]>();
for (const [value, stem] of ordinalStems) ordinalForms.set(value, ordinalEndings.map((ending) => stem + ending));
ordinalForms.set(3, ['третий', 'третье', 'третьего', 'третьему', 'третьем', 'третья', 'третью', 'третьей', 'третьи']);
for (const [value, forms] of ordinalForms) add(`ord:${value}`, ...forms);
for (const [tens, word] of [[20, 'двадцать'], [30, 'тридцать']] as const) {
  for (let unit = 1; unit <= 9 && tens + unit <= 31; unit += 1) {
    add(`ord:${tens + unit}`, ...(ordinalForms.get(unit) ?? []).map((form) => `${word} ${form}`));
    add(`ord:${tens + unit}`, ...(ordinalForms.get(unit) ?? []).flatMap((form) => ['числа', 'число'].map((day) => `${word} ${form} ${day}`)));
  }
}
// "15-го", "1-е", "3-его", "2-ое", "3-й", "21-му": the ending written after a number.
const suffixes = ['е', 'го', 'ого', 'его', 'ое', 'ее', 'й', 'ий', 'ый', 'ой', 'я', 'ья', 'му', 'ому', 'ему', 'м', 'ом', 'ем'];
add('ord-suffix', ...suffixes);
// "15 числа", "15-го числа", "пятнадцатого числа": "числа" makes the number a day of the month.
const dayWords = ['числа', 'число', 'числу'];
add('ord-suffix', ...dayWords, ...suffixes.flatMap((suffix) => dayWords.map((day) => `${suffix} ${day}`)));
for (const [value, forms] of ordinalForms) add(`ord:${value}`, ...forms.flatMap((form) => dayWords.map((day) => `${form} ${day}`)));

// "полшестого", "половина шестого" (5:30), "четверть шестого" (5:15), "десять минут
// шестого" (5:10): minutes into the hour named by its ordinal, in the genitive.
const hourGenitives: Array<[number, string]> = [
  [1, 'первого'], [2, 'второго'], [3, 'третьего'], [4, 'четвертого'], [5, 'пятого'], [6, 'шестого'], [7, 'седьмого'],
  [8, 'восьмого'], [9, 'девятого'], [10, 'десятого'], [11, 'одиннадцатого'], [12, 'двенадцатого'],
];
for (const [hour, genitive] of hourGenitives) {
  const previous = hour === 1 ? 12 : hour - 1;
  add(`half past num:${previous}`, `половина ${genitive}`, `половины ${genitive}`, `половине ${genitive}`, `пол ${genitive}`, `пол-${genitive}`, `пол${genitive}`);
  add(`at half past num:${previous}`, `в половине ${genitive}`, `в пол ${genitive}`, `в пол${genitive}`, `в пол-${genitive}`);
  add(`quarter past num:${previous}`, `четверть ${genitive}`);
  add(`at quarter past num:${previous}`, `в четверть ${genitive}`);
  add(`unit:minute past num:${previous}`, `минут ${genitive}`, `минуты ${genitive}`, `минута ${genitive}`, `минуту ${genitive}`);
}
// "без четверти шесть" (5:45), "без пяти шесть", "без десяти минут восемь".
add('quarter to', 'без четверти', 'без четверти в');
for (let minutes = 1; minutes <= 30; minutes += 1) {
  for (const words of numberWords(minutes, true)) {
    add(`num:${minutes} to`, `без ${words}`);
    add(`num:${minutes} unit:minute to`, `без ${words} минут`, `без ${words} минуты`);
  }
}

// "в пять часов", "в три часа": an hour written in words with "часов". Written in digits
// ("в 5 часов") it is listed among the grammar's gaps: "часов" is also the unit ("через 5 часов").
for (let hour = 1; hour <= 24; hour += 1) {
  for (const words of numberWords(hour, false)) {
    for (const form of ['час', 'часа', 'часов', 'часик', 'часика', 'часиков']) add(`at num:${hour} oclock`, `в ${words} ${form}`, `во ${words} ${form}`, `на ${words} ${form}`);
  }
  // "к пяти часам", "к двум часам": by that hour.
  for (const words of [...numberWords(hour, true), ...({ 2: ['двум'], 3: ['трем'], 4: ['четырем'] } as Record<number, string[]>)[hour] ?? []]) add(`by num:${hour} oclock`, `к ${words} часам`);
}
add('at num:1 oclock', 'в час');
add('by num:1 oclock', 'к часу');

const weekdays: Array<[number, string[]]> = [
  [1, ['понедельник', 'понедельника', 'понедельнику', 'понедельником', 'понедельнике', 'пн', 'пнд', 'пон', 'понед']],
  [2, ['вторник', 'вторника', 'вторнику', 'вторником', 'вторнике', 'вт', 'втр', 'втор']],
  [3, ['среда', 'среду', 'среды', 'среде', 'средой', 'ср', 'срд']],
  [4, ['четверг', 'четверга', 'четвергу', 'четвергом', 'четверге', 'чт', 'чтв', 'четв']],
  [5, ['пятница', 'пятницу', 'пятницы', 'пятнице', 'пятницей', 'пятницой', 'пт', 'птн', 'пятн']],
  [6, ['суббота', 'субботу', 'субботы', 'субботе', 'субботой', 'сб', 'суб', 'субб']],
  [7, ['воскресенье', 'воскресенья', 'воскресенью', 'воскресеньем', 'воскресение', 'вс', 'вск', 'воскр']],
];
const weekdayPlurals: Record<number, string[]> = {
  1: ['понедельникам'], 2: ['вторникам'], 3: ['средам'], 4: ['четвергам'], 5: ['пятницам'], 6: ['субботам'], 7: ['воскресеньям'],
};
for (const [weekday, words] of weekdays) {
  add(`weekday:${weekday}`, ...words);
  // "в пятницу", "во вторник": the preposition is the weekday's, so "на следующей неделе во вторник" reads.
  add(`weekday:${weekday}`, ...words.slice(0, 2).map((word) => `${weekday === 2 ? 'во' : 'в'} ${word}`));
  // "по понедельникам", "каждую пятницу": a recurrence, which a single date is not.
  add(`every weekday:${weekday}`, ...(weekdayPlurals[weekday] ?? []).map((word) => `по ${word}`));
}

const months: Array<[number, string[]]> = [
  [1, ['январь', 'января', 'январе', 'январю', 'январем', 'янв']],
  [2, ['февраль', 'февраля', 'феврале', 'февралю', 'февралем', 'фев', 'февр']],
  [3, ['март', 'марта', 'марте', 'марту', 'мартом', 'мар']],
  [4, ['апрель', 'апреля', 'апреле', 'апрелю', 'апрелем', 'апр']],
  [5, ['май', 'мая', 'мае', 'маю', 'маем']],
  [6, ['июнь', 'июня', 'июне', 'июню', 'июнем', 'июн']],
  [7, ['июль', 'июля', 'июле', 'июлю', 'июлем', 'июл']],
  [8, ['август', 'августа', 'августе', 'августу', 'августом', 'авг']],
  [9, ['сентябрь', 'сентября', 'сентябре', 'сентябрю', 'сентябрем', 'сен', 'сент']],
  [10, ['октябрь', 'октября', 'октябре', 'октябрю', 'октябрем', 'окт']],
  [11, ['ноябрь', 'ноября', 'ноябре', 'ноябрю', 'ноябрем', 'ноя', 'нояб']],
  [12, ['декабрь', 'декабря', 'декабре', 'декабрю', 'декабрем', 'дек']],
];
for (const [month, words] of months) add(`month:${month}`, ...words);

// Qualifiers in every gender, number and case.
const adjective = (stem: string, soft = false): string[] =>
  soft
    ? ['ий', 'яя', 'ее', 'юю', 'ей', 'ем', 'его', 'ему', 'ие', 'их', 'им'].map((ending) => stem + ending)
    : ['ый', 'ая', 'ое', 'ую', 'ой', 'ом', 'ого', 'ому', 'ые', 'ых', 'ым'].map((ending) => stem + ending);
add('next', ...adjective('следующ', true).map((word) => word.replace('щя', 'ща').replace('щю', 'щу')), 'след', 'следущий', 'следущую', 'следущей', 'следущем');
add('next', ...adjective('будущ', true).map((word) => word.replace('щя', 'ща').replace('щю', 'щу')));
add('last', ...adjective('прошл'), ...adjective('предыдущ', true).map((word) => word.replace('щя', 'ща').replace('щю', 'щу')));
add('last', ...adjective('последн', true));
add('this', 'этот', 'эта', 'это', 'эту', 'этой', 'этом', 'этого', 'этому', 'эти', 'этих', 'этим');
add('this', ...adjective('текущ', true).map((word) => word.replace('щя', 'ща').replace('щю', 'щу')));
add('coming', 'ближайший', 'ближайшая', 'ближайшее', 'ближайшую', 'ближайшей', 'ближайшем', 'ближайшего', 'грядущий', 'грядущую', 'грядущей', 'грядущем', 'наступающий', 'наступающую', 'наступающей', 'наступающем');
// "на следующей неделе", "на этой неделе", "на прошлой неделе".
for (const [symbol, words] of [['next', ['следующей', 'будущей', 'след']], ['this', ['этой', 'текущей']], ['last', ['прошлой', 'предыдущей']]] as const) {
  add(`${symbol} unit:week`, ...words.map((word) => `на ${word} неделе`));
}
add('this unit:week', 'на неделе');
// "ближайшие 3 дня": the next days, today included.
add('next', 'ближайшие', 'ближайших', 'ближайшим');

Object.assign(phrases, {
  // Days relative to today.
  'сегодня': 'rel:0', 'сёдня': 'rel:0', 'седня': 'rel:0', 'сегодняшний': 'rel:0', 'сегодняшнее': 'rel:0', 'на сегодня': 'rel:0',
  'завтра': 'rel:1', 'завтрашний': 'rel:1', 'завтрашнее': 'rel:1', 'на завтра': 'rel:1', 'зафтра': 'rel:1', 'завтро': 'rel:1',
  'вчера': 'rel:-1', 'вчерашний': 'rel:-1', 'вчерашнее': 'rel:-1',
  'послезавтра': 'rel:2', 'после завтра': 'rel:2', 'на послезавтра': 'rel:2', 'послепослезавтра': 'rel:3',
  'позавчера': 'rel:-2', 'позапозавчера': 'rel:-3',
  'на следующий день': 'rel:1', 'следующий день': 'rel:1', 'на другой день': 'rel:1',
  'сейчас': 'now', 'щас': 'now', 'прямо сейчас': 'now', 'немедленно': 'now', 'в данный момент': 'now', 'в настоящее время': 'now', 'как можно скорее': 'now', 'сию минуту': 'now',
  // Parts of the day.
  'утро': 'part:morning', 'утра': 'part:morning', 'утром': 'part:morning', 'утру': 'part:morning', 'с утра': 'part:morning', 'с утра пораньше': 'part:morning', 'рано утром': 'part:morning', 'поутру': 'part:morning', 'утречком': 'part:morning', 'утреца': 'part:morning',
  'днем': 'part:afternoon', 'днём': 'part:afternoon', 'после обеда': 'part:afternoon', 'после полудня': 'part:afternoon', 'во второй половине дня': 'part:afternoon',
  'обед': 'part:midday', 'обеда': 'part:midday', 'в обед': 'part:midday', 'в обеденное время': 'part:midday', 'обеденное время': 'part:midday', 'к обеду': 'by part:midday',
  'вечер': 'part:evening', 'вечера': 'part:evening', 'вечером': 'part:evening', 'вечеру': 'part:evening', 'к вечеру': 'by part:evening', 'вечерком': 'part:evening',
  'ночь': 'part:night', 'ночи': 'part:night', 'ночью': 'part:night', 'на ночь': 'part:night', 'поздно вечером': 'part:evening', 'поздно ночью': 'part:night',
  'этим утром': 'rel:0 part:morning', 'этим вечером': 'rel:0 part:evening', 'этой ночью': 'rel:0 part:night', 'этим днем': 'rel:0 part:afternoon',
  // "в ночь на субботу" is the night before Saturday: no symbol says so, so the grammar refuses it.
  'в ночь на': 'part:night before', 'ночь на': 'part:night before', 'в ночь с': 'part:night before', 'ночь с': 'part:night before',
  'прошлой ночью': 'rel:-1 part:night', 'вчера ночью': 'rel:-1 part:night', 'сегодня ночью': 'rel:0 part:night',
  'полдень': 'clock:720', 'в полдень': 'at clock:720', 'к полудню': 'by clock:720', 'полночь': 'clock:0', 'в полночь': 'at clock:0', 'к полуночи': 'by clock:0',
  'пополудни': 'ampm:pm', 'до полудня': 'ampm:am',
  // The hour: "в 3 часа дня", "в 8 часов вечера", "в час ночи".
  'часа дня': 'oclock part:afternoon', 'часов дня': 'oclock part:afternoon', 'час дня': 'oclock part:afternoon', 'в час дня': 'at num:1 oclock part:afternoon',
  'часа утра': 'oclock part:morning', 'часов утра': 'oclock part:morning', 'час утра': 'oclock part:morning',
  'часа вечера': 'oclock part:evening', 'часов вечера': 'oclock part:evening', 'часа ночи': 'oclock part:night', 'часов ночи': 'oclock part:night',
  'час ночи': 'oclock part:night', 'в час ночи': 'at num:1 oclock part:night',
  'часа пополудни': 'oclock ampm:pm', 'часов пополудни': 'oclock ampm:pm', 'часа после полудня': 'oclock part:afternoon', 'часов после полудня': 'oclock part:afternoon',
  'часа после обеда': 'oclock part:afternoon', 'часов после обеда': 'oclock part:afternoon', 'часа по полудни': 'oclock ampm:pm',
  'ровно': 'filler', 'ровно в': 'at', 'часов ровно': 'oclock', 'часа ровно': 'oclock', 'ч': 'h',
  // Units.
  'секунда': 'unit:second', 'секунду': 'unit:second', 'секунды': 'unit:second', 'секунд': 'unit:second', 'секундой': 'unit:second', 'сек': 'unit:second',
  'минута': 'unit:minute', 'минуту': 'unit:minute', 'минуты': 'unit:minute', 'минут': 'unit:minute', 'минутой': 'unit:minute', 'мин': 'unit:minute', 'минутку': 'unit:minute', 'минуток': 'unit:minute', 'минутки': 'unit:minute',
  'час': 'unit:hour', 'часа': 'unit:hour', 'часов': 'unit:hour', 'часу': 'unit:hour', 'часом': 'unit:hour', 'часик': 'unit:hour', 'часика': 'unit:hour', 'часиков': 'unit:hour', 'часок': 'unit:hour',
  'полчаса': 'half unit:hour', 'пол часа': 'half unit:hour', 'полчасика': 'half unit:hour', 'полминуты': 'half unit:minute', 'четверть часа': 'quarter unit:hour',
  'день': 'unit:day', 'дня': 'unit:day', 'дней': 'unit:day', 'дню': 'unit:day', 'дн': 'unit:day', 'денек': 'unit:day', 'денька': 'unit:day', 'сутки': 'unit:day', 'суток': 'unit:day', 'суткам': 'unit:day',
  'неделя': 'unit:week', 'неделю': 'unit:week', 'недели': 'unit:week', 'недель': 'unit:week', 'неделе': 'unit:week', 'неделей': 'unit:week', 'нед': 'unit:week', 'недельку': 'unit:week', 'недельки': 'unit:week',
  'месяц': 'unit:month', 'месяца': 'unit:month', 'месяцев': 'unit:month', 'месяце': 'unit:month', 'месяцем': 'unit:month', 'мес': 'unit:month', 'месяцу': 'unit:month',
  'год': 'unit:year', 'года': 'unit:year', 'лет': 'unit:year', 'году': 'unit:year', 'годом': 'unit:year', 'годика': 'unit:year',
  'выходные': 'unit:weekend', 'выходных': 'unit:weekend', 'выходным': 'unit:weekend', 'выходными': 'unit:weekend', 'уикенд': 'unit:weekend', 'уикэнд': 'unit:weekend', 'уик-энд': 'unit:weekend', 'викенд': 'unit:weekend',
  'на выходных': 'this unit:weekend', 'в выходные': 'this unit:weekend',
  'г': 'filler',
  // Clock words.
  'четверть': 'quarter', 'половина': 'half', 'пол': 'half', 'без': 'to',
  // Offsets.
  'через': 'in', 'спустя': 'in', 'назад': 'ago', 'тому назад': 'ago', 'в течение': 'within', 'в течении': 'within', 'в течение дня': 'rest rel:0', 'в течении дня': 'rest rel:0', 'в течение сегодняшнего дня': 'rest rel:0', 'в пределах': 'within',
  'от сегодня': 'from-now', 'с сегодняшнего дня': 'from-now', 'от сейчас': 'from-now', 'с этого момента': 'from-now',
  // Words between the parts.
  // "на 5 марта", "на 15:00": a filler, which every reading skips ("на" read as "on" would keep "5" from its month).
  'в': 'at', 'во': 'at', 'на': 'filler', 'к': 'by', 'ко': 'by', 'не позднее': 'by', 'не позже': 'by', 'не позднее чем': 'by', 'до конца': 'by end',
  'с': 'from', 'со': 'from', 'от': 'from', 'до': 'until', 'по': 'until', 'между': 'between', 'и': 'and', 'после': 'after', 'перед': 'before', 'накануне': 'eve',
  'около': 'filler', 'примерно': 'filler', 'приблизительно': 'filler', 'где-то': 'filler', 'где то': 'filler', 'часиков в': 'at', 'часов в': 'at', 'часа в': 'at', 'где-нибудь': 'filler', 'где нибудь': 'filler', 'в районе': 'filler', 'ориентировочно': 'filler',
  // Ends and starts.
  'конец': 'end', 'конца': 'end', 'концу': 'by end', 'конце': 'end', 'в конце': 'end', 'под конец': 'end', 'к концу': 'by end',
  'начало': 'start', 'начала': 'start', 'начале': 'start', 'в начале': 'start', 'к началу': 'by start',
  'середина': 'mid', 'середины': 'mid', 'середине': 'mid', 'в середине': 'mid', 'к середине': 'by mid',
  'остаток': 'rest', 'остаток дня': 'rest rel:0', 'до конца дня': 'eod', 'конец дня': 'eod', 'конца дня': 'eod', 'в конце дня': 'eod', 'к концу дня': 'eod', 'конец рабочего дня': 'eod', 'до конца рабочего дня': 'eod', 'к концу рабочего дня': 'eod', 'в конце рабочего дня': 'eod',
  'каждый': 'every', 'каждую': 'every', 'каждое': 'every', 'каждые': 'every', 'каждого': 'every', 'ежедневно': 'every', 'еженедельно': 'every', 'ежемесячно': 'every', 'ежегодно': 'every', 'раз в': 'every',
  // Zones.
  'мск': 'tz:Europe/Moscow', 'по мск': 'tz:Europe/Moscow', 'по москве': 'tz:Europe/Moscow', 'по московскому времени': 'tz:Europe/Moscow', 'московского времени': 'tz:Europe/Moscow', 'по московскому': 'tz:Europe/Moscow',
  'по гринвичу': 'tz:0', 'по utc': 'tz:0', 'по киеву': 'tz:Europe/Kiev', 'по киевскому времени': 'tz:Europe/Kiev', 'по минску': 'tz:Europe/Minsk', 'по минскому времени': 'tz:Europe/Minsk',
  // Holidays: names only; the dates come from date-holidays (src/time/holidays.ts).
  'новый год': 'holiday:new-year', 'нового года': 'holiday:new-year', 'новому году': 'holiday:new-year', 'новым годом': 'holiday:new-year', 'новом году': 'holiday:new-year', 'нг': 'holiday:new-year',
  'канун нового года': 'eve holiday:new-year', 'в канун нового года': 'eve holiday:new-year', 'новогодняя ночь': 'eve holiday:new-year', 'новогоднюю ночь': 'eve holiday:new-year', 'канун': 'eve', 'в канун': 'eve',
  // Russian speakers keep the Orthodox calendar: "Рождество" is 7 January, "Пасха" the Orthodox Easter.
  'рождество': 'holiday:orthodox-christmas', 'рождества': 'holiday:orthodox-christmas', 'рождеству': 'holiday:orthodox-christmas', 'рождеством': 'holiday:orthodox-christmas', 'рождестве': 'holiday:orthodox-christmas',
  'рождество христово': 'holiday:orthodox-christmas', 'рождества христова': 'holiday:orthodox-christmas', 'православное рождество': 'holiday:orthodox-christmas', 'православного рождества': 'holiday:orthodox-christmas',
  'сочельник': 'eve holiday:orthodox-christmas', 'сочельника': 'eve holiday:orthodox-christmas', 'рождественский сочельник': 'eve holiday:orthodox-christmas',
  'католическое рождество': 'holiday:christmas', 'католического рождества': 'holiday:christmas', 'католическому рождеству': 'holiday:christmas', 'западное рождество': 'holiday:christmas', 'католический сочельник': 'eve holiday:christmas',
  'пасха': 'holiday:orthodox-easter', 'пасхи': 'holiday:orthodox-easter', 'пасху': 'holiday:orthodox-easter', 'пасхе': 'holiday:orthodox-easter', 'православная пасха': 'holiday:orthodox-easter', 'православной пасхи': 'holiday:orthodox-easter',
  'католическая пасха': 'holiday:easter', 'католической пасхи': 'holiday:easter', 'католическую пасху': 'holiday:easter',
  'день победы': 'holiday:victory-day', 'дня победы': 'holiday:victory-day', 'дню победы': 'holiday:victory-day',
  'день святого валентина': 'holiday:valentines-day', 'дня святого валентина': 'holiday:valentines-day', 'дню святого валентина': 'holiday:valentines-day', 'валентинов день': 'holiday:valentines-day', 'день всех влюбленных': 'holiday:valentines-day', 'дня всех влюбленных': 'holiday:valentines-day',
  'хэллоуин': 'holiday:halloween', 'хеллоуин': 'holiday:halloween', 'хэллоуина': 'holiday:halloween', 'хеллоуина': 'holiday:halloween', 'хэлоуин': 'holiday:halloween', 'хелоуин': 'holiday:halloween',
  'первомай': 'holiday:workers-day', 'первомая': 'holiday:workers-day', 'день труда': 'holiday:workers-day', 'праздник весны и труда': 'holiday:workers-day', 'праздника весны и труда': 'holiday:workers-day',
  'день всех святых': 'holiday:all-saints',
  'день благодарения': 'holiday:thanksgiving', 'дня благодарения': 'holiday:thanksgiving', 'черная пятница': 'holiday:black-friday', 'черную пятницу': 'holiday:black-friday', 'черной пятницы': 'holiday:black-friday',
  'ханука': 'holiday:hanukkah', 'хануки': 'holiday:hanukkah', 'хануку': 'holiday:hanukkah', 'песах': 'holiday:passover', 'песаха': 'holiday:passover',
  'рош ха-шана': 'holiday:rosh-hashanah', 'рош ха шана': 'holiday:rosh-hashanah', 'рош хашана': 'holiday:rosh-hashanah', 'рош-ха-шана': 'holiday:rosh-hashanah',
  'йом кипур': 'holiday:yom-kippur', 'йом-кипур': 'holiday:yom-kippur', 'йом киппур': 'holiday:yom-kippur', 'судный день': 'holiday:yom-kippur',
  'пурим': 'holiday:purim', 'суккот': 'holiday:sukkot', 'шавуот': 'holiday:shavuot',
  'рамадан': 'holiday:ramadan', 'рамазан': 'holiday:ramadan', 'рамадана': 'holiday:ramadan', 'рамазана': 'holiday:ramadan',
  'ураза-байрам': 'holiday:eid-al-fitr', 'ураза байрам': 'holiday:eid-al-fitr', 'ураза-байрама': 'holiday:eid-al-fitr', 'ураза байрама': 'holiday:eid-al-fitr', 'ид аль-фитр': 'holiday:eid-al-fitr',
  'курбан-байрам': 'holiday:eid-al-adha', 'курбан байрам': 'holiday:eid-al-adha', 'курбан-байрама': 'holiday:eid-al-adha', 'курбан байрама': 'holiday:eid-al-adha', 'ид аль-адха': 'holiday:eid-al-adha',
});

/** Russian words for time. */
export const russian: LexiconSource = {
  language: 'ru',
  phrases,
};
