import Holidays from 'date-holidays';

/*
 * Holiday dates come from date-holidays (a maintained library of public holidays for ~200
 * countries, with Hebrew, Islamic and Easter calendars). Herald keeps only the names people
 * use for them (each language's lexicon maps "navidad", "חנוכה", "عيد الفطر" to a key) and
 * which calendar rule, or which country's list, each key is read from.
 */

/** Where a holiday's date comes from. */
interface HolidaySource {
  /** A date-holidays rule ("12-25", "easter -2", "1 Tishrei", "4th thursday in November"). */
  rule?: string;
  /** Looked up by English name in the user's country's list, when that country keeps it. */
  name?: RegExp;
  /** Looked up in this country's list (Purim in a leap year is in Adar II: Israel's list knows). */
  country?: string;
  /** Whose holiday the rule is, when the user's own country does not keep it ("US"). */
  ruleOf?: string;
  /** Countries whose rule differs, where date-holidays keeps it only by province (Canada's Thanksgiving). */
  countryRules?: Record<string, string>;
}

const catalog: Record<string, HolidaySource> = {
  christmas: { rule: '12-25' },
  'boxing-day': { rule: '12-26' },
  'new-year': { rule: '01-01' },
  easter: { rule: 'easter' },
  'easter-monday': { rule: 'easter 1' },
  'good-friday': { rule: 'easter -2' },
  'orthodox-easter': { rule: 'orthodox' },
  'orthodox-christmas': { rule: '01-07' },
  'all-saints': { rule: '11-01' },
  'valentines-day': { rule: '02-14' },
  halloween: { rule: '10-31' },
  'st-patricks-day': { rule: '03-17' },
  'earth-day': { rule: '04-22' },
  'workers-day': { rule: '05-01' },
  'black-friday': { rule: 'friday after 4th thursday in November', ruleOf: 'US' },
  'cyber-monday': { rule: 'monday after 4th thursday in November', ruleOf: 'US' },
  thanksgiving: { name: /^thanksgiving( day)?$/i, rule: '4th thursday in November', ruleOf: 'US', countryRules: { CA: '2nd monday in October' } },
  'mothers-day': { name: /^mother'?s'? day$|^mothering sunday$/i, rule: '2nd sunday in May', ruleOf: 'US' },
  'fathers-day': { name: /^father'?s'? day$/i, rule: '3rd sunday in June', ruleOf: 'US' },
  'independence-day': { name: /^independence day$/i },
  'memorial-day': { name: /^memorial day$/i, rule: 'monday before 06-01', ruleOf: 'US' },
  'labor-day': { name: /^labou?r day$/i, rule: '1st monday in September', ruleOf: 'US' },
  'mlk-day': { rule: '3rd monday in January', ruleOf: 'US' },
  'presidents-day': { rule: '3rd monday in February', ruleOf: 'US' },
  'columbus-day': { rule: '2nd monday in October', ruleOf: 'US' },
  'veterans-day': { rule: '11-11', ruleOf: 'US' },
  juneteenth: { rule: '06-19', ruleOf: 'US' },
  'victory-day': { name: /^victory day$/i, rule: '05-09', ruleOf: 'RU' },
  'rosh-hashanah': { rule: '1 Tishrei' },
  'yom-kippur': { rule: '10 Tishrei' },
  sukkot: { rule: '15 Tishrei' },
  'simchat-torah': { country: 'IL', name: /simchat torah/i },
  hanukkah: { rule: '25 Kislev' },
  'tu-bishvat': { rule: '15 Shvat' },
  purim: { country: 'IL', name: /^purim$/i },
  passover: { rule: '15 Nisan' },
  'yom-haatzmaut': { country: 'IL', name: /^independence day/i },
  'yom-hashoah': { country: 'IL', name: /yom hashoah/i },
  'yom-hazikaron': { country: 'IL', name: /yom hazikaron/i },
  'lag-baomer': { country: 'IL', name: /lag baomer/i },
  shavuot: { rule: '6 Sivan' },
  'tisha-bav': { rule: '9 Av' },
  ramadan: { rule: '1 Ramadan' },
  'eid-al-fitr': { rule: '1 Shawwal' },
  'eid-al-adha': { rule: '10 Dhu al-Hijjah' },
  'islamic-new-year': { rule: '1 Muharram' },
  mawlid: { rule: '12 Rabi al-awwal' },
};

