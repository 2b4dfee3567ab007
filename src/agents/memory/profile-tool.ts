import { z } from 'zod';
import { DateTime } from 'luxon';
import type { TravelTrips, TripOutcome } from '../../reminders/travel-trips.js';
import { isValidTimezone } from '../../shared/time-zones.js';
import { defineTool, ok, toolError } from '../../tools/tool.js';
import { parseQuietWindow } from '../../users/quiet-hours.js';
import type { UserService } from '../../users/user-service.js';

/** A calendar date as the model writes it: YYYY-MM-DD, and a day that exists. */
const isoDate = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
  .refine((value) => DateTime.fromISO(value).isValid, 'must be a real date (no 30 February)');

/**
 * `update_profile`: the settings every agent receives (name, time zone, language). They
 * live on the user, not among the facts, so "call me Ana" or "I moved to Berlin time"
 * changes how Herald greets them and when their reminders fire. With `trips`, a time zone can
 * hold until a return date ("I'm in Tokyo until Friday"), and "I'm back home" ends the trip
 * (src/reminders/travel-trips.ts).
 */
export function profileTool(users: UserService, trips?: TravelTrips) {
  return defineTool({
    name: 'update_profile',
    description:
      "Set the user's name (what to call them), time zone (IANA, e.g. Europe/Berlin), language (ISO 639-1, e.g. \"he\", \"en\") or quiet hours (\"don't text me after 10 pm\": 22:00-07:00). Travel with an end (\"I'm in Tokyo until Friday\"): timezone and returnOn (Friday's date); Herald goes back to their home zone by itself the morning after. \"I'm staying until Wednesday\": returnOn alone. \"I'm back home\": backHome. Only what the user said; leave the rest out.",
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
        returnOn: isoDate
          .optional()
          .describe(
            'A trip\'s last day in the new time zone, YYYY-MM-DD from the current date ("until Friday": that Friday). Not in the past, at most a year ahead. Herald sets their home zone back at the start of the next day there.',
          ),
        backHome: z.literal(true).optional().describe('The user is back home before their trip\'s return date ("I\'m back home"): their home zone now.'),
      })
      .refine(
        (input) =>
          input.name !== undefined || input.timezone !== undefined || input.language !== undefined || input.quietHours !== undefined || input.returnOn !== undefined || input.backHome !== undefined,
        'give name, timezone, language, quietHours, returnOn or backHome',
      ),
    run: async (input, context) => {
      const { quietHours, returnOn, backHome, timezone, ...changes } = input;
      // The trip first: a refused return date changes nothing at all.
      let trip: TripOutcome | undefined;
      if (trips && (timezone !== undefined || returnOn !== undefined || backHome)) {
        const travel = await trips.change(context.userId, { timezone, returnOn, backHome });
        if (!travel.ok) return toolError(travel.error);
        trip = travel.value;
      } else if (returnOn !== undefined || backHome) {
        return toolError('Trips with a return date are not available here. Nothing was changed: set the timezone alone.');
      }
      if (quietHours !== undefined) await users.setQuietHours(context.userId, quietHours);
      const profile = await users.updateProfile(context.userId, { ...changes, ...(trip || timezone === undefined ? {} : { timezone }) });
      return ok({
        effect: 'updated',
        profile: { name: profile.name, timezone: profile.timezone, language: profile.language, quietHours: profile.quietHours },
        ...(trip?.trip ? { trip: trip.trip } : {}),
        ...(trip?.ended ? { tripEnded: trip.ended } : {}),
        ...(trip?.movedBack ? { movedBackHome: trip.movedBack } : {}),
      });
    },
  });
}
