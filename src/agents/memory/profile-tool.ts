import { z } from 'zod';
import { isValidTimezone } from '../../shared/time-zones.js';
import { defineTool, ok } from '../../tools/tool.js';
import { parseQuietWindow } from '../../users/quiet-hours.js';
import type { UserService } from '../../users/user-service.js';

/**
 * `update_profile`: the settings every agent receives (name, time zone, language). They
 * live on the user, not among the facts, so "call me Ana" or "I moved to Berlin time"
 * changes how Herald greets them and when their reminders fire.
 */
export function profileTool(users: UserService) {
  return defineTool({
    name: 'update_profile',
    description:
      "Set the user's name (what to call them), time zone (IANA, e.g. Europe/Berlin), language (ISO 639-1, e.g. \"he\", \"en\") or quiet hours (\"don't text me after 10 pm\": 22:00-07:00). Only what the user said; leave the rest out.",
    mutates: true,
    inputSchema: z
      .object({
        name: z.string().trim().min(1).max(80).optional(),
        timezone: z.string().trim().refine(isValidTimezone, 'must be an IANA time zone such as Europe/Berlin').optional(),
        language: z.string().trim().regex(/^[a-z]{2}$/, 'must be a two-letter language code such as en or he').optional(),
        quietHours: z
          .string()
          .trim()
          .toLowerCase()
          .refine((value) => parseQuietWindow(value) !== undefined, 'must be HH:MM-HH:MM in 24-hour time (e.g. 22:00-07:00), or off')
          .optional()
          .describe('When Herald must not message them on its own (reminders they set still come): "22:00-07:00", or "off"'),
      })
      .refine(
        (input) => input.name !== undefined || input.timezone !== undefined || input.language !== undefined || input.quietHours !== undefined,
        'give name, timezone, language or quietHours',
      ),
    run: async (input, context) => {
      const { quietHours, ...changes } = input;
      if (quietHours !== undefined) await users.setQuietHours(context.userId, quietHours);
      const profile = await users.updateProfile(context.userId, changes);
      return ok({ effect: 'updated', profile: { name: profile.name, timezone: profile.timezone, language: profile.language, quietHours: profile.quietHours } });
    },
  });
}
