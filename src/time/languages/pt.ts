import type { LexiconSource } from '../lexicon.js';

/*
 * Portuguese (Brazil and Portugal). Keys are folded when compiled (case, accents: "amanhã" =
 * "amanha", "às" = "as"), so each is written once. "manhã" is the morning, "amanhã" tomorrow;
 * "às 8" is "at 8"; "segunda" … "sexta" are weekdays (as the ordinals they are also, only
 * "primeira segunda-feira de maio" needs them, and reads them as weekdays too).
 */

/** Minutes said before "para as" (Brazilian "quinze para as oito" = 7:45). */
const minutesTo: Record<string, string> = {
  cinco: 'num:5', dez: 'num:10', quinze: 'num:15', vinte: 'num:20', 'vinte e cinco': 'num:25',
  'um quarto': 'quarter', quarto: 'quarter', minutos: 'unit:minute', minuto: 'unit:minute', min: 'unit:minute', mins: 'unit:minute',
};

function paraAs(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [words, symbols] of Object.entries(minutesTo)) {
    for (const to of ['para as', 'para a', 'pras', 'pra']) out[`${words} ${to}`] = `${symbols} to`;
    for (const noon of ['o meio-dia', 'o meio dia', 'meio-dia', 'meio dia']) out[`${words} para ${noon}`] = `${symbols} to clock:720`;
    for (const midnight of ['a meia-noite', 'a meia noite', 'meia-noite', 'meia noite']) out[`${words} para ${midnight}`] = `${symbols} to clock:0`;
  }
  return out;
}

/** Day numbers as words, for "vinte e dois de fevereiro" (a number word before "de" + month is a day, not a count). */
const dayWords: Array<[string, number]> = [
  ['um', 1], ['dois', 2], ['tres', 3], ['quatro', 4], ['cinco', 5], ['seis', 6], ['sete', 7], ['oito', 8], ['nove', 9], ['dez', 10],
  ['onze', 11], ['doze', 12], ['treze', 13], ['catorze', 14], ['quatorze', 14], ['quinze', 15], ['dezesseis', 16], ['dezasseis', 16],
  ['dezessete', 17], ['dezassete', 17], ['dezoito', 18], ['dezenove', 19], ['dezanove', 19], ['vinte', 20], ['vinte e um', 21], ['vinte e dois', 22],
  ['vinte e tres', 23], ['vinte e quatro', 24], ['vinte e cinco', 25], ['vinte e seis', 26], ['vinte e sete', 27], ['vinte e oito', 28],
  ['vinte e nove', 29], ['trinta', 30], ['trinta e um', 31],
];

const monthWords: Array<[string, number]> = [
  ['janeiro', 1], ['jan', 1], ['fevereiro', 2], ['fev', 2], ['marco', 3], ['mar', 3], ['abril', 4], ['abr', 4], ['maio', 5], ['mai', 5],
  ['junho', 6], ['jun', 6], ['julho', 7], ['jul', 7], ['agosto', 8], ['ago', 8], ['setembro', 9], ['set', 9], ['outubro', 10], ['out', 10],
  ['novembro', 11], ['nov', 11], ['dezembro', 12],
];

function dayWordDates(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [word, day] of dayWords) {
    for (const [month, number] of monthWords) {
      out[`${word} de ${month}`] = `ord:${day} of month:${number}`;
      out[`${word} ${month}`] = `ord:${day} month:${number}`;
    }
  }
  return out;
}

/** "segunda-feira", "segunda feira", "segunda", "2ª feira" … */
function weekdays(): Record<string, string> {
  const names: Array<[string, number]> = [['segunda', 1], ['terca', 2], ['quarta', 3], ['quinta', 4], ['sexta', 5]];
  const out: Record<string, string> = {};
  for (const [name, day] of names) {
    for (const form of [name, `${name}-feira`, `${name} feira`, `${name}feira`, `${name}-feiras`, `${name}s-feiras`, `${name}s feiras`, `${name}s`]) out[form] = `weekday:${day}`;
  }
  return out;
}

