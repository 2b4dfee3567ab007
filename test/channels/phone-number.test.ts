import { describe, it, expect } from 'vitest';
import { getAllCountries, getCountry } from 'countries-and-timezones';
import {
  countryOfPhone,
  describeUnusableAddress,
  parseTwilioAddress,
  timezoneForCountry,
  toTwilioAddress,
} from '../../src/channels/phone-number.js';
import { keepOneClock, zoneOfPhone } from '../../src/channels/phone-zones.js';

const FALLBACK = 'America/New_York';

describe('parseTwilioAddress', () => {
  it('reads a WhatsApp address', () => {
    expect(parseTwilioAddress('whatsapp:+14155550100')).toEqual({ channel: 'whatsapp', phone: '+14155550100' });
  });

  it('reads a bare number as SMS', () => {
    expect(parseTwilioAddress('+14155550100')).toEqual({ channel: 'sms', phone: '+14155550100' });
  });

  it('reads international numbers', () => {
    expect(parseTwilioAddress('+442079460958')).toEqual({ channel: 'sms', phone: '+442079460958' });
    expect(parseTwilioAddress('whatsapp:+972501234567')).toEqual({ channel: 'whatsapp', phone: '+972501234567' });
    expect(parseTwilioAddress('+919876543210')).toEqual({ channel: 'sms', phone: '+919876543210' });
  });

  it('normalises spaces and dashes to E.164', () => {
    expect(parseTwilioAddress('+1 415-555-0100')).toEqual({ channel: 'sms', phone: '+14155550100' });
    expect(parseTwilioAddress('whatsapp:+44 20 7946 0958')).toEqual({ channel: 'whatsapp', phone: '+442079460958' });
    expect(parseTwilioAddress('  +14155550100  ')).toEqual({ channel: 'sms', phone: '+14155550100' });
  });

  it('accepts the scheme in any case', () => {
    expect(parseTwilioAddress('WhatsApp:+14155550100')?.channel).toBe('whatsapp');
  });

  it.each([
    ['a short code', '12345'],
    ['a short code with a plus', '+12345'],
    ['an alphanumeric sender', 'MyBrand'],
    ['a national number without +', '4155550100'],
    ['a number too short', '+1415555010'],
    ['a number too long', '+141555501000'],
    ['an impossible US area code', '+10115550100'],
    ['an unknown country code', '+999123456789'],
    ['letters after the number', '+14155550100abc'],
    ['a letter O for a zero', '+1415555O100'],
    ['parentheses', '+1 (415) 555-0100'],
    ['an extension', '+14155550100;ext=1'],
    ['WhatsApp with garbage', 'whatsapp:hello'],
    ['WhatsApp with nothing', 'whatsapp:'],
    ['WhatsApp without +', 'whatsapp:14155550100'],
    ['WhatsApp with a short code', 'whatsapp:+12345'],
    ['another channel', 'messenger:+14155550100'],
    ['an empty string', ''],
    ['a lone plus', '+'],
  ])('rejects %s', (_description, address) => {
    expect(parseTwilioAddress(address)).toBeUndefined();
  });
});

describe('toTwilioAddress', () => {
  it('prefixes WhatsApp numbers and leaves SMS numbers bare', () => {
    expect(toTwilioAddress('+14155550100', 'whatsapp')).toBe('whatsapp:+14155550100');
    expect(toTwilioAddress('+14155550100', 'sms')).toBe('+14155550100');
  });

  it('is the inverse of parseTwilioAddress', () => {
    for (const address of ['whatsapp:+14155550100', '+442079460958', 'whatsapp:+972501234567']) {
      const parsed = parseTwilioAddress(address);
      expect(parsed).toBeDefined();
      if (parsed !== undefined) expect(toTwilioAddress(parsed.phone, parsed.channel)).toBe(address);
    }
  });

  it('refuses anything that is not E.164', () => {
    expect(() => toTwilioAddress('4155550100', 'sms')).toThrow(RangeError);
    expect(() => toTwilioAddress('+1 415 555 0100', 'sms')).toThrow(RangeError);
    expect(() => toTwilioAddress('whatsapp:+14155550100', 'whatsapp')).toThrow(RangeError);
    expect(() => toTwilioAddress('', 'sms')).toThrow(RangeError);
  });
});

describe('countryOfPhone', () => {
  it.each([
    ['+14155550100', 'US'],
    ['+16135550123', 'CA'],
    ['+18762345678', 'JM'],
    ['+442079460958', 'GB'],
    ['+972501234567', 'IL'],
    ['+919876543210', 'IN'],
    ['+4930123456', 'DE'],
    ['+31612345678', 'NL'],
  ])('places %s in %s', (phone, country) => {
    expect(countryOfPhone(phone)).toBe(country);
  });

  it('gives undefined for invalid and non-geographic numbers', () => {
    expect(countryOfPhone('+12345')).toBeUndefined();
    expect(countryOfPhone('not a number')).toBeUndefined();
    expect(countryOfPhone('4155550100')).toBeUndefined();
    expect(countryOfPhone('+80012345678')).toBeUndefined();
  });
});

