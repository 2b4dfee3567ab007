import ICAL from 'ical.js';

/*
 * ical.js looks for a rule's next occurrence by stepping the rule's frequency until every
 * BY-part matches. It gives up on a MONTHLY or YEARLY rule that matches nothing, but not on
 * the others: "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31" (no February 31st) or "FREQ=HOURLY;BYHOUR=25"
 * steps forever, and "FREQ=SECONDLY;BYMONTH=2" from March steps 28 million seconds to reach
 * the next February. Any calendar (a CalDAV server's, an invitation) can carry such a rule;
 * the parse worker's budget would stop it, but the whole read would fail with it. So a rule
 * that can never produce a second occurrence, or would take millions of steps to, is left out:
 * what remains (RFC 5545) is the event at its DTSTART, and its RDATEs.
 */

/** Days looked at for a date the rule's BY-parts accept: four years and a week hold every combination (a leap day, every weekday). */
const DAYS_SCANNED = 4 * 366 + 7;

type DayPart = 'BYMONTH' | 'BYMONTHDAY' | 'BYYEARDAY' | 'BYWEEKNO' | 'BYDAY';

/**
 * The day-level BY-parts ical.js checks by plain equality on each step (its "contracting"
 * rules, RecurIterator._expandMap) for each frequency it can search forever: a value that
 * equality never meets (a negative month day, "-1FR", February 31st) is never met.
 */
const CONTRACTING: Partial<Record<string, readonly DayPart[]>> = {
  SECONDLY: ['BYMONTH', 'BYMONTHDAY', 'BYYEARDAY', 'BYWEEKNO', 'BYDAY'],
  MINUTELY: ['BYMONTH', 'BYMONTHDAY', 'BYYEARDAY', 'BYWEEKNO', 'BYDAY'],
  HOURLY: ['BYMONTH', 'BYMONTHDAY', 'BYYEARDAY', 'BYWEEKNO', 'BYDAY'],
  DAILY: ['BYMONTH', 'BYMONTHDAY', 'BYYEARDAY', 'BYWEEKNO', 'BYDAY'],
  WEEKLY: ['BYMONTH', 'BYWEEKNO'],
};

/** The event's occurrences (ical.js's iterator), without its rule when the rule cannot be followed safely (RDATEs and EXDATEs still apply). */
export function occurrencesOf(master: ICAL.Component): ICAL.RecurExpansion {
  const rule = master.getFirstPropertyValue('rrule') as ICAL.Recur | null;
  if (!rule || canFollow(rule, master.getFirstPropertyValue('dtstart') as ICAL.Time | null)) return new ICAL.Event(master).iterator();
  const withoutRule = new ICAL.Component(master.toJSON() as unknown[]);
  withoutRule.removeAllProperties('rrule');
  return new ICAL.Event(withoutRule).iterator();
}

/** Whether ical.js can step through `rule` from `start` without an endless or enormous search. */
function canFollow(rule: ICAL.Recur, start: ICAL.Time | null): boolean {
  const contracting = CONTRACTING[rule.freq];
  if (!contracting) return true; // MONTHLY and YEARLY: ical.js gives up on those itself
  const parts = rule.parts as Partial<Record<DayPart, Array<number | string>>>;
  const used = contracting.filter((part) => (parts[part]?.length ?? 0) > 0);
  if (used.length === 0 || !start) return true;
  // Every second or minute of the days between two matching days: millions of steps.
  if (rule.freq === 'SECONDLY' || rule.freq === 'MINUTELY') return false;
  const day = ICAL.Time.fromData({ year: start.year, month: start.month, day: start.day, isDate: true });
  for (let index = 0; index < DAYS_SCANNED; index += 1, day.adjust(1, 0, 0, 0)) {
    if (used.every((part) => parts[part]!.some((wanted) => String(wanted) === String(valueOf(part, day, rule.wkst))))) return true;
  }
  return false;
}

/** The day's value for a BY-part, as ical.js compares it. */
function valueOf(part: DayPart, day: ICAL.Time, weekStart: number): number | string {
  switch (part) {
    case 'BYMONTH':
      return day.month;
    case 'BYMONTHDAY':
      return day.day;
    case 'BYYEARDAY':
      return day.dayOfYear();
    case 'BYWEEKNO':
      return day.weekNumber(weekStart);
    case 'BYDAY':
      return ICAL.Recur.numericDayToIcalDay(day.dayOfWeek());
  }
}
