import { getTimezone } from 'countries-and-timezones';
import { DateTime } from 'luxon';

/** One zone Herald offers, as the user tells it: the time on their clock and a city. */
export interface ZoneChoice {
  timezone: string;
  label: string;
}

/**
 * The zone each clock is shown by, when a number's zones include it: the city people know
 * (New York for the US Eastern clock, not Detroit). Only which name to show; the candidates
 * themselves come from libphonenumber's mapping.
 */
const shownFirst = [
  'America/New_York', 'America/Chicago', 'America/Denver', 'America/Phoenix', 'America/Los_Angeles', 'America/Anchorage', 'Pacific/Honolulu',
  'America/Toronto', 'America/Vancouver', 'America/Edmonton', 'America/Winnipeg', 'America/Halifax', 'America/St_Johns', 'America/Puerto_Rico',
  'America/Mexico_City', 'America/Cancun', 'America/Tijuana', 'America/Sao_Paulo', 'America/Manaus', 'Europe/Moscow', 'Asia/Yekaterinburg',
  'Asia/Novosibirsk', 'Asia/Vladivostok', 'Australia/Sydney', 'Australia/Brisbane', 'Australia/Adelaide', 'Australia/Perth',
];

/** Most choices in one question: a longer list is not read on a phone. */
const maximumChoices = 8;

function cityOf(timezone: string): string {
  return (timezone.split('/').pop() ?? timezone).replace(/_/g, ' ');
}

/**
 * The choices for "which time is it where you are?": the number's zones, those of its own
 * country first, one per clock showing now (so each option is a different time), east to west,
 * each labelled with its time now and a city.
 */
export function zoneChoices(candidates: string[], country: string | undefined, now: Date, language: string): ZoneChoice[] {
  const own = candidates.filter((zone) => country !== undefined && (getTimezone(zone)?.countries as string[] | undefined)?.includes(country));
  const pool = own.length > 0 ? own : candidates;
  const byOffset = new Map<number, string[]>();
  for (const zone of pool) {
    const offset = DateTime.fromJSDate(now, { zone }).offset;
    byOffset.set(offset, [...(byOffset.get(offset) ?? []), zone]);
  }
  const rank = (zone: string): number => {
    const shown = shownFirst.indexOf(zone);
    if (shown !== -1) return shown;
    // tzdb's canonical names before their links, then in the mapping's order.
    return shownFirst.length + (getTimezone(zone)?.aliasOf ? 1_000 : 0) + pool.indexOf(zone);
  };
  const twelveHour = language === 'en';
  return [...byOffset.entries()]
    .sort(([left], [right]) => right - left)
    .slice(0, maximumChoices)
    .map(([, zones]) => {
      const timezone = [...zones].sort((left, right) => rank(left) - rank(right))[0] ?? zones[0] ?? 'UTC';
      const time = DateTime.fromJSDate(now, { zone: timezone }).toFormat(twelveHour ? 'h:mm a' : 'HH:mm').toLowerCase();
      return { timezone, label: `${time} (${cityOf(timezone)})` };
    });
}

/** "New York", for replies. */
export function zoneName(timezone: string): string {
  return cityOf(timezone);
}
