/**
 * Phone numbers as Twilio writes them, and what they say about where a user lives.
 *
 * Numbers are checked with libphonenumber-js's default ("min") metadata: the country
 * calling code must exist and the national number must have a possible length and shape
 * for it. The stricter "max" metadata also checks number ranges, but lags behind newly
 * allocated ones (it rejects some real Israeli mobiles, for instance); these numbers have
 * already reached us through a carrier, so the looser check is the right one.
 */
import { parsePhoneNumberFromString, type PhoneNumber } from 'libphonenumber-js';
import { getAllTimezones, getCountry, getTimezone } from 'countries-and-timezones';

/** The messaging channels Herald speaks over. */
export type ChannelName = 'sms' | 'whatsapp' | 'rcs';

/** Twilio marks WhatsApp addresses with this scheme; SMS addresses are bare numbers. */
const WHATSAPP_SCHEME = 'whatsapp:';
/** Replies from RCS users reach the webhook from `rcs:+1…` addresses. */
const RCS_SCHEME = 'rcs:';

/** "+", then digits, optionally grouped by spaces or dashes; nothing else. */
const LOOSE_E164 = /^\+\d[\d -]*\d$/;

/** A canonical E.164 number: "+", no leading zero, at most 15 digits. */
const STRICT_E164 = /^\+[1-9]\d{1,14}$/;

/**
 * Reads a Twilio `From` or `To` address: `whatsapp:+14155550100` is WhatsApp,
 * `rcs:+14155550100` is RCS, `+14155550100` is SMS. The number must be international
 * (leading "+") and valid; spaces and dashes between digits are tolerated. Short codes,
 * alphanumeric sender IDs, other channels (`messenger:`), a scheme with no number behind it
 * (`rcs:`, `rcs:herald_agent`) and anything unparseable give undefined.
 *
 * @param address The address as Twilio sent it.
 * @returns The channel and the number in E.164, or undefined.
 */
export function parseTwilioAddress(address: string): { channel: ChannelName; phone: string } | undefined {
  const trimmed = address.trim();
  const lower = trimmed.toLowerCase();
  const channel: ChannelName = lower.startsWith(WHATSAPP_SCHEME) ? 'whatsapp' : lower.startsWith(RCS_SCHEME) ? 'rcs' : 'sms';
  const number = channel === 'whatsapp' ? trimmed.slice(WHATSAPP_SCHEME.length).trim() : channel === 'rcs' ? trimmed.slice(RCS_SCHEME.length).trim() : trimmed;
  const parsed = parseInternationalNumber(number);
  if (parsed === undefined) return undefined;
  return { channel, phone: parsed.number };
}

/**
 * Why an address {@link parseTwilioAddress} refused is refused, in words for a 4xx: an RCS
 * or WhatsApp scheme with no number behind it is named as such, anything else is "not a
 * phone number".
 */
export function describeUnusableAddress(address: string): string {
  const lower = address.trim().toLowerCase();
  if (lower.startsWith(RCS_SCHEME)) return 'is an RCS address with no phone number behind it (expected rcs:+E.164)';
  if (lower.startsWith(WHATSAPP_SCHEME)) return 'is a WhatsApp address with no valid phone number behind it (expected whatsapp:+E.164)';
  return 'is not a phone number Herald can answer';
}

/**
 * The Twilio address to send to for a number on a channel. RCS goes to the bare number
 * through a Messaging Service with an RCS sender: Twilio tries RCS first and falls back to
 * SMS by itself (an `rcs:` To would forbid the fallback).
 *
 * @param phone A number in E.164 ("+14155550100").
 * @param channel The channel to address it on.
 * @returns `whatsapp:+14155550100` for WhatsApp, the bare number for SMS and RCS.
 * @throws RangeError if `phone` is not in E.164; passing anything else is a bug.
 */
export function toTwilioAddress(phone: string, channel: ChannelName): string {
  // Only the shape is checked, not validity: a number we stored and messaged before must
  // stay addressable even if newer metadata ever judged it differently.
  if (!STRICT_E164.test(phone)) throw new RangeError(`Not an E.164 phone number: ${JSON.stringify(phone)}`);
  return channel === 'whatsapp' ? `${WHATSAPP_SCHEME}${phone}` : phone;
}

