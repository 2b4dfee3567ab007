import { DateTime, FixedOffsetZone, IANAZone, type Zone } from 'luxon';
import type { ClockTime } from './grammar/clock.js';
import type { Component } from './grammar/phrase.js';
import type { TimeOptions, TimeReading, TimeResolution } from './resolution.js';
import { formatClock, hourOf, placeOnDay } from './rules/clock.js';
import { resolveDaySpec, type DayAnswer } from './rules/days.js';
import { partSpan, resolveSpan } from './rules/spans.js';
import type { PartOfDay } from './symbols.js';

type Only<K extends Component['c']> = Extract<Component, { c: K }>;

function error(reason: Extract<TimeResolution, { kind: 'error' }>['reason'], message: string): TimeResolution {
  return { kind: 'error', reason, message };
}

/** Milliseconds in a clock quantity ("1 hour 30 minutes"). */
function clockMillis(parts: Partial<Record<string, number>>): number {
  return ((parts.hour ?? 0) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0)) * 1000;
}

/** Nothing Herald plans for is centuries away: "in 100000 years" is a joke, not a date. */
const maximumYearsAway = 100;

/** The zone a time named for itself ("3pm EST"), or undefined. */
function zoneOf(clock: ClockTime): Zone | undefined {
  if (clock.zone === undefined) return undefined;
  if (typeof clock.zone === 'number') return FixedOffsetZone.instance(clock.zone);
  return IANAZone.isValidZone(clock.zone) ? IANAZone.create(clock.zone) : undefined;
}

/** A time with no day: the next time the clock shows it (convention: a time already past today is tomorrow). */
function nextTime(clock: ClockTime, part: PartOfDay | undefined, userNow: DateTime): TimeResolution {
  // A time in another zone ("5pm PST") is the next time that zone's clock shows it, told in the user's zone.
  const zone = zoneOf(clock);
  const now = zone ? userNow.setZone(zone) : userNow;
  const answer = nextTimeHere(clock, part, now);
  return answer.kind === 'moment' && zone ? { ...answer, moment: answer.moment.setZone(userNow.zone) } : answer;
}

function nextTimeHere(clock: ClockTime, part: PartOfDay | undefined, now: DateTime): TimeResolution {
  const hour = hourOf(clock, part, false);
  if (!hour.ok) return error('invalid', hour.message);
  const today = now.startOf('day');
  const notes = [...hour.notes];
  const candidates = hour.guessed === 'next' ? [hour.hour % 12, (hour.hour % 12) + 12] : [hour.hour];
  const startOfMinute = now.startOf('minute');
  for (const day of [today, today.plus({ days: 1 })]) {
    for (const candidate of candidates) {
      const placeNotes: string[] = [];
      const moment = placeOnDay(day, candidate, clock.minute, clock.second, placeNotes);
      if (moment < startOfMinute) continue;
      if (hour.guessed === 'next') {
        const other = candidate >= 12 ? candidate - 12 : candidate + 12;
        notes.push(`No am/pm was given, so it is the next ${formatClock(clock.hour, clock.minute)} on the clock: ${formatClock(candidate, clock.minute)}; it may mean ${formatClock(other, clock.minute)}.`);
      }
      if (!day.equals(today)) notes.push('That time has passed today, so it means tomorrow.');
      return { kind: 'moment', moment, notes: [...notes, ...placeNotes] };
    }
  }
  return error('invalid', 'No such time.');
}

function fromDayAnswer(answer: DayAnswer, build: (day: DateTime, notes: string[]) => TimeReading | TimeResolution): TimeResolution {
  if (answer.ok === false) return error('invalid', answer.message);
  if (answer.ok === 'ambiguous') {
    const readings: Array<TimeReading & { label: string }> = [];
    for (const candidate of answer.days) {
      const reading = build(candidate.day, []);
      if (reading.kind === 'ambiguous' || reading.kind === 'error') return reading;
      readings.push({ ...reading, label: candidate.label });
    }
    return { kind: 'ambiguous', readings, reason: answer.reason };
  }
  return build(answer.day, [...answer.notes]);
}

/** A day with its year set, when it is a kind of day that takes one and has none yet. */
function withYearOf(day: Only<'day'>, year: number): Only<'day'> | undefined {
  const spec = day.spec;
  if ((spec.d === 'date' || spec.d === 'holiday') && spec.year === undefined && (spec.d === 'holiday' || spec.month !== undefined)) return { ...day, spec: { ...spec, year } };
  if (spec.d === 'numeric' && spec.year === undefined) return { ...day, spec: { ...spec, year } };
  if (spec.d === 'nth-weekday' && spec.month !== undefined && spec.year === undefined) return { ...day, spec: { ...spec, year } };
  return undefined;
}

/**
 * Turns a phrase's components into an answer. At most one of each (a day, a time, a part of
 * the day); two days must name the same one ("friday, march 3"); an offset or a span stands
 * alone. Anything else is a conflict, not a guess.
 */
