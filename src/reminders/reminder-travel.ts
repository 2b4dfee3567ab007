import { z } from 'zod';
import type { PrismaClient } from '../db/prisma-types.js';
import type { ConfirmationAsk } from '../questions/pending-action.js';
import { isValidTimezone } from '../shared/time-zones.js';
import { say, type TextLanguage } from '../texts/texts.js';
import { defineTool, ok, toolError, type ToolDefinition } from '../tools/tool.js';
import type { ReminderService } from './reminder-service.js';

/** The held action YES runs to move repeating reminders to the user's new zone: Herald's own ("system"), resolved in runtime.ts. */
export const MOVE_REMINDERS_ACTION = { agent: 'system', tool: 'move_recurring_reminders' } as const;

/** A zone as the question names it: "Tokyo" for Asia/Tokyo. */
export function placeOf(zone: string): string {
  return (zone.split('/').pop() ?? zone).replace(/_/g, ' ');
}

/**
 * Travel (issue 21 item 8): when the user's time zone changed ("I'm in Tokyo until Friday", a
 * pin's YES, the profile page) and they have repeating reminders or routines on another zone's clock, the
 * reply of that turn (or, for a change made on the page, of the next) asks once whether those move with them (9:00 stays 9:00 where they
 * are: YES) or stay on home time (NO: nothing changes). One-off reminders are instants and
 * never move.
 */
/** The user's routines, as travel moves them (src/routines; injected: routines build on reminders' schedules). */
export interface TravellingRoutines {
  otherZone(userId: string, timezone: string): Promise<string | undefined>;
  moveTo(userId: string, timezone: string): Promise<number>;
}

export class ReminderTravel {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly reminders: ReminderService,
    private readonly routines?: TravellingRoutines,
  ) {}

  /**
   * The question to ask after a turn, if the user's zone is not the one last settled
   * (`User.homeTimezone`; before any, the zone the turn started on) and a repeating reminder
   * would move. A change made outside a turn (the profile page) is asked about at the next turn.
   * The new zone is settled as it is asked about: asked once.
   */
  async questionAfter(userId: string, zoneBefore: string, language: TextLanguage): Promise<ConfirmationAsk | undefined> {
    const user = await this.prisma.user.findUnique({ where: { id: userId }, select: { timezone: true, homeTimezone: true } });
    if (!user) return undefined;
    const settled = user.homeTimezone ?? zoneBefore;
    if (user.timezone === settled) {
      if (user.homeTimezone === null) await this.prisma.user.updateMany({ where: { id: userId, homeTimezone: null }, data: { homeTimezone: user.timezone } });
      return undefined;
    }
    // Settled now, whether or not anything moves: two turns at once cannot both ask.
    const claimed = await this.prisma.user.updateMany({ where: { id: userId, timezone: user.timezone, OR: [{ homeTimezone: null }, { homeTimezone: { not: user.timezone } }] }, data: { homeTimezone: user.timezone } });
    if (claimed.count === 0) return undefined;
    const reminder = await this.prisma.reminder.findFirst({
      where: { userId, status: 'active', rrule: { not: null }, timezone: { not: user.timezone } },
      select: { timezone: true },
    });
    const home = reminder?.timezone ?? (await this.routines?.otherZone(userId, user.timezone));
    if (!home) return undefined;
    const question = say(language, 'travelQuestion', { zone: placeOf(user.timezone), home: placeOf(home) });
    return {
      question,
      actions: [{ ...MOVE_REMINDERS_ACTION, input: { timezone: user.timezone }, question, done: say(language, 'travelMoved', { zone: placeOf(user.timezone) }) }],
    };
  }

  /** The held action: move the repeating reminders to the zone asked about (after the user's YES). */
  moveTool(): ToolDefinition {
    const reminders = this.reminders;
    const routines = this.routines;
    const prisma = this.prisma;
    return defineTool({
      name: MOVE_REMINDERS_ACTION.tool,
      description: "Moves the user's repeating reminders to their new time zone at the same local time (after their YES).",
      inputSchema: z.object({ timezone: z.string().refine(isValidTimezone, 'must be an IANA time zone') }),
      mutates: true,
      run: async (input, context) => {
        if (!context.confirmed) return toolError("moving reminders to another time zone needs the user's YES");
        const moved = await reminders.moveRecurringTo(context.userId, input.timezone);
        const routinesMoved = (await routines?.moveTo(context.userId, input.timezone)) ?? 0;
        // A trip with a return date (travel-trips.ts): this YES was for the trip, so its return moves them back home.
        await prisma.trip.updateMany({ where: { userId: context.userId, timezone: input.timezone, status: 'away' }, data: { movesReminders: true } });
        return ok({ effect: 'updated', moved, routinesMoved, timezone: input.timezone });
      },
    });
  }
}
