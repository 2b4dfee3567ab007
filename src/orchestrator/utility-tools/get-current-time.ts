import { z } from 'zod';
import { defineTool, ok, toolError } from '../../tools/tool.js';
import { isValidTimezone } from '../../shared/time-zones.js';
import { describeNow, invalidTimezoneMessage } from './time-context.js';

/**
 * No arguments. Not `.strict()`: a model that sends a stray argument should still get the
 * time rather than a validation error; unknown keys are simply dropped.
 */
const getCurrentTimeInput = z.object({});

/** Tells the planner what time it is for the user, in their time zone (UT-5). */
export const getCurrentTimeTool = defineTool({
  name: 'get_current_time',
  description:
    "Returns the current date and time in the user's time zone: ISO timestamp with UTC offset, date (YYYY-MM-DD), time (HH:mm), weekday name and index (0 = Sunday), the IANA time zone, its UTC offset, and a human-readable line. Takes no arguments. If it returns an error, describe times in words in the plan instead.",
  inputSchema: getCurrentTimeInput,
  mutates: false,
  async run(_input, context) {
    if (!isValidTimezone(context.timezone)) return toolError(invalidTimezoneMessage(context.timezone));
    return ok(describeNow(context.clock.now(), context.timezone));
  },
});
