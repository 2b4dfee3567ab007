import type { LexiconSource } from '../lexicon.js';

/*
 * Spanish (Spain and Latin America). Keys are folded when compiled (case, accents: "mañana"
 * = "manana"), so each is written once. Words that mean two things are written as the
 * longer phrases that decide them: "mañana" alone is tomorrow, "la mañana" the morning;
 * "a" alone is "to" in a range ("de 5 a 7"), "a las" is "at"; "para las 8" is "at 8" but
 * "cuarto para las 8" is 7:45 (Latin America).
 */

/** Minutes said before "para las" (Latin American "diez para las ocho" = 7:50). */
const minutesTo: Record<string, string> = {
  cinco: 'num:5', diez: 'num:10', quince: 'num:15', veinte: 'num:20', veinticinco: 'num:25', 'veinte y cinco': 'num:25',
  'un cuarto': 'quarter', cuarto: 'quarter', 'minutos': 'unit:minute', 'minuto': 'unit:minute', 'min': 'unit:minute', 'mins': 'unit:minute',
};

function paraLas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [words, symbols] of Object.entries(minutesTo)) {
    for (const article of ['las', 'la']) out[`${words} para ${article}`] = `${symbols} to`;
    out[`${words} pa las`] = `${symbols} to`;
  }
  return out;
}

/** Day numbers as words, for "veintidós de febrero" (a number word before "de" + month is a day, not a count). */
const dayWords: Array<[string, number]> = [
  ['uno', 1], ['un', 1], ['dos', 2], ['tres', 3], ['cuatro', 4], ['cinco', 5], ['seis', 6], ['siete', 7], ['ocho', 8], ['nueve', 9], ['diez', 10],
  ['once', 11], ['doce', 12], ['trece', 13], ['catorce', 14], ['quince', 15], ['dieciseis', 16], ['diecisiete', 17], ['dieciocho', 18], ['diecinueve', 19],
  ['veinte', 20], ['veintiuno', 21], ['veintiun', 21], ['veintidos', 22], ['veintitres', 23], ['veinticuatro', 24], ['veinticinco', 25], ['veintiseis', 26],
  ['veintisiete', 27], ['veintiocho', 28], ['veintinueve', 29], ['treinta', 30], ['treinta y uno', 31], ['treinta y un', 31],
];

