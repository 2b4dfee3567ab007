import { IANAZone } from 'luxon';

const knownValidZones = new Set<string>();

/**
 * True when `timezone` is an IANA zone name the runtime knows (e.g. `Asia/Jerusalem`). Zones
 * found valid are remembered: luxon builds an Intl formatter on every check, and every prompt
 * checks the user's zone.
 */
export function isValidTimezone(timezone: string): boolean {
  if (knownValidZones.has(timezone)) return true;
  const valid = timezone.trim() !== '' && IANAZone.isValidZone(timezone);
  if (valid) knownValidZones.add(timezone);
  return valid;
}
