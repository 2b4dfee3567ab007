import { DateTime } from 'luxon';
import { z } from 'zod';
import type { PrismaClient } from '../db/prisma-types.js';
import { isValidTimezone } from '../shared/time-zones.js';
import { say, textLanguageOf } from '../texts/texts.js';
import { defineTool, ok, type ToolDefinition } from '../tools/tool.js';
import type { UserService } from '../users/user-service.js';
import { zoneName } from './zone-choices.js';

/** Herald's own action behind a pick in the zone question (a choice's held call names it). */
export const SET_TIMEZONE_ACTION = { agent: 'system', tool: 'set_timezone' } as const;

const setTimezoneInput = z.object({
  timezone: z.string().refine(isValidTimezone, 'must be an IANA time zone'),
  /** The messages that were waiting for the zone: answered again once it is set. */
  replay: z.array(z.uuid()).max(20),
});

/** Messages answered with the zone question, put back in line once it is settled or dropped. */
export class WaitingMessages {
  constructor(private readonly prisma: PrismaClient) {}

  /** Only the user's own messages that the question answered; anything else stays as it is. */
  async release(userId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const released = await this.prisma.message.updateMany({
      where: { id: { in: ids }, userId, role: 'user', inboundStatus: 'handled' },
      data: { inboundStatus: 'pending' },
    });
    return released.count;
  }
}

/**
 * Sets the user's zone to the one they picked (settled: it is theirs), and puts the messages
 * that waited for it back in line, so the turn that follows answers them on their own clock.
 */
export function setTimezoneTool(waiting: WaitingMessages, users: UserService): ToolDefinition {
  return defineTool({
    name: SET_TIMEZONE_ACTION.tool,
    description: "Sets the user's time zone to the one they picked from Herald's question.",
    inputSchema: setTimezoneInput,
    mutates: true,
    async run(input, context) {
      const profile = await users.updateProfile(context.userId, { timezone: input.timezone });
      const replayed = await waiting.release(context.userId, input.replay);
      const time = DateTime.fromJSDate(context.clock.now(), { zone: profile.timezone }).toFormat('HH:mm');
      const reply = say(textLanguageOf(context.language) ?? 'en', 'zoneSet', { zone: zoneName(profile.timezone), time });
      return ok({ effect: 'updated', timezone: profile.timezone, replayed, reply });
    },
  });
}