function interpretComponents(components: Component[], now: DateTime, options: TimeOptions): TimeResolution {
  if (components.length === 0) return error('empty', 'No date or time was found.');
  const of = <K extends Component['c']>(kind: K): Array<Only<K>> => components.filter((component): component is Only<K> => component.c === kind);
  const days = of('day');
  const times = of('time');
  const parts = of('part');
  const spans = of('span');
  const offsets = of('offset');
  const nows = of('now');
  const ends = of('eod');
  if (times.length > 1) return error('conflict', `Two times were given: ${times.map((time) => `"${time.text}"`).join(' and ')}.`);
  if (parts.length > 1) return error('conflict', `Two parts of the day were given: ${parts.map((part) => `"${part.text}"`).join(' and ')}.`);
  if (days.length > 2) return error('conflict', 'Too many days were given.');

  if (offsets.length > 0 || nows.length > 0) {
    if (components.length > 1) return error('conflict', 'A duration from now cannot be combined with another date or time.');
    const offset = offsets[0];
    if (!offset) return { kind: 'moment', moment: now.startOf('second'), notes: [] };
    const { parts: amounts } = offset.quantity;
    const sign = offset.sign;
    const calendar = { years: sign * (amounts.year ?? 0), months: sign * (amounts.month ?? 0), weeks: sign * (amounts.week ?? 0), days: sign * ((amounts.day ?? 0) + 14 * (amounts.fortnight ?? 0)) };
    return { kind: 'moment', moment: now.startOf('minute').plus(calendar).plus({ milliseconds: sign * clockMillis(amounts) }), notes: [] };
  }

  // "wed oct 26 15:50:06 2016", "28 june in 2020": a year written apart from its date.
  const yearSpan = spans.length === 1 && spans[0]?.spec.s === 'year' ? spans[0].spec : undefined;
  if (yearSpan && days.length > 0) {
    const withYear = days.map((day) => withYearOf(day, yearSpan.year));
    if (withYear.some((day) => day === undefined)) return error('conflict', 'The year cannot be applied to that day.');
    return interpretComponents([...components.filter((component) => component.c !== 'span' && component.c !== 'day'), ...(withYear as Array<Only<'day'>>)], now, options);
  }

  if (spans.length > 0) {
    if (components.length > 1) return error('conflict', `"${spans[0]?.text ?? ''}" is a span and cannot be combined with another date or time.`);
    const span = spans[0];
    if (!span) return error('empty', 'No span.');
    const answer = resolveSpan(span.spec, now, options);
    if ('error' in answer) return error('invalid', answer.error);
    return { kind: 'range', start: answer.start, end: answer.end, notes: answer.notes };
  }

  const today = now.startOf('day');
  const part = parts[0]?.part;
  const time = times[0];
  const [firstDay, secondDay] = days;
  let answer: DayAnswer | undefined = firstDay ? resolveDaySpec(firstDay.spec, today, options) : undefined;
  if (answer && secondDay) {
    const other = resolveDaySpec(secondDay.spec, today, options);
    if (answer.ok === true && other.ok === true && !answer.day.equals(other.day)) {
      answer = { ok: 'ambiguous', days: [{ day: answer.day, label: `"${firstDay?.text ?? ''}"` }, { day: other.day, label: `"${secondDay.text}"` }], reason: 'The phrase names two different days.' };
    } else if (other.ok !== true) {
      answer = other;
    }
  }

  if (ends.length > 0) {
    if (time || part || ends.length > 1) return error('conflict', '"end of day" cannot be combined with another time.');
    const endOfDay = (day: DateTime, notes: string[]): TimeReading => ({ kind: 'moment', moment: day.endOf('day').startOf('second'), notes: [...notes, '"end of day" is read as 23:59:59.'] });
    return answer ? fromDayAnswer(answer, endOfDay) : endOfDay(today, []);
  }

  if (!answer) {
    if (time) return nextTime(time.clock, part, now);
    if (part) {
      const span = partSpan(today, part);
      return { kind: 'day', day: today, part, notes: span.notes };
    }
    return error('empty', 'No date or time was found.');
  }

  return fromDayAnswer(answer, (answerDay, notes) => {
    let day = answerDay;
    if (!time) {
      if (part) return { kind: 'day', day, part, notes: [...notes, ...partSpan(day, part).notes] };
      return { kind: 'day', day, notes };
    }
    const hour = hourOf(time.clock, part, true);
    if (!hour.ok) return error('invalid', hour.message);
    const allNotes = [...notes, ...hour.notes];
    // "tonight at 2", "friday night at 1": the small hours of that night, after midnight (unless
    // it is already that night's small hours and the hour is ahead: at 00:30, "tonight at 2" is in 90 minutes).
    if (part === 'night' && hour.hour < 6 && !(day.equals(today) && now.hour < 6 && hour.hour > now.hour)) day = day.plus({ days: 1 });
    const zone = zoneOf(time.clock);
    if (zone) {
      // "friday 12pm PST": the day by the user's rules, the time on that zone's clock, told in the user's zone.
      const there = DateTime.fromObject({ year: day.year, month: day.month, day: day.day, hour: hour.hour, minute: time.clock.minute, second: time.clock.second }, { zone });
      return { kind: 'moment', moment: there.setZone(day.zone), notes: allNotes };
    }
    const moment = placeOnDay(day, hour.hour, time.clock.minute, time.clock.second, allNotes);
    return { kind: 'moment', moment, notes: allNotes };
  });
}

/**
 * The answer, or an error when it lands more than {@link maximumYearsAway} years from now and
 * no year was written ("5 December 1391" is a date; "in 100000 years" is not).
 */
export function interpret(components: Component[], now: DateTime, options: TimeOptions): TimeResolution {
  const answer = interpretComponents(components, now, options);
  const yearWritten = components.some((component) => (component.c === 'day' && 'year' in component.spec && component.spec.year !== undefined) || (component.c === 'span' && component.spec.s === 'year'));
  if (yearWritten) return answer;
  const moments = answer.kind === 'ambiguous' ? answer.readings : answer.kind === 'error' ? [] : [answer];
  const far = moments.some((reading) => {
    const at = reading.kind === 'moment' ? reading.moment : reading.kind === 'day' ? reading.day : reading.start;
    return Math.abs(at.year - now.year) > maximumYearsAway;
  });
  return far ? error('invalid', `That is more than ${maximumYearsAway} years away.`) : answer;
}
