/**
 * When a user does not want Herald to start talking (issue 21 item 8): a routine due inside
 * their quiet hours waits until they end. This is the seam routines hold to; the default is
 * never quiet, and the quiet-hours work fills it in (QUIET_HOURS, "don't text me after 10 pm").
 */
export interface QuietHours {
  /** When the quiet hours the user is in at `now` end; undefined when they are not in any. */
  quietUntil(user: { id: string; timezone: string }, now: Date): Promise<Date | undefined>;
}

/** Never quiet: every routine runs when due. */
export const neverQuiet: QuietHours = {
  async quietUntil() {
    return undefined;
  },
};
