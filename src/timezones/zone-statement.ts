import type { PrismaClient } from '../db/prisma-types.js';
import { say, type TextLanguage } from '../texts/texts.js';
import type { UserConfig } from '../users/user-service.js';
import { zoneName } from './zone-choices.js';

/**
 * "No reminder is set on a zone Herald guessed without saying so." After a turn that set
 * something at a time (a reminder, a routine, a calendar event), a user whose zone was not
 * settled by themselves is told which zone it is in, in Herald's own words: not left to the
 * model to remember.
 */
export class ZoneStatement {
  constructor(private readonly prisma: PrismaClient) {}

  /** The line to add to the reply, or undefined when the zone is the user's own or nothing was set. */
  async lineFor(user: Pick<UserConfig, 'id' | 'timezone' | 'timezoneSource'>, since: Date, language: TextLanguage): Promise<string | undefined> {
    if (user.timezoneSource === 'user') return undefined;
    const where = { userId: user.id, createdAt: { gte: since } };
    const [reminders, routines, events] = await Promise.all([
      this.prisma.reminder.count({ where }),
      this.prisma.routine.count({ where }),
      this.prisma.calendarEvent.count({ where }),
    ]);
    if (reminders + routines + events === 0) return undefined;
    return say(language, 'zoneGuessed', { zone: zoneName(user.timezone) });
  }
}
