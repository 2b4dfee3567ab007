import type { Channel, User } from '../generated/prisma/client.js';
import type { PrismaClient, PrismaExecutor } from '../db/prisma-types.js';
import type { Clock } from '../shared/clock.js';

/** A user's settings, as every agent receives them (FR-9). */
export interface UserConfig {
  id: string;
  phone: string;
  name: string | null;
  timezone: string;
  /** Where the zone came from: the number (one clock), a guess (Herald asks once), or the user (src/timezones). */
  timezoneSource: 'number' | 'guess' | 'user';
  /** When Herald asked which zone a guessed one should be (it asks once). */
  timezoneAskedAt: Date | null;
  language: string | null;
  optedOut: boolean;
  isNew: boolean;
  /** The user's own quiet hours ("22:00-07:00", "off"); null: the deployment's QUIET_HOURS (src/users/quiet-hours.ts). */
  quietHours: string | null;
  /** A trip with a return date ("I'm in Tokyo until Friday", src/reminders/travel-trips.ts), when read with the user. */
  trip?: { homeTimezone: string; returnOn: string } | undefined;
}

/**
 * Reads and updates users. (Users are created on first contact by the inbound webhook's
 * statement, src/conversation/inbound-service.ts: one phone number is one user on every
 * channel.)
 */
export class UserService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
  ) {}

  /** The user's configuration, or undefined for an unknown id. */
  async getConfig(userId: string, executor: PrismaExecutor = this.prisma): Promise<UserConfig | undefined> {
    const user = await executor.user.findUnique({ where: { id: userId }, include: { trip: { select: { homeTimezone: true, returnOn: true } } } });
    return user ? toUserConfig(user) : undefined;
  }

  /** Opts the user out of (or back into) all messages. */
  async setOptedOut(userId: string, optedOut: boolean, executor: PrismaExecutor = this.prisma): Promise<void> {
    await executor.user.update({ where: { id: userId }, data: { optedOut, optedOutAt: optedOut ? this.clock.now() : null } });
  }

  /** Records that Twilio cannot reach this user on a channel (e.g. 21610: they opted out with the carrier). */
  async markUnreachable(userId: string, channel: Channel, executor: PrismaExecutor = this.prisma): Promise<void> {
    const now = this.clock.now();
    await executor.user.update({
      where: { id: userId },
      // RCS reaches the same number as SMS (and falls back to it): one mark for both.
      data: channel === 'whatsapp' ? { whatsappUnreachableAt: now } : { smsUnreachableAt: now },
    });
  }

  /** Sets the user's own quiet hours ("22:00-07:00" or "off"). */
  async setQuietHours(userId: string, quietHours: string, executor: PrismaExecutor = this.prisma): Promise<void> {
    await executor.user.update({ where: { id: userId }, data: { quietHours } });
  }

  /**
   * Updates the profile fields a user can tell Herald about. A zone given here is the user's
   * own (a pin, "I'm in Denver", the profile page, a pick): it is settled. A new time zone ends
   * a trip to another (src/reminders/travel-trips.ts).
   */
  async updateProfile(
    userId: string,
    changes: { name?: string | undefined; timezone?: string | undefined; language?: string | undefined },
    executor: PrismaExecutor = this.prisma,
  ): Promise<UserConfig> {
    const data: { name?: string; timezone?: string; timezoneSource?: 'user'; language?: string } = {};
    if (changes.name !== undefined) data.name = changes.name;
    if (changes.timezone !== undefined) {
      data.timezone = changes.timezone;
      data.timezoneSource = 'user';
    }
    if (changes.language !== undefined) data.language = changes.language;
    // A zone other than the trip's (the profile page, a pin) ends the trip: its return must not undo the change.
    if (changes.timezone !== undefined) await executor.trip.deleteMany({ where: { userId, timezone: { not: changes.timezone } } });
    return toUserConfig(await executor.user.update({ where: { id: userId }, data }));
  }
}

/** A user row as configuration; a user is "new" until they have told Herald their name. */
function toUserConfig(user: User & { trip?: { homeTimezone: string; returnOn: string } | null }): UserConfig {
  return {
    id: user.id,
    phone: user.phone,
    name: user.name,
    timezone: user.timezone,
    timezoneSource: user.timezoneSource,
    timezoneAskedAt: user.timezoneAskedAt,
    language: user.language,
    optedOut: user.optedOut,
    isNew: user.name === null,
    quietHours: user.quietHours,
    ...(user.trip ? { trip: { homeTimezone: user.trip.homeTimezone, returnOn: user.trip.returnOn } } : {}),
  };
}
