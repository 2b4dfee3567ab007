import { z } from 'zod';
import { isValidTimezone } from '../../shared/time-zones.js';
import { defineTool, ok } from '../../tools/tool.js';
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
      "Set the user's name (what to call them), time zone (IANA, e.g. Europe/Berlin) or language (ISO 639-1, e.g. \"he\", \"en\"). Only what the user said; leave the rest out.",
    mutates: true,
    inputSchema: z
      .object({
        name: z.string().trim().min(1).max(80).optional(),
        timezone: z.string().trim().refine(isValidTimezone, 'must be an IANA time zone such as Europe/Berlin').optional(),
        language: z.string().trim().regex(/^[a-z]{2}$/, 'must be a two-letter language code such as en or he').optional(),
      })
      .refine((input) => input.name !== undefined || input.timezone !== undefined || input.language !== undefined, 'give name, timezone or language'),
    run: async (input, context) => {
      const profile = await users.updateProfile(context.userId, input);
      return ok({ effect: 'updated', profile: { name: profile.name, timezone: profile.timezone, language: profile.language } });
    },
  });
}