export const portuguese: LexiconSource = {
  language: 'pt',
  phrases: {
    // Days relative to today.
    hoje: 'rel:0', 'o dia de hoje': 'rel:0', 'dia de hoje': 'rel:0', hj: 'rel:0', 'hoje mesmo': 'rel:0',
    amanhã: 'rel:1', amanha: 'rel:1', amnh: 'rel:1', 'o dia de amanha': 'rel:1',
    'depois de amanha': 'rel:2', 'depois d amanha': 'rel:2', 'o dia depois de amanha': 'rel:2', 'dias depois de amanha': 'unit:day after rel:1',
    ontem: 'rel:-1', anteontem: 'rel:-2', 'antes de ontem': 'rel:-2', 'antes d ontem': 'rel:-2', 'dias antes de ontem': 'unit:day before rel:-1',
    'o dia seguinte': 'rel:1', 'no dia seguinte': 'rel:1', 'dia seguinte': 'rel:1', 'o dia anterior': 'rel:-1', 'no dia anterior': 'rel:-1',
    'hoje de manha': 'rel:0 part:morning', 'hoje pela manha': 'rel:0 part:morning', 'hoje cedo': 'rel:0 part:morning', 'esta manha': 'rel:0 part:morning', 'essa manha': 'rel:0 part:morning',
    'nesta manha': 'rel:0 part:morning', 'nessa manha': 'rel:0 part:morning', 'desta manha': 'rel:0 part:morning', 'dessa manha': 'rel:0 part:morning',
    'hoje a tarde': 'rel:0 part:afternoon', 'hoje de tarde': 'rel:0 part:afternoon', 'hoje pela tarde': 'rel:0 part:afternoon', 'esta tarde': 'rel:0 part:afternoon', 'essa tarde': 'rel:0 part:afternoon',
    'nesta tarde': 'rel:0 part:afternoon', 'nessa tarde': 'rel:0 part:afternoon', 'desta tarde': 'rel:0 part:afternoon', 'dessa tarde': 'rel:0 part:afternoon',
    'hoje a noite': 'rel:0 part:night', 'hoje de noite': 'rel:0 part:night', 'hoje pela noite': 'rel:0 part:night', 'esta noite': 'rel:0 part:night', 'essa noite': 'rel:0 part:night',
    'nesta noite': 'rel:0 part:night', 'nessa noite': 'rel:0 part:night', 'desta noite': 'rel:0 part:night', 'dessa noite': 'rel:0 part:night', 'hoje a nite': 'rel:0 part:night',
    'esta madrugada': 'rel:0 part:morning', 'desta madrugada': 'rel:0 part:morning', 'nesta madrugada': 'rel:0 part:morning', 'essa madrugada': 'rel:0 part:morning',
    'amanha cedo': 'rel:1 part:morning', cedo: 'part:morning', 'de manha cedo': 'part:morning', 'manha cedo': 'part:morning', 'bem cedo': 'part:morning', 'amanha de manha': 'rel:1 part:morning', 'amanha pela manha': 'rel:1 part:morning',
    'ontem a noite': 'rel:-1 part:night', 'ontem de noite': 'rel:-1 part:night', 'ontem pela noite': 'rel:-1 part:night', 'ontem a nite': 'rel:-1 part:night',
    agora: 'now', 'agora mesmo': 'now', 'ja': 'now', 'neste momento': 'now', 'nesse momento': 'now', 'neste instante': 'now', 'nesse instante': 'now', 'logo agora': 'now', 'agorinha': 'now',
    'imediatamente': 'now', 'o quanto antes': 'now', 'quanto antes': 'now', 'o mais rapido possivel': 'now', 'o mais breve possivel': 'now', 'o mais cedo possivel': 'now',
    'assim que possivel': 'now', 'assim que puder': 'now', 'assim que possa': 'now', 'tao cedo quanto possivel': 'now', 'tao cedo quanto possamos': 'now',
    'o mais depressa possivel': 'now', 'de imediato': 'now',

    // Weekdays ("seg" is left out: it is also seconds, and "em 5 seg" must not be five Mondays; "ter" alone is
    // also the verb "to have": only "ter." and "terça" read as Tuesday).
    ...weekdays(),
    'ter .': 'weekday:2', qua: 'weekday:3', qui: 'weekday:4', sex: 'weekday:5',
    sabado: 'weekday:6', sabados: 'weekday:6', sab: 'weekday:6', domingo: 'weekday:7', domingos: 'weekday:7', dom: 'weekday:7',
    'aos sabados': 'every weekday:6', 'aos domingos': 'every weekday:7', 'as segundas': 'every weekday:1', 'as tercas': 'every weekday:2', 'as quartas': 'every weekday:3',
    'as quintas': 'every weekday:4', 'as sextas': 'every weekday:5', 'todas as': 'every', 'todos os': 'every',

    // Months ("dez" is ten, not December).
    janeiro: 'month:1', jan: 'month:1', fevereiro: 'month:2', fev: 'month:2', março: 'month:3', mar: 'month:3', abril: 'month:4', abr: 'month:4',
    maio: 'month:5', mai: 'month:5', junho: 'month:6', jun: 'month:6', julho: 'month:7', jul: 'month:7', agosto: 'month:8', ago: 'month:8',
    setembro: 'month:9', set: 'month:9', outubro: 'month:10', out: 'month:10', novembro: 'month:11', nov: 'month:11', dezembro: 'month:12',

    // Units ("horas" is also the hour mark: "às 15 horas", "em 3 horas").
    segundos: 'unit:second', 'um segundo': 'num:1 unit:second', segs: 'unit:second',
    minuto: 'unit:minute', minutos: 'unit:minute', min: 'unit:minute', mins: 'unit:minute', minu: 'unit:minute',
    hora: 'h', horas: 'h', h: 'h', hs: 'h', hrs: 'h', hr: 'h',
    // "dia 15", "no dia 15": the singular names the day of the month; "um dia" is one day, "3 dias" a count.
    dia: 'the', 'um dia': 'num:1 unit:day', 'cada dia': 'every', 'todo dia': 'every', 'todos os dias': 'every', dias: 'unit:day',
    semana: 'unit:week', semanas: 'unit:week', sem: 'unit:week',
    quinzena: 'unit:fortnight', quinzenas: 'unit:fortnight',
    mes: 'unit:month', meses: 'unit:month',
    ano: 'unit:year', anos: 'unit:year',
    'fim de semana': 'unit:weekend', 'o fim de semana': 'the unit:weekend', 'no fim de semana': 'the unit:weekend', 'ao fim de semana': 'the unit:weekend',
    'o final de semana': 'the unit:weekend', 'no final de semana': 'the unit:weekend', 'ao final de semana': 'the unit:weekend', 'do fim de semana': 'of the unit:weekend', 'do final de semana': 'of the unit:weekend', 'fins de semana': 'unit:weekend', 'final de semana': 'unit:weekend', 'finais de semana': 'unit:weekend', 'fim-de-semana': 'unit:weekend',
    fds: 'unit:weekend', finde: 'unit:weekend',

    // Parts of the day ("madrugada" is before dawn: its hours read as the morning's, 3 → 03:00).
    manha: 'part:morning', manhas: 'part:morning', 'de manha': 'part:morning', 'da manha': 'part:morning', 'pela manha': 'part:morning', 'na manha': 'part:morning',
    tarde: 'part:afternoon', tardes: 'part:afternoon', 'fim da tarde': 'part:evening', 'final da tarde': 'part:evening', 'no fim da tarde': 'part:evening', 'ao fim da tarde': 'part:evening', 'ao final da tarde': 'part:evening', 'no final da tarde': 'part:evening', 'ao anoitecer': 'part:evening', 'ao amanhecer': 'part:morning',
    noite: 'part:night', noites: 'part:night', nite: 'part:night', 'inicio da noite': 'part:evening', 'comeco da noite': 'part:evening',
    madrugada: 'part:morning', 'na parte da manha': 'part:morning', 'na parte da tarde': 'part:afternoon', 'na parte da noite': 'part:night',
    'meio-dia': 'clock:720', 'meio dia': 'clock:720', meiodia: 'clock:720', 'ao meio-dia': 'at clock:720', 'ao meio dia': 'at clock:720',
    'do meio-dia': 'part:midday', 'do meio dia': 'part:midday', 'da hora do almoco': 'part:midday', 'hora do almoco': 'part:midday', 'na hora do almoco': 'part:midday',
    'meia-noite': 'clock:0', 'meia noite': 'clock:0', meianoite: 'clock:0', 'a meia-noite': 'at clock:0', 'a meia noite': 'at clock:0', 'da meia-noite': 'clock:0', 'da meia noite': 'clock:0',

    // Clock words.
    'a.m.': 'ampm:am', 'a.m': 'ampm:am', 'a m': 'ampm:am', 'p.m.': 'ampm:pm', 'p.m': 'ampm:pm', 'p m': 'ampm:pm',
    'em ponto': 'oclock', 'certinho': 'filler',
    quarto: 'quarter', 'um quarto': 'quarter', 'tres quartos': 'three-quarters', meia: 'half', meio: 'half', 'e meia': 'and half', 'e meio': 'and half',
    // "seis menos um quarto" is 5:45: "to a" keeps "six minutes to a quarter" from reading it (the minutes-first form needs the hour right after "to").
    menos: 'to a', 'depois das': 'after', 'depois da': 'after', 'apos as': 'after', 'apos a': 'after', 'passadas das': 'past', 'passados das': 'past',
    'antes das': 'before', 'antes da': 'before',
    'para as': 'at', 'pras': 'at', 'para a': 'at',
    ...paraAs(),

    // Qualifiers.
    proximo: 'next', proxima: 'next', proximos: 'next', proximas: 'next', prox: 'next', 'o proximo': 'next', 'a proxima': 'next', 'as proximas': 'next', 'os proximos': 'next', 'nas proximas': 'next', 'nos proximos': 'next', 'as seguintes': 'next', 'no proximo': 'next', 'na proxima': 'next',
    seguinte: 'next', seguintes: 'next', 'que vem': 'next', 'q vem': 'next', 'que entra': 'next',
    passado: 'last', passada: 'last', passados: 'last', passadas: 'last', anterior: 'last', anteriores: 'last', ultimo: 'last', ultima: 'last', ultimos: 'last', ultimas: 'last',
    'o passado': 'last', 'a passada': 'last', 'o ultimo': 'last', 'a ultima': 'last', 'as ultimas': 'last', 'os ultimos': 'last', 'nas ultimas': 'last', 'nos ultimos': 'last', 'as passadas': 'last', 'no ultimo': 'last', 'na ultima': 'last', 'este ultimo': 'last', 'esta ultima': 'last',
    este: 'this', esta: 'this', esse: 'this', essa: 'this', neste: 'this', nesta: 'this', nesse: 'this', nessa: 'this', deste: 'this', desta: 'this', desse: 'this', dessa: 'this',
    // Portugal: "para a semana" is next week, "para o ano" next year.
    'para a semana': 'next unit:week', 'para o mes': 'next unit:month', 'para o ano': 'next unit:year',
    'este proximo': 'this', 'esta proxima': 'this', 'depois da proxima': 'after-next', 'depois do proximo': 'after-next',

    // Durations.
    em: 'in', dentro: 'in', 'dentro de': 'in', 'daqui a': 'in', daqui: 'in', 'daqui ha': 'in', 'em ate': 'within', 'no prazo de': 'within', 'em menos de': 'within',
    ha: 'ago', atras: 'ago', faz: 'ago', fazem: 'ago', 'a partir de agora': 'from-now', depois: 'from-now', 'mais tarde': 'from-now',
    'a partir de': 'from', 'a partir do': 'from the', 'a partir da': 'from the', 'a contar de': 'from', 'depois de': 'after', 'depois do': 'after the', 'apos': 'after',
    'antes de': 'before', 'antes do': 'before the',
    um: 'num:1', uma: 'num:1', 'um par de': 'num:2', 'par de': 'num:2', 'uns': 'filler', 'umas': 'filler',

    // Words between the parts.
    as: 'at', ao: 'at', 'a uma': 'at num:1', 'la pelas': 'at', 'pelas': 'at', 'por volta das': 'at', 'por volta da': 'at', 'perto das': 'at', 'perto da': 'at', 'cerca das': 'at', 'cerca da': 'at',
    'ate as': 'until at', 'ate a': 'until the',
    o: 'the', a: 'the', os: 'the', no: 'the', na: 'the', nos: 'the', nas: 'the', 'este dia': 'the', 'esse dia': 'the', 'essa dia': 'the', 'neste dia': 'the', 'nesse dia': 'the', de: 'of', do: 'of the', da: 'of the', dos: 'of the', das: 'from at', e: 'and',
    desde: 'from', ate: 'until', entre: 'between', por: 'filler', pela: 'filler', pelo: 'filler', para: 'by', pra: 'by', 'para o': 'by', 'pro': 'by',
    'no maximo': 'by', 'o mais tardar': 'by', 'durante': 'filler', 'aproximadamente': 'filler', 'aprox': 'filler', 'mais ou menos': 'filler', 'cerca de': 'filler',
    'fim de': 'end', 'fim do': 'end', 'fim da': 'end', 'o fim de': 'end', 'o fim do': 'end', 'no fim de': 'end', 'no fim do': 'end', 'no fim da': 'end', 'ao fim de': 'end', 'ao fim do': 'end',
    'final de': 'end', 'final do': 'end', 'final da': 'end', 'no final de': 'end', 'no final do': 'end', 'no final da': 'end', 'ao final de': 'end', 'ao final do': 'end', 'ao final da': 'end',
    'ate o fim do': 'by end', 'ate o final do': 'by end', 'ate ao fim do': 'by end', 'fins de': 'end', 'finais de': 'end', 'em fins de': 'end',
    'inicio de': 'start', 'inicio do': 'start', 'no inicio de': 'start', 'no inicio do': 'start', 'comeco de': 'start', 'comeco do': 'start', 'no comeco de': 'start',
    'no comeco do': 'start', 'principio de': 'start', 'principios de': 'start', 'em principios de': 'start', 'inicios de': 'start',
    'meados de': 'mid', 'em meados de': 'mid', 'meio de': 'mid', 'no meio de': 'mid', 'meio do': 'mid', 'no meio do': 'mid', 'metade de': 'mid',
    'o resto de': 'rest', 'resto de': 'rest', 'o resto do': 'rest', 'resto do': 'rest', 'o resto da': 'rest', 'resto da': 'rest',
    'fim do dia': 'eod', 'final do dia': 'eod', 'ao fim do dia': 'eod', 'ao final do dia': 'eod', 'no fim do dia': 'eod', 'no final do dia': 'eod',
    'ate o fim do dia': 'eod', 'ate o final do dia': 'eod', 'final do expediente': 'eod', 'fim do expediente': 'eod',
    cada: 'every', diario: 'every', diariamente: 'every', semanal: 'every', semanalmente: 'every', mensal: 'every', mensalmente: 'every', anual: 'every', anualmente: 'every',
    vespera: 'eve', 'a vespera de': 'eve', 'vespera de': 'eve', 'vespera do': 'eve', 'vespera da': 'eve',

    // Numbers (tens + "e" + units join: "trinta e cinco").
    zero: 'num:0', dois: 'num:2', duas: 'num:2', tres: 'num:3', quatro: 'num:4', cinco: 'num:5', seis: 'num:6', sete: 'num:7', oito: 'num:8', nove: 'num:9', dez: 'num:10',
    onze: 'num:11', doze: 'num:12', treze: 'num:13', catorze: 'num:14', quatorze: 'num:14', quinze: 'num:15', dezesseis: 'num:16', dezasseis: 'num:16',
    dezessete: 'num:17', dezassete: 'num:17', dezoito: 'num:18', dezenove: 'num:19', dezanove: 'num:19',
    vinte: 'num:20', trinta: 'num:30', quarenta: 'num:40', cinquenta: 'num:50', cincoenta: 'num:50', sessenta: 'num:60', setenta: 'num:70', oitenta: 'num:80', noventa: 'num:90', cem: 'num:100',

    // Ordinals ("quarto" is the quarter; "segundo" alone the ordinal: "segundo de agosto").
    primeiro: 'ord:1', primeira: 'ord:1', segundo: 'ord:2', terceiro: 'ord:3', terceira: 'ord:3', quinto: 'ord:5', sexto: 'ord:6',
    setimo: 'ord:7', setima: 'ord:7', oitavo: 'ord:8', oitava: 'ord:8', nono: 'ord:9', nona: 'ord:9', decimo: 'ord:10', decima: 'ord:10',
    'decimo primeiro': 'ord:11', 'decimo segundo': 'ord:12', 'decimo terceiro': 'ord:13', 'decimo quarto': 'ord:14', 'decimo quinto': 'ord:15', 'decimo sexto': 'ord:16',
    'decimo setimo': 'ord:17', 'decimo oitavo': 'ord:18', 'decimo nono': 'ord:19', vigesimo: 'ord:20', 'vigesimo primeiro': 'ord:21', 'vigesimo segundo': 'ord:22',
    'vigesimo terceiro': 'ord:23', 'vigesimo quarto': 'ord:24', 'vigesimo quinto': 'ord:25', 'vigesimo sexto': 'ord:26', 'vigesimo setimo': 'ord:27',
    'vigesimo oitavo': 'ord:28', 'vigesimo nono': 'ord:29', trigesimo: 'ord:30', 'trigesimo primeiro': 'ord:31',
    // "1º de maio", "1o de maio" ("º" folds to "o", the article, so only before "de").
    'o de': 'ord-suffix of', 'o do': 'ord-suffix of the',
    ...dayWordDates(),

    // Holidays: names only; the dates come from date-holidays (src/time/holidays.ts).
    natal: 'holiday:christmas', 'dia de natal': 'holiday:christmas', 'o natal': 'holiday:christmas', 'noite de natal': 'eve holiday:christmas', 'vespera de natal': 'eve holiday:christmas',
    'consoada': 'eve holiday:christmas', 'ano novo': 'holiday:new-year', 'ano-novo': 'holiday:new-year', 'dia de ano novo': 'holiday:new-year', 'dia do ano novo': 'holiday:new-year',
    'confraternizacao universal': 'holiday:new-year', reveillon: 'eve holiday:new-year', 'vespera de ano novo': 'eve holiday:new-year', 'passagem de ano': 'eve holiday:new-year',
    pascoa: 'holiday:easter', 'domingo de pascoa': 'holiday:easter', 'segunda-feira de pascoa': 'holiday:easter-monday', 'segunda de pascoa': 'holiday:easter-monday',
    'sexta-feira santa': 'holiday:good-friday', 'sexta feira santa': 'holiday:good-friday', 'sexta santa': 'holiday:good-friday', 'sexta-feira da paixao': 'holiday:good-friday',
    'sexta feira da paixao': 'holiday:good-friday', 'paixao de cristo': 'holiday:good-friday',
    'dia de todos os santos': 'holiday:all-saints', 'todos os santos': 'holiday:all-saints',
    'dia de sao valentim': 'holiday:valentines-day', 'sao valentim': 'holiday:valentines-day', 'dia das bruxas': 'holiday:halloween',
    'dia de sao patricio': 'holiday:st-patricks-day', 'sao patricio': 'holiday:st-patricks-day', 'dia da terra': 'holiday:earth-day',
    'dia do trabalho': 'holiday:workers-day', 'dia do trabalhador': 'holiday:workers-day', 'dia dos trabalhadores': 'holiday:workers-day', 'primeiro de maio': 'holiday:workers-day',
    'dia de acao de gracas': 'holiday:thanksgiving', 'acao de gracas': 'holiday:thanksgiving',
    'dia das maes': 'holiday:mothers-day', 'dia da mae': 'holiday:mothers-day', 'dia dos pais': 'holiday:fathers-day',
    'dia da independencia': 'holiday:independence-day', 'independencia do brasil': 'holiday:independence-day',
    'natal ortodoxo': 'holiday:orthodox-christmas', 'pascoa ortodoxa': 'holiday:orthodox-easter',
    'rosh hashana': 'holiday:rosh-hashanah', 'ano novo judaico': 'holiday:rosh-hashanah', 'yom kipur': 'holiday:yom-kippur', 'yom kippur': 'holiday:yom-kippur',
    chanuca: 'holiday:hanukkah', hanuca: 'holiday:hanukkah', 'pessach': 'holiday:passover', 'pessah': 'holiday:passover', 'pascoa judaica': 'holiday:passover',
    ramada: 'holiday:ramadan', ramadao: 'holiday:ramadan', ramadan: 'holiday:ramadan', 'ano novo islamico': 'holiday:islamic-new-year',
    'black friday': 'holiday:black-friday',
  },
};