/** Holidays of the Islamic calendar: their day depends on the moon's sighting where the user is. */
const islamic = new Set(['ramadan', 'eid-al-fitr', 'eid-al-adha', 'islamic-new-year', 'mawlid']);

/** A holiday on the calendar: its first day, and a note when whose holiday it is was assumed. */
export type HolidayDate = { date: string; note?: string | undefined } | { error: string };

const byCountry = new Map<string, Holidays | undefined>();
const byRule = new Map<string, Holidays>();
const dates = new Map<string, string | undefined>();

function countryList(country: string): Holidays | undefined {
  if (!byCountry.has(country)) {
    const holidays = new Holidays();
    holidays.init(country, { languages: ['en'] });
    // date-holidays keeps no country it does not know (and says so by having no name for it).
    byCountry.set(country, holidays.getCountries('en')[country.toUpperCase()] === undefined ? undefined : holidays);
  }
  return byCountry.get(country);
}

function ruleList(rule: string): Holidays {
  let holidays = byRule.get(rule);
  if (!holidays) {
    holidays = new Holidays();
    holidays.setHoliday(rule, { name: rule, type: 'public' });
    byRule.set(rule, holidays);
  }
  return holidays;
}

/** The first day (YYYY-MM-DD) of the holiday a list names, in `year`. */
function fromList(list: Holidays, year: number, name?: RegExp): string | undefined {
  const found = list.getHolidays(year, 'en').find((holiday) => name === undefined || name.test(holiday.name));
  return found?.date.slice(0, 10);
}

function lookup(key: string, source: HolidaySource, year: number, country: string | undefined): { date?: string | undefined; assumed?: string | undefined } {
  const cacheKey = `${key}|${year}|${country ?? ''}`;
  if (source.country) {
    if (!dates.has(cacheKey)) {
      const list = countryList(source.country);
      dates.set(cacheKey, list ? fromList(list, year, source.name) : undefined);
    }
    return { date: dates.get(cacheKey) };
  }
  if (source.name && country) {
    if (!dates.has(cacheKey)) {
      const list = countryList(country);
      dates.set(cacheKey, list ? fromList(list, year, source.name) : undefined);
    }
    const date = dates.get(cacheKey);
    if (date) return { date };
  }
  const countryRule = country ? source.countryRules?.[country] : undefined;
  const rule = countryRule ?? source.rule;
  if (!rule) return {};
  const ruleKey = `rule|${rule}|${year}`;
  if (!dates.has(ruleKey)) dates.set(ruleKey, fromList(ruleList(rule), year));
  const assumed = !countryRule && source.ruleOf && source.ruleOf !== country ? source.ruleOf : undefined;
  return { date: dates.get(ruleKey), assumed };
}

/**
 * The first day of holiday `key` in `year`, for a user in `country` (ISO 3166-1 alpha-2,
 * when known): their country's own date where it keeps the holiday (Canada's Thanksgiving,
 * Britain's Mothering Sunday), else the rule, with a note saying whose holiday that is.
 */
export function holidayDate(key: string, year: number, country: string | undefined): HolidayDate {
  const source = catalog[key];
  if (!source) return { error: `Herald does not know the holiday "${key}".` };
  const found = lookup(key, source, year, country);
  if (!found.date) {
    return { error: source.rule || source.country ? `No date for "${key}" in ${year}.` : `Which country's "${key.replace(/-/g, ' ')}" is meant is not known; name the country or the date.` };
  }
  const notes = [
    found.assumed ? `Read as the ${found.assumed} ${key.replace(/-/g, ' ')}.` : undefined,
    islamic.has(key) ? 'By the Umm al-Qura calendar; where the moon is sighted it may be a day earlier or later.' : undefined,
  ].filter(Boolean);
  return { date: found.date, note: notes.length > 0 ? notes.join(' ') : undefined };
}
