import { DateTime } from 'luxon';

/** A daily window in local wall-clock minutes since midnight; `start > end` runs over midnight (22:00-07:00). */
export interface QuietWindow {
  start: number;
  end: number;
}

/** Who the quiet hours are for: their zone and their own setting (null: the deployment's QUIET_HOURS). */
export interface QuietHoursUser {
  timezone: string;
  quietHours?: string | null | undefined;
}

const WINDOW = /^([01]?\d|2[0-3]):([0-5]\d)-([01]?\d|2[0-3]):([0-5]\d)$/;

/** "22:00-07:00" as minutes; 'off' for off; undefined when it is neither. */
export function parseQuietWindow(text: string): QuietWindow | 'off' | undefined {
  const value = text.trim().toLowerCase();
  if (value === 'off') return 'off';
  const match = WINDOW.exec(value);
  if (!match) return undefined;
  const start = Number(match[1]) * 60 + Number(match[2]);
  const end = Number(match[3]) * 60 + Number(match[4]);
  // An empty window (22:00-22:00) is no quiet hours at all.
  return start === end ? 'off' : { start, end };
}

/** A window as stored and shown: "22:00-07:00". */
export function formatQuietWindow(window: QuietWindow): string {
  return `${clockTime(window.start)}-${clockTime(window.end)}`;
}

/** Minutes since midnight as "HH:MM". */
export function clockTime(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/**
 * The user's quiet hours (docs/ARCHITECTURE.md "Quiet hours"): in their local time, theirs when
 * they set some by text ("don't text me after 10 pm"), else QUIET_HOURS. What Herald sends on its
 * own initiative (notices, progress messages, offers; routines later) waits for them to end;
 * reminders the user set for a time inside them still fire. Pure: the caller passes the instant.
 */
export class QuietHours {
  private readonly fallback: QuietWindow | 'off';

  /** `deploymentDefault` is QUIET_HOURS ("22:00-07:00" or "off"); an unreadable one is off. */
  constructor(deploymentDefault: string) {
    this.fallback = parseQuietWindow(deploymentDefault) ?? 'off';
  }

  /** The window that applies to `user`, or 'off'. A stored value that no longer parses falls back to the default. */
  windowFor(user: QuietHoursUser): QuietWindow | 'off' {
    return (user.quietHours ? parseQuietWindow(user.quietHours) : undefined) ?? this.fallback;
  }

  /** Whether `instant` falls inside the user's quiet hours, in their zone. */
  isQuiet(user: QuietHoursUser, instant: Date): boolean {
    return this.quietEndsAt(user, instant) !== undefined;
  }

  /**
   * When the quiet hours `instant` falls in end (the first instant Herald may speak up), or
   * undefined when `instant` is not quiet. Wall-clock: across a DST change the end stays at
   * its local time (luxon moves a time the change skips forward).
   */
  quietEndsAt(user: QuietHoursUser, instant: Date): Date | undefined {
    const window = this.windowFor(user);
    if (window === 'off') return undefined;
    const local = DateTime.fromJSDate(instant, { zone: user.timezone });
    const minute = local.hour * 60 + local.minute;
    const endToday = local.set({ hour: Math.floor(window.end / 60), minute: window.end % 60, second: 0, millisecond: 0 });
    if (window.start < window.end) {
      return minute >= window.start && minute < window.end ? endToday.toJSDate() : undefined;
    }
    // Over midnight: before the end it ends this morning; after the start, tomorrow morning.
    if (minute < window.end) return endToday.toJSDate();
    if (minute >= window.start) return endToday.plus({ days: 1 }).toJSDate();
    return undefined;
  }
}
