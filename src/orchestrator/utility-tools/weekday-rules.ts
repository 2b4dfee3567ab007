import { DateTime } from 'luxon';
import { describeDay, startOfWeek, type ResolvedDay } from './resolved-day.js';
import { formattingLocale } from './time-context.js';

/*
 * The rules resolve_date applies itself, before chrono-node: weekdays ("next friday", "friday
 * next week": chrono's "next" and "last" differ from Herald's rule) and a bare day of the month
 * ("the 15th": chrono finds nothing).
 */

/** Luxon weekday numbers (1 = Monday … 7 = Sunday) by English name and abbreviation. */
const weekdayNumbers: Record<string, number> = {
  monday: 1, mon: 1,
  tuesday: 2, tue: 2, tues: 2,
  wednesday: 3, wed: 3,
  thursday: 4, thu: 4, thur: 4, thurs: 4,
  friday: 5, fri: 5,
  saturday: 6, sat: 6,
  sunday: 7, sun: 7,
};

const weekdayAlternation = Object.keys(weekdayNumbers)
  .sort((left, right) => right.length - left.length)
  .join('|');

/** "friday", "this friday", "next fri", "last friday", "on friday". */
export const weekdayPattern = new RegExp(
  `\\b(?:(this coming|coming|this|next|last|past|previous)\\s+)?(${weekdayAlternation})\\b`,
);

/** "friday next week", "friday of this week", "friday in last week". */
export const weekdayThenWeekPattern = new RegExp(
  `\\b(${weekdayAlternation})\\b,?\\s+(?:of\\s+|in\\s+)?(this|next|last)\\s+week\\b`,
);

/** "next week friday", "next week on friday", "this week's friday". */
export const weekThenWeekdayPattern = new RegExp(
  `\\b(this|next|last)\\s+week(?:'s)?,?\\s+(?:on\\s+)?(${weekdayAlternation})\\b`,
);