const monthWords: Array<[string, number]> = [
  ['enero', 1], ['ene', 1], ['febrero', 2], ['feb', 2], ['marzo', 3], ['mar', 3], ['abril', 4], ['abr', 4], ['mayo', 5], ['junio', 6], ['jun', 6],
  ['julio', 7], ['jul', 7], ['agosto', 8], ['ago', 8], ['septiembre', 9], ['setiembre', 9], ['sep', 9], ['sept', 9], ['set', 9],
  ['octubre', 10], ['oct', 10], ['noviembre', 11], ['nov', 11], ['diciembre', 12], ['dic', 12],
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

const phrases: Record<string, string> = {
  // Days relative to today.
  hoy: 'rel:0', 'el dia de hoy': 'rel:0', 'dia de hoy': 'rel:0', 'hoy mismo': 'rel:0',
  mañana: 'rel:1', 'el dia de mañana': 'rel:1', 'manana': 'rel:1', mñn: 'rel:1', mñana: 'rel:1',
  'pasado mañana': 'rel:2', 'pasado manana': 'rel:2', 'el dia despues de mañana': 'rel:2', 'dia despues de mañana': 'rel:2', 'despues de mañana': 'rel:2',
  ayer: 'rel:-1', anteayer: 'rel:-2', antier: 'rel:-2', antayer: 'rel:-2', 'antes de ayer': 'rel:-2', 'dias antes de ayer': 'unit:day before rel:-1', 'dias despues de mañana': 'unit:day after rel:1', 'antes de anoche': 'rel:-2 part:night',
  'el dia antes de ayer': 'rel:-2', 'dia antes de ayer': 'rel:-2',
  'el dia siguiente': 'rel:1', 'al dia siguiente': 'rel:1', 'dia siguiente': 'rel:1', 'el dia anterior': 'rel:-1',
  anoche: 'rel:-1 part:night', antenoche: 'rel:-2 part:night', 'ayer por la noche': 'rel:-1 part:night', 'ayer en la noche': 'rel:-1 part:night',
  'esta mañana': 'rel:0 part:morning', 'esta tarde': 'rel:0 part:afternoon', 'esta noche': 'rel:0 part:night', 'esta madrugada': 'rel:0 part:morning',
  'de esta mañana': 'rel:0 part:morning', 'de esta tarde': 'rel:0 part:afternoon', 'de esta noche': 'rel:0 part:night', 'de esta madrugada': 'rel:0 part:morning',
  'hoy por la mañana': 'rel:0 part:morning', 'hoy en la mañana': 'rel:0 part:morning', 'hoy a la mañana': 'rel:0 part:morning',
  'mañana por la mañana': 'rel:1 part:morning', 'mañana en la mañana': 'rel:1 part:morning', 'mañana a la mañana': 'rel:1 part:morning',
  'mañana de mañana': 'rel:1 part:morning', 'mañana temprano': 'rel:1 part:morning', temprano: 'part:morning', 'de mañana temprano': 'part:morning',
  ahora: 'now', ahorita: 'now', 'ahora mismo': 'now', 'justo ahora': 'now', ya: 'now', 'ya mismo': 'now', 'en este momento': 'now', 'en este preciso momento': 'now',
  'en estos momentos': 'now', 'cuanto antes': 'now', 'lo antes posible': 'now', 'lo mas pronto posible': 'now', 'lo mas rapido posible': 'now',
  'tan pronto como sea posible': 'now', 'tan pronto como podamos': 'now', 'tan pronto como puedas': 'now', 'tan pronto como pueda': 'now',
  inmediatamente: 'now', 'de inmediato': 'now', 'al instante': 'now', 'en seguida': 'now', enseguida: 'now',

  // Weekdays ("mar" is martes and marzo: both, so the grammar refuses it alone; "15 de mar" is March).
  lunes: 'weekday:1', lun: 'weekday:1', lu: 'weekday:1',
  martes: 'weekday:2', mart: 'weekday:2', ma: 'weekday:2',
  miercoles: 'weekday:3', mier: 'weekday:3', mie: 'weekday:3', mierc: 'weekday:3', mi: 'weekday:3',
  jueves: 'weekday:4', jue: 'weekday:4', juev: 'weekday:4', ju: 'weekday:4',
  viernes: 'weekday:5', vie: 'weekday:5', vier: 'weekday:5', vi: 'weekday:5',
  sabado: 'weekday:6', sabados: 'weekday:6', sab: 'weekday:6', sa: 'weekday:6',
  domingo: 'weekday:7', domingos: 'weekday:7', dom: 'weekday:7',
  'los lunes': 'every weekday:1', 'los martes': 'every weekday:2', 'los miercoles': 'every weekday:3', 'los jueves': 'every weekday:4',
  'los viernes': 'every weekday:5', 'los sabados': 'every weekday:6', 'los domingos': 'every weekday:7',

  // Months.
  enero: 'month:1', ene: 'month:1', febrero: 'month:2', feb: 'month:2', marzo: 'month:3', abril: 'month:4', abr: 'month:4',
  mayo: 'month:5', may: 'month:5', junio: 'month:6', jun: 'month:6', julio: 'month:7', jul: 'month:7',
  mar: 'weekday:2 month:3', 'de mar': 'of month:3', agosto: 'month:8', ago: 'month:8', septiembre: 'month:9', setiembre: 'month:9', sep: 'month:9', sept: 'month:9', set: 'month:9',
  octubre: 'month:10', oct: 'month:10', noviembre: 'month:11', nov: 'month:11', diciembre: 'month:12', dic: 'month:12',

  // Units ("horas" is also the hour mark: "a las 15 horas", "en 3 horas").
  segundos: 'unit:second', seg: 'unit:second', segs: 'unit:second', 'un segundo': 'num:1 unit:second',
  minuto: 'unit:minute', minutos: 'unit:minute', min: 'unit:minute', mins: 'unit:minute', minu: 'unit:minute',
  hora: 'h', horas: 'h', h: 'h', hs: 'h', hrs: 'h', hr: 'h', 'hras': 'h',
  // "el día 15", "día 15": the singular names the day of the month; "un día" is one day, "3 días" a count.
  dia: 'the', 'un dia': 'num:1 unit:day', 'cada dia': 'every', dias: 'unit:day',
  semana: 'unit:week', semanas: 'unit:week', sem: 'unit:week',
  quincena: 'unit:fortnight', quincenas: 'unit:fortnight',
  mes: 'unit:month', meses: 'unit:month',
  año: 'unit:year', años: 'unit:year',
  'fin de semana': 'unit:weekend', 'el fin de semana': 'the unit:weekend', 'del fin de semana': 'of the unit:weekend', 'al fin de semana': 'at unit:weekend', 'fines de semana': 'unit:weekend', finde: 'unit:weekend', 'fin de seman': 'unit:weekend', fds: 'unit:weekend', 'fin de sem': 'unit:weekend',

  // Parts of the day ("madrugada" is before dawn: its hours read as the morning's, 3 → 03:00).
  'la mañana': 'part:morning', 'de la mañana': 'part:morning', 'por la mañana': 'part:morning', 'en la mañana': 'part:morning', 'a la mañana': 'part:morning',
  'hasta la mañana': 'until part:morning', 'del dia': 'of the', 'la manana': 'part:morning', 'las mañanas': 'part:morning', 'mañanita': 'part:morning',
  tarde: 'part:afternoon', tardes: 'part:afternoon', 'tardecita': 'part:afternoon', 'media tarde': 'part:afternoon',
  noche: 'part:night', noches: 'part:night', 'nochecita': 'part:evening',
  madrugada: 'part:morning', 'la madrugada': 'part:morning',
  'primera hora de la mañana': 'part:morning', 'primera hora de la tarde': 'part:afternoon', 'ultima hora de la tarde': 'part:evening', 'a ultima hora de la tarde': 'part:evening', 'al final de la tarde': 'part:evening',
  'al atardecer': 'part:evening', 'al anochecer': 'part:evening', 'al amanecer': 'part:morning',
  mediodia: 'clock:720', 'medio dia': 'clock:720', 'medio-dia': 'clock:720', 'del mediodia': 'part:midday', 'de mediodia': 'part:midday', 'al mediodia': 'at clock:720', 'a mediodia': 'at clock:720',
  medianoche: 'clock:0', 'media noche': 'clock:0', 'de la medianoche': 'clock:0', 'a medianoche': 'at clock:0', 'a la medianoche': 'at clock:0',
  'la hora de comer': 'part:midday', 'hora de comer': 'part:midday', 'la hora del almuerzo': 'part:midday', 'hora del almuerzo': 'part:midday',

  // Clock words.
  'a.m.': 'ampm:am', 'a.m': 'ampm:am', 'a m': 'ampm:am', 'p.m.': 'ampm:pm', 'p.m': 'ampm:pm', 'p m': 'ampm:pm',
  'en punto': 'oclock', 'en pto': 'oclock',
  cuarto: 'quarter', 'un cuarto': 'quarter', 'tres cuartos': 'three-quarters', media: 'half', medio: 'half', 'y media': 'and half', 'y medio': 'and half',
  // "doce menos cinco" is 11:55: "to a" keeps "twelve minutes to five" from reading it (the minutes-first form needs the hour right after "to").
  menos: 'to a', 'pasadas las': 'past', 'pasados las': 'past', 'pasadas de las': 'past', 'pasados de las': 'past',
  'pasadas de la': 'past', 'pasado de las': 'past', 'pasada la': 'past', 'pasadas la': 'past', 'despues de las': 'after', 'despues de la': 'after',
  'antes de las': 'before', 'antes de la': 'before',
  'para las': 'at', 'para la': 'at', 'pa las': 'at',
  ...paraLas(),

  // Qualifiers.
  proximo: 'next', proxima: 'next', proximos: 'next', proximas: 'next', prox: 'next', 'el proximo': 'next', 'la proxima': 'next', 'los proximos': 'next', 'las proximas': 'next', 'las siguientes': 'next', 'los siguientes': 'next',
  siguiente: 'next', siguientes: 'next', 'que viene': 'next', 'que entra': 'next', entrante: 'next',
  pasado: 'last', pasada: 'last', pasados: 'last', pasadas: 'last', anterior: 'last', anteriores: 'last', ultimo: 'last', ultima: 'last', ultimos: 'last', ultimas: 'last',
  'el pasado': 'last', 'este pasado': 'last', 'este ultimo': 'last', 'la pasada': 'last', 'el ultimo': 'last', 'la ultima': 'last', 'los ultimos': 'last', 'las ultimas': 'last', 'las pasadas': 'last', 'los pasados': 'last', 'las anteriores': 'last',
  este: 'this', esta: 'this', estos: 'this', estas: 'this', 'este proximo': 'this', 'esta proxima': 'this',
  'despues del proximo': 'after-next', 'despues de la proxima': 'after-next', 'despues del siguiente': 'after-next',

  // Durations.
  en: 'in', dentro: 'in', 'dentro de': 'in', 'de aqui a': 'in', 'de aca a': 'in', 'en el plazo de': 'within', 'en un plazo de': 'within', 'en menos de': 'within',
  hace: 'ago', atras: 'ago', 'hace como': 'ago', 'a partir de ahora': 'from-now', 'desde ahora': 'from-now', 'a partir de este momento': 'from-now',
  'despues': 'from-now', 'mas tarde': 'from-now',
  'a partir de': 'from', 'a partir del': 'from the', 'despues de': 'after', 'despues del': 'after the', 'antes de': 'before', 'antes del': 'before the',
  un: 'num:1', una: 'num:1', uno: 'num:1', 'un par de': 'vague:2', 'par de': 'vague:2', 'unos': 'filler', 'unas': 'filler',

  // Words between the parts.
  a: 'until', 'a las': 'at', 'a la': 'at', al: 'at', 'la una': 'at num:1', las: 'at', 'sobre las': 'at', 'hacia las': 'at', 'a eso de las': 'at', 'a eso de la': 'at',
  'alrededor de las': 'at', 'alrededor de la': 'at', 'cerca de las': 'at', 'cerca de la': 'at', 'como a las': 'at', 'tipo': 'filler',
  el: 'the', la: 'the', los: 'the', lo: 'the', 'el dia': 'the', de: 'of', del: 'of the', 'de la': 'of the', 'de las': 'of at', 'de los': 'of the', y: 'and', e: 'and',
  desde: 'from', hasta: 'until', 'hasta las': 'until', 'hasta el': 'until', entre: 'between', por: 'filler', 'para el': 'by', 'para': 'by',
  'a mas tardar': 'by', 'no mas tarde de': 'by', 'antes del final de': 'by end', 'durante': 'filler', 'aproximadamente': 'filler', 'aprox': 'filler',
  'mas o menos': 'filler', 'sobre': 'filler', 'alrededor de': 'filler', 'cerca de': 'filler', 'en torno a': 'filler',
  'fin de': 'end', 'el fin de': 'end', 'al fin de': 'end', 'a fin de': 'end', 'a fines de': 'end', 'a finales de': 'end', 'a finales del': 'end', 'finales del': 'end', 'a fines del': 'end', 'fines del': 'end', 'a fin del': 'end', 'finales de': 'end',
  'el final de': 'end', 'al final de': 'end', 'final de': 'end', 'al final del': 'end', 'el final del': 'end', 'final del': 'end', 'fin del': 'end', 'al fin del': 'end',
  'al finalizar': 'end', 'al finalizar el': 'end', 'al terminar el': 'end', 'al acabar el': 'end',
  'principio de': 'start', 'principios de': 'start', 'a principios de': 'start', 'al principio de': 'start', 'inicio de': 'start', 'al inicio de': 'start',
  'comienzo de': 'start', 'a comienzos de': 'start', 'al comienzo de': 'start', 'principio del': 'start', 'a principios del': 'start', 'principios del': 'start', 'al principio del': 'start', 'a comienzos del': 'start', 'al comienzo del': 'start', 'al inicio del': 'start', 'inicio del': 'start', 'comienzo del': 'start',
  'mediados de': 'mid', 'a mediados de': 'mid', 'medio de': 'mid', 'mitad de': 'mid', 'a mitad de': 'mid', 'a mediados del': 'mid', 'mediados del': 'mid', 'a mitad del': 'mid', 'mitad del': 'mid',
  'el resto de': 'rest', 'resto de': 'rest', 'el resto del': 'rest', 'resto del': 'rest', 'lo que queda de': 'rest',
  'fin de dia': 'eod', 'fin del dia': 'eod', 'final del dia': 'eod', 'al final del dia': 'eod', 'el fin de dia': 'eod', 'al finalizar el dia': 'eod',
  'al terminar el dia': 'eod', 'a fin de dia': 'eod', 'cierre del dia': 'eod', 'al cierre': 'eod',
  cada: 'every', 'todos los': 'every', 'todas las': 'every', diario: 'every', diariamente: 'every', semanal: 'every', semanalmente: 'every',
  mensual: 'every', mensualmente: 'every', anual: 'every', anualmente: 'every',
  vispera: 'eve', 'la vispera de': 'eve', 'vispera de': 'eve',

  // Numbers (tens + "y" + units join: "treinta y cinco").
  cero: 'num:0', dos: 'num:2', tres: 'num:3', cuatro: 'num:4', cinco: 'num:5', seis: 'num:6', siete: 'num:7', ocho: 'num:8', nueve: 'num:9', diez: 'num:10',
  once: 'num:11', doce: 'num:12', trece: 'num:13', catorce: 'num:14', quince: 'num:15', dieciseis: 'num:16', diecisiete: 'num:17', dieciocho: 'num:18',
  diecinueve: 'num:19', 'diez y seis': 'num:16', 'diez y siete': 'num:17', 'diez y ocho': 'num:18', 'diez y nueve': 'num:19',
  veinte: 'num:20', veintiuno: 'num:21', veintiun: 'num:21', veintiuna: 'num:21', veintidos: 'num:22', veintitres: 'num:23', veinticuatro: 'num:24',
  veinticinco: 'num:25', veintiseis: 'num:26', veintisiete: 'num:27', veintiocho: 'num:28', veintinueve: 'num:29',
  treinta: 'num:30', cuarenta: 'num:40', cincuenta: 'num:50', sesenta: 'num:60', setenta: 'num:70', ochenta: 'num:80', noventa: 'num:90', cien: 'num:100',

  // Ordinals ("cuarto" is the quarter; "segundo" alone the ordinal: "segundo de agosto").
  primero: 'ord:1', primer: 'ord:1', primera: 'ord:1', segundo: 'ord:2', segunda: 'ord:2', tercero: 'ord:3', tercer: 'ord:3', tercera: 'ord:3',
  cuarta: 'ord:4', quinto: 'ord:5', quinta: 'ord:5', sexto: 'ord:6', sexta: 'ord:6', septimo: 'ord:7', septima: 'ord:7', setimo: 'ord:7',
  octavo: 'ord:8', octava: 'ord:8', noveno: 'ord:9', novena: 'ord:9', decimo: 'ord:10', decima: 'ord:10', undecimo: 'ord:11', 'decimo primero': 'ord:11',
  duodecimo: 'ord:12', 'decimo segundo': 'ord:12', 'decimo tercero': 'ord:13', decimotercero: 'ord:13', 'decimo cuarto': 'ord:14', decimocuarto: 'ord:14',
  'decimo quinto': 'ord:15', decimoquinto: 'ord:15', 'decimo sexto': 'ord:16', decimosexto: 'ord:16', 'decimo septimo': 'ord:17', decimoseptimo: 'ord:17',
  'decimo octavo': 'ord:18', decimoctavo: 'ord:18', 'decimo noveno': 'ord:19', decimonoveno: 'ord:19', vigesimo: 'ord:20',
  'vigesimo primero': 'ord:21', 'vigesimo primer': 'ord:21', 'vigesimo segundo': 'ord:22', 'vigesimo tercero': 'ord:23', 'vigesimo tercer': 'ord:23',
  'vigesimo cuarto': 'ord:24', 'vigesimo quinto': 'ord:25', 'vigesimo sexto': 'ord:26', 'vigesimo septimo': 'ord:27', 'vigesimo octavo': 'ord:28',
  'vigesimo noveno': 'ord:29', vigesimoprimero: 'ord:21', vigesimosegundo: 'ord:22', vigesimotercero: 'ord:23', trigesimo: 'ord:30',
  'trigesimo primero': 'ord:31', 'trigesimo primer': 'ord:31', trigesimoprimero: 'ord:31',
  // "1º", "1ro", "1er", "1ero", "3ro". Not "2do", "4to", "9no": the English "to", "do", "no" would read "15 to noon" as the 15th.
  o: 'ord-suffix', er: 'ord-suffix', ero: 'ord-suffix', ro: 'ord-suffix',

  ...dayWordDates(),

  // Holidays: names only; the dates come from date-holidays (src/time/holidays.ts).
  navidad: 'holiday:christmas', navidades: 'holiday:christmas', 'dia de navidad': 'holiday:christmas', 'la navidad': 'holiday:christmas',
  nochebuena: 'eve holiday:christmas', 'noche buena': 'eve holiday:christmas', 'vispera de navidad': 'eve holiday:christmas',
  'año nuevo': 'holiday:new-year', 'dia de año nuevo': 'holiday:new-year', 'el año nuevo': 'holiday:new-year',
  nochevieja: 'eve holiday:new-year', 'noche vieja': 'eve holiday:new-year', 'fin de año': 'eve holiday:new-year', 'vispera de año nuevo': 'eve holiday:new-year',
  pascua: 'holiday:easter', 'domingo de pascua': 'holiday:easter', 'domingo de resurreccion': 'holiday:easter', 'pascua de resurreccion': 'holiday:easter',
  'lunes de pascua': 'holiday:easter-monday', 'viernes santo': 'holiday:good-friday',
  'dia de todos los santos': 'holiday:all-saints', 'todos los santos': 'holiday:all-saints',
  'san valentin': 'holiday:valentines-day', 'dia de san valentin': 'holiday:valentines-day', 'dia de los enamorados': 'holiday:valentines-day',
  'noche de brujas': 'holiday:halloween', 'dia de brujas': 'holiday:halloween',
  'san patricio': 'holiday:st-patricks-day', 'dia de san patricio': 'holiday:st-patricks-day',
  'dia de la tierra': 'holiday:earth-day', 'dia de la madre tierra': 'holiday:earth-day',
  'dia del trabajo': 'holiday:workers-day', 'dia del trabajador': 'holiday:workers-day', 'dia de los trabajadores': 'holiday:workers-day',
  'dia internacional del trabajo': 'holiday:workers-day', 'dia internacional de los trabajadores': 'holiday:workers-day', 'primero de mayo': 'holiday:workers-day',
  'accion de gracias': 'holiday:thanksgiving', 'dia de accion de gracias': 'holiday:thanksgiving',
  'dia de la madre': 'holiday:mothers-day', 'dia de las madres': 'holiday:mothers-day', 'dia del padre': 'holiday:fathers-day', 'dia de los padres': 'holiday:fathers-day',
  'dia de la independencia': 'holiday:independence-day', 'dia de independencia': 'holiday:independence-day',
  'dia de martin luther king': 'holiday:mlk-day', 'dia de los presidentes': 'holiday:presidents-day',
  'viernes negro': 'holiday:black-friday',
  'navidad ortodoxa': 'holiday:orthodox-christmas', 'pascua ortodoxa': 'holiday:orthodox-easter',
  'rosh hashana': 'holiday:rosh-hashanah', 'rosh hashaná': 'holiday:rosh-hashanah', 'año nuevo judio': 'holiday:rosh-hashanah', 'yom kipur': 'holiday:yom-kippur',
  januca: 'holiday:hanukkah', janucá: 'holiday:hanukkah', jánuca: 'holiday:hanukkah', hanuka: 'holiday:hanukkah', pesaj: 'holiday:passover', 'pascua judia': 'holiday:passover',
  ramadan: 'holiday:ramadan', 'fiesta del cordero': 'holiday:eid-al-adha', 'fin del ramadan': 'holiday:eid-al-fitr', 'año nuevo islamico': 'holiday:islamic-new-year',
};

/**
 * Holidays with the words before them: "en Navidad" ("en" is otherwise "in" a duration), and
 * "el día de la madre", "del día del padre" ("el día", "del día" are otherwise the day of the
 * month: "el día 15").
 */
for (const [phrase, symbols] of Object.entries(phrases)) {
  if (!/(?:^| )holiday:/.test(symbols)) continue;
  phrases[`en ${phrase}`] ??= `on ${symbols}`;
  if (!phrase.startsWith('dia ')) continue;
  phrases[`el ${phrase}`] ??= symbols;
  phrases[`del ${phrase}`] ??= `of ${symbols}`;
  phrases[`en el ${phrase}`] ??= `on ${symbols}`;
}

/** Spanish words for time. */
export const spanish: LexiconSource = { language: 'es', phrases };
