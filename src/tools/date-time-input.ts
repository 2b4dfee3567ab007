import { DateTime } from 'luxon';
import { z } from 'zod';

/**
 * A date-time as a tool accepts it. Models write what they know: the user's local wall
 * clock ("2026-03-08T09:30"), or an ISO timestamp with a UTC offset or `Z`
 * ("2026-03-08T09:30:00-05:00", "2026-03-08T14:30:00Z"). Seconds, fractions of a second
 * and a space instead of the "T" are all accepted.
 */
export const dateTimeInputSchema = z
  .string()
  .trim()
  .regex(
    /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}(:?\d{2})?)?$/,
    'must be a date and time like 2026-03-02T09:00 (the user\'s local time) or an ISO timestamp with an offset like 2026-03-02T09:00:00-05:00',
  );

/** A date-time input turned into the user's local wall-clock time. */
export type ResolvedDateTime =
  | {
      ok: true;
      /** The wall-clock time in the user's zone, e.g. 2026-03-02T09:00 (seconds only when not zero). */
      local: string;
      /** For a wall-clock time the clocks show twice that night: which of the two the given instant is. */
      whenAmbiguous?: 'earlier' | 'later';
      /** Set when the offset given was not the zone's at that instant: the instant was kept, at this local time. */
      note?: string;
    }
  | { ok: false; error: string };

/**
 * Reads a date-time input in the user's zone. A local time is taken as it is (whether it
 * exists is the caller's question). A timestamp with an offset names one instant: it is
 * converted to the user's zone, and when its offset is not the zone's at that instant
 * (the model guessed the offset, or wrote UTC) the instant wins and a note says what the
 * local time is, so the reply can tell the user.
 */
export function resolveDateTimeInput(value: string, zone: string): ResolvedDateTime {
  const text = value.trim().replace(' ', 'T');
  const offsetMatch = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i.exec(text.slice(16));
  if (!offsetMatch) {
    const local = DateTime.fromISO(text, { zone: 'UTC' });
    if (!local.isValid) return { ok: false, error: `"${value}" is not a valid date and time` };
    return { ok: true, local: wallClock(local) };
  }
  const instant = DateTime.fromISO(text, { setZone: true });
  if (!instant.isValid) return { ok: false, error: `"${value}" is not a valid date and time` };
  const inZone = instant.setZone(zone);
  const local = wallClock(inZone);
  const ambiguity = whichOfTwo(inZone, zone);
  const resolved = { ok: true as const, local, ...(ambiguity ? { whenAmbiguous: ambiguity } : {}) };
  if (instant.offset === inZone.offset) return resolved;
  const localWords = `${inZone.toFormat('HH:mm')} on ${inZone.toFormat('ccc d LLL yyyy')} in the user's time zone (${zone})`;
  const note =
    instant.offset === 0
      ? `The time was given in UTC: that is ${localWords}. Tell the user this local time.`
      : `The time was given with offset UTC${instant.toFormat('ZZ')}, but ${zone} is at UTC${inZone.toFormat('ZZ')} then. The instant was kept: it is ${localWords}. Tell the user this local time.`;
  return { ...resolved, note };
}

/** "2026-03-02T09:00", with seconds only when they are not zero. */
function wallClock(time: DateTime): string {
  return time.toFormat(time.second === 0 ? "yyyy-MM-dd'T'HH:mm" : "yyyy-MM-dd'T'HH:mm:ss");
}

/**
 * For a local time that happens twice (the night the clocks go back): whether this instant
 * is the first or the second. Undefined when the wall-clock time happens once.
 */
function whichOfTwo(time: DateTime, zone: string): 'earlier' | 'later' | undefined {
  // The repeated stretch is as long as the change in offset (an hour almost everywhere).
  const shift = Math.abs(time.minus({ days: 1 }).setZone(zone).offset - time.plus({ days: 1 }).setZone(zone).offset);
  if (shift === 0) return undefined;
  const sameWallClock = (other: DateTime) => other.setZone(zone).toFormat('yyyy-MM-dd HH:mm:ss') === time.toFormat('yyyy-MM-dd HH:mm:ss');
  if (sameWallClock(time.plus({ minutes: shift }))) return 'earlier';
  if (sameWallClock(time.minus({ minutes: shift }))) return 'later';
  return undefined;
}