/**
 * A number shown to whoever holds a link, without giving it away: the country code and
 * the last four digits (`+14155550123` → `+1 ••• ••• 0123`), enough for its owner to
 * recognise it.
 */
export function maskPhone(phone: string): string {
  const countryCode = parsePhoneNumberFromString(phone)?.countryCallingCode;
  const last = phone.replace(/\D/g, '').slice(-4);
  return countryCode ? `+${countryCode} ••• ••• ${last}` : `••• ••• ${last}`;
}

/**
 * The country a number belongs to.
 *
 * @param phone A number in international form ("+447911123456").
 * @returns Its ISO 3166-1 alpha-2 code, or undefined for invalid numbers and for
 *   non-geographic ones (+800 freephone, +882 networks).
 */
export function countryOfPhone(phone: string): string | undefined {
  return parseInternationalNumber(phone.trim())?.country;
}

/**
 * The IANA time zone of a country that has exactly one, else undefined.
 *
 * The zones come from countries-and-timezones without its deprecated aliases: asking for
 * those would make single-zone countries look multi-zone (Israel also lists Asia/Tel_Aviv
 * and "Israel", the United Kingdom Europe/Belfast, India Asia/Calcutta). What remains is
 * tzdb's canonical zones, which since 2022 merge zones that have agreed since 1970, so a
 * country may list a zone it shares with a neighbour. The rule:
 *
 * - A zone counts as the country's own when the country is listed first for it. If
 *   exactly one zone is the country's own, that is the answer; shared zones reaching in
 *   from a neighbour are ignored, as they cover small areas (Germany's Büsingen exclave
 *   keeps Swiss time as Europe/Zurich; Crimea is listed under Ukraine as Russia's
 *   Europe/Simferopol).
 * - A country with no zone of its own that uses exactly one neighbour's zone (the
 *   Netherlands on Europe/Brussels, Norway on Europe/Berlin) gets it under the country's
 *   own name for it when tzdb keeps one (Europe/Amsterdam, Europe/Oslo): the same clock,
 *   but the name its people recognise.
 * - Anything else has several zones and gives undefined.
 *
 * @param country An ISO 3166-1 alpha-2 code.
 * @returns An IANA time zone name, or undefined.
 */
export function timezoneForCountry(country: string): string | undefined {
  const code = country.toUpperCase();
  const zones = getCountry(code)?.timezones ?? [];
  const ownZones = zones.filter((zone) => getTimezone(zone)?.countries[0] === code);
  const [onlyOwnZone] = ownZones;
  if (ownZones.length === 1 && onlyOwnZone !== undefined) return onlyOwnZone;
  const [onlyZone] = zones;
  if (ownZones.length === 0 && zones.length === 1 && onlyZone !== undefined) {
    return localNameForZone(onlyZone, code) ?? onlyZone;
  }
  return undefined;
}

/**
 * The first tzdb link to `zone` that belongs to `country` alone, like Europe/Amsterdam for
 * Europe/Brussels in NL. Only Area/Location names: legacy names such as "Iceland" are not
 * what anyone expects to see.
 */
function localNameForZone(zone: string, country: string): string | undefined {
  return localZoneNames().get(`${zone} ${country}`);
}

let localZoneNamesCache: Map<string, string> | undefined;

/** Links keyed by "canonical-zone country", built once since the data never changes. */
function localZoneNames(): Map<string, string> {
  if (localZoneNamesCache !== undefined) return localZoneNamesCache;
  const names = new Map<string, string>();
  for (const timezone of Object.values(getAllTimezones({ deprecated: true }))) {
    const [onlyCountry, ...otherCountries] = timezone.countries;
    if (timezone.aliasOf == null || onlyCountry === undefined || otherCountries.length > 0) continue;
    if (!timezone.name.includes('/')) continue;
    const key = `${timezone.aliasOf} ${onlyCountry}`;
    if (!names.has(key)) names.set(key, timezone.name);
  }
  localZoneNamesCache = names;
  return names;
}

/** A valid number written in international form, or undefined. */
function parseInternationalNumber(number: string): PhoneNumber | undefined {
  // libphonenumber-js is lenient (it finds a number inside "+1415...abc"); the format
  // check keeps anything that isn't just a number out.
  if (!LOOSE_E164.test(number)) return undefined;
  const parsed = parsePhoneNumberFromString(number);
  if (parsed === undefined || !parsed.isValid()) return undefined;
  return parsed;
}