describe('zoneOfPhone (libphonenumber time-zone mapping)', () => {
  const now = new Date('2026-11-28T12:00:00Z');

  it.each([
    ['+442079460958', 'Europe/London'],
    ['+972501234567', 'Asia/Jerusalem'],
    ['+919876543210', 'Asia/Kolkata'],
    ['+4930123456', 'Europe/Berlin'],
    ['+33612345678', 'Europe/Paris'],
    ['+31612345678', 'Europe/Amsterdam'],
    ['+81312345678', 'Asia/Tokyo'],
    // Countries with several zones: the area code decides.
    ['+14155550123', 'America/Los_Angeles'],
    ['+12125550123', 'America/New_York'],
    ['+13035550123', 'America/Denver'],
    ['+16045550100', 'America/Vancouver'],
    ['+525512345678', 'America/Mexico_City'],
    ['+5511912345678', 'America/Sao_Paulo'],
    ['+79161234567', 'Europe/Moscow'],
  ])('gives %s the zone %s, from the number', (phone, zone) => {
    expect(zoneOfPhone(phone, FALLBACK, now)).toMatchObject({ timezone: zone, source: 'number' });
  });

  it('guesses (and keeps the candidates to ask about) when the number maps to several clocks', () => {
    const tollFree = zoneOfPhone('+18005550123', FALLBACK, now);
    expect(tollFree).toMatchObject({ timezone: FALLBACK, source: 'guess' });
    expect(tollFree.candidates).toEqual(expect.arrayContaining(['America/New_York', 'America/Chicago', 'America/Denver', 'America/Los_Angeles']));
  });

  it('guesses with no candidates for a number the mapping does not know', () => {
    expect(zoneOfPhone('+88213100001', FALLBACK, now)).toEqual({ timezone: FALLBACK, source: 'guess', candidates: [] });
    expect(zoneOfPhone('garbage', FALLBACK, now)).toEqual({ timezone: FALLBACK, source: 'guess', candidates: [] });
  });

  it('treats zones that keep one clock all year as one (Guernsey, Isle of Man, London)', () => {
    expect(keepOneClock(['Europe/Guernsey', 'Europe/Isle_of_Man', 'Europe/London'], 2026)).toBe(true);
    // Denver and Phoenix agree in winter only.
    expect(keepOneClock(['America/Denver', 'America/Phoenix'], 2026)).toBe(false);
  });
});

describe('timezoneForCountry', () => {
  it.each([
    ['GB', 'Europe/London'],
    ['IL', 'Asia/Jerusalem'],
    ['IN', 'Asia/Kolkata'],
    ['DE', 'Europe/Berlin'],
    ['FR', 'Europe/Paris'],
    ['JP', 'Asia/Tokyo'],
    ['IE', 'Europe/Dublin'],
    ['SG', 'Asia/Singapore'],
    ['UA', 'Europe/Kyiv'],
    ['gb', 'Europe/London'],
  ])('gives %s the zone %s', (country, zone) => {
    expect(timezoneForCountry(country)).toBe(zone);
  });

  it('ignores deprecated aliases that would make a single-zone country look multi-zone', () => {
    // The data really does list them when asked; the rule must not.
    expect(getCountry('IL', { deprecated: true })?.timezones).toContain('Asia/Tel_Aviv');
    expect(getCountry('IN', { deprecated: true })?.timezones).toContain('Asia/Calcutta');
    expect(getCountry('GB', { deprecated: true })?.timezones).toContain('Europe/Belfast');
    expect(timezoneForCountry('IL')).toBe('Asia/Jerusalem');
    expect(timezoneForCountry('IN')).toBe('Asia/Kolkata');
    expect(timezoneForCountry('GB')).toBe('Europe/London');
  });

  it('ignores a neighbour’s zone that reaches into a small area', () => {
    // Büsingen, a German exclave in Switzerland, keeps Swiss time.
    expect(getCountry('DE')?.timezones).toEqual(['Europe/Berlin', 'Europe/Zurich']);
    expect(timezoneForCountry('DE')).toBe('Europe/Berlin');
  });

  it('names a borrowed zone the way the country does', () => {
    expect(getCountry('NL')?.timezones).toEqual(['Europe/Brussels']);
    expect(timezoneForCountry('NL')).toBe('Europe/Amsterdam');
    expect(timezoneForCountry('NO')).toBe('Europe/Oslo');
    expect(timezoneForCountry('IS')).toBe('Atlantic/Reykjavik');
    expect(timezoneForCountry('GH')).toBe('Africa/Accra');
  });

  it.each(['US', 'CA', 'AU', 'BR', 'RU', 'MX', 'ES', 'PT', 'CN', 'ID', 'KZ', 'AR', 'NZ', 'CL'])(
    'gives no zone for %s, which has several',
    (country) => {
      expect(timezoneForCountry(country)).toBeUndefined();
    },
  );

  it('gives no zone for unknown countries', () => {
    expect(timezoneForCountry('ZZ')).toBeUndefined();
    expect(timezoneForCountry('')).toBeUndefined();
  });

  it('only ever answers with a zone the runtime accepts', () => {
    for (const country of Object.keys(getAllCountries())) {
      const zone = timezoneForCountry(country);
      if (zone === undefined) continue;
      expect(() => new Intl.DateTimeFormat('en', { timeZone: zone }), `${country}: ${zone}`).not.toThrow();
    }
  });
});

describe('RCS addresses (issue 24)', () => {
  it('reads rcs:+E.164 as RCS, the same number as SMS', () => {
    expect(parseTwilioAddress('rcs:+14155550100')).toEqual({ channel: 'rcs', phone: '+14155550100' });
    expect(parseTwilioAddress('RCS: +1 415-555-0100')).toEqual({ channel: 'rcs', phone: '+14155550100' });
  });

  it.each(['rcs:', 'rcs: ', 'rcs:herald_agent', 'rcs:12345'])('refuses %j, naming what is wrong', (address) => {
    expect(parseTwilioAddress(address)).toBeUndefined();
    expect(describeUnusableAddress(address)).toBe('is an RCS address with no phone number behind it (expected rcs:+E.164)');
  });

  it('sends RCS to the bare number (the Messaging Service falls back to SMS)', () => {
    expect(toTwilioAddress('+14155550100', 'rcs')).toBe('+14155550100');
  });
});