/** "the 1st", "on the 15th", "3rd" — a day of the month with no month named. */
const ordinalDayPattern = /\b(?:on\s+)?(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b/;

/** Any English month name or abbreviation. */
export const monthNamePattern =
  /\b(?:january|jan|february|feb|march|mar|april|apr|may|june|jun|july|jul|august|aug|september|sept|sep|october|oct|november|nov|december|dec)\b/;

/** English names for the weekdays, by luxon weekday number. */
function weekdayName(weekday: number): string {
  return DateTime.fromObject({ year: 2026, month: 1, day: 4 + weekday }).setLocale(formattingLocale).toFormat('cccc');
}

/**
 * The weekday rule. With today being `now`'s date:
 *
 * - "friday", "this friday", "coming friday", "on friday": the next Friday, today included —
 *   on a Friday, "friday" is today (0–6 days ahead).
 * - "next friday": the Friday after that one, always 7–13 days ahead (on Wednesday
 *   2026-01-28, "friday" is 2026-01-30 and "next friday" 2026-02-06). It is never the
 *   tomorrow-ish Friday, even on a Thursday; a note names the coming Friday in case the user
 *   meant it.
 * - "last friday": the most recent Friday before today (1–7 days back).
 * - "friday this week" / "friday next week" / "friday last week": the Friday of that calendar
 *   week, weeks starting on `weekStartsOn` (Monday by default); may be in the past.
 */
export function resolveWeekday(
  normalized: string,
  today: DateTime,
  weekStartsOn: number,
): ResolvedDay | undefined {
  const weekQualified = weekdayThenWeekPattern.exec(normalized);
  const weekFirst = weekThenWeekdayPattern.exec(normalized);
  if (weekQualified ?? weekFirst) {
    const phrase = (weekQualified ?? weekFirst)?.[0] ?? '';
    const [weekdayText, week] = weekQualified ? [weekQualified[1], weekQualified[2]] : [weekFirst?.[2], weekFirst?.[1]];
    const weekday = weekdayNumbers[weekdayText ?? ''];
    if (weekday === undefined) return undefined;
    const weeksAhead = week === 'next' ? 1 : week === 'last' ? -1 : 0;
    const weekStart = startOfWeek(today, weekStartsOn).plus({ weeks: weeksAhead });
    const day = weekStart.plus({ days: (weekday % 7 - weekStartsOn + 7) % 7 });
    return { day, notes: [`"${phrase}" is read as that day in the calendar week (weeks start on ${weekdayName(weekStartsOn === 0 ? 7 : weekStartsOn)}).`] };
  }

  const match = weekdayPattern.exec(normalized);
  if (!match) return undefined;
  const qualifier = match[1];
  const weekdayText = match[2] ?? '';
  const weekday = weekdayNumbers[weekdayText];
  if (weekday === undefined) return undefined;
  const name = weekdayName(weekday);
  const daysUntilComing = (weekday - today.weekday + 7) % 7;
  const coming = today.plus({ days: daysUntilComing });

  if (qualifier === 'next') {
    const day = coming.plus({ weeks: 1 });
    return {
      day,
      notes: [
        `"next ${name}" is read as the ${name} after the coming one (always 7–13 days ahead); the coming ${name} is ${describeDay(coming)}. Confirm with the user if they may have meant that one.`,
      ],
    };
  }
  if (qualifier === 'last' || qualifier === 'past' || qualifier === 'previous') {
    const daysBack = (today.weekday - weekday + 7) % 7 || 7;
    return { day: today.minus({ days: daysBack }), notes: [`"${qualifier} ${name}" is read as the most recent ${name} before today.`] };
  }
  const notes = daysUntilComing === 0
    ? [`Today is ${name}, so "${match[0]}" means today; the ${name} after is ${describeDay(coming.plus({ weeks: 1 }))}.`]
    : [];
  return { day: coming, notes };
}

/**
 * "the 15th": the next 15th of a month, today included; months without that day are skipped
 * ("the 31st" in February is March 31). With a weekday ("monday the 2nd", "friday the 13th")
 * it is the next such date that falls on that weekday.
 */
export function resolveOrdinalDay(normalized: string, today: DateTime): ResolvedDay | undefined {
  const match = ordinalDayPattern.exec(normalized);
  // With a month named ("31st of february") chrono owns the date; if it found none, neither do we.
  if (!match || monthNamePattern.test(normalized)) return undefined;
  const dayOfMonth = Number(match[1]);
  if (dayOfMonth < 1 || dayOfMonth > 31) return undefined;
  const ordinal = `${dayOfMonth}${ordinalSuffix(dayOfMonth)}`;
  const weekdayText = weekdayPattern.exec(normalized)?.[2];
  const weekday = weekdayText === undefined ? undefined : weekdayNumbers[weekdayText];

  const candidates: DateTime[] = [];
  // Two years always contain every weekday/day-of-month pairing that exists at all.
  for (let monthsAhead = 0; monthsAhead < 28; monthsAhead += 1) {
    const month = today.startOf('month').plus({ months: monthsAhead });
    if (dayOfMonth > (month.daysInMonth ?? 0)) continue;
    const day = month.set({ day: dayOfMonth });
    if (day >= today) candidates.push(day);
  }
  const first = candidates[0];
  if (!first) return undefined;
  const notes = [`A day of the month with no month named is read as the next ${ordinal}, today included.`];
  if (weekday === undefined) {
    if (first.month !== today.month && dayOfMonth > (today.daysInMonth ?? 31)) {
      notes.push(`${today.setLocale(formattingLocale).toFormat('LLLL')} has no ${ordinal}.`);
    }
    return { day: first, notes };
  }
  const onWeekday = candidates.find((candidate) => candidate.weekday === weekday);
  if (onWeekday) {
    if (onWeekday !== first) notes.push(`The next ${ordinal} on a ${weekdayName(weekday)} was used; the next ${ordinal} is ${describeDay(first)}.`);
    return { day: onWeekday, notes };
  }
  notes.push(`No ${ordinal} falls on a ${weekdayName(weekday)} soon, so the weekday was ignored.`);
  return { day: first, notes };
}

function ordinalSuffix(value: number): string {
  if (value % 100 >= 11 && value % 100 <= 13) return 'th';
  return value % 10 === 1 ? 'st' : value % 10 === 2 ? 'nd' : value % 10 === 3 ? 'rd' : 'th';
}
