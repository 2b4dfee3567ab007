import { DateTime } from 'luxon';
import { defineTool, ok, toolError } from '../../tools/tool.js';
import { isValidTimezone } from '../../shared/time-zones.js';
import { resolvePhrase } from '../../time/resolve.js';
import { invalidTimezoneMessage } from './time-context.js';
import { describeAmbiguous, describeDate, timeErrorMessage, phraseInput } from './time-answers.js';

export type { ResolvedDate } from './time-answers.js';

const resolveDateInput = phraseInput('"friday at 3pm", "a quarter past 3 tomorrow", "in half an hour", "the 20th of next month", "christmas", "mañana a las 5 de la tarde", "dans une demi-heure", "שישי הבא ב-8 בערב"');

/** Converts a date or time the user wrote into an exact instant or day in their time zone (UT-1, UT-5). */
export const resolveDateTool = defineTool({
  name: 'resolve_date',
  description: [
    'Converts a date or time the user wrote (any of English, Hebrew, Spanish, French, German, Portuguese, Russian, Arabic) into a YYYY-MM-DD date in the user\'s time zone, with HH:mm and a full ISO timestamp when it names a time. Knows clock times in every common shape (quarter past, 20 to 2, 8 in the evening, 15h30, 15:30 Uhr), offsets ("in half an hour", "in a fortnight", "3 days from now"), "first tuesday of october", "friday after next", "the 20th of next month", end of day/month, and holidays.',
    'Call it before planning, passing only the time words as written, and put the returned date/iso in every task so all agents use the same moment.',
    'Rules: "friday" is the next Friday, today included; "next friday" is the Friday after the coming one (7–13 days ahead); a time already past today is tomorrow; a time without am/pm gets a note naming the other reading; a date without a year is the next one.',
    'Read `note`. If the answer has status "ambiguous", ask the user which reading they mean. If it is an error, ask the user or write the time in words: never guess a date yourself. For spans ("this week", "next month") use resolve_time_range.',
  ].join(' '),
  inputSchema: resolveDateInput,
  mutates: false,
  async run(input, context) {
    if (!isValidTimezone(context.timezone)) return toolError(invalidTimezoneMessage(context.timezone));
    const now = DateTime.fromJSDate(context.clock.now(), { zone: context.timezone });
    const resolution = resolvePhrase(input.expression, { now, language: input.language ?? context.language, country: context.country });
    switch (resolution.kind) {
      case 'error':
        return toolError(timeErrorMessage(resolution));
      case 'ambiguous':
        return ok(describeAmbiguous(input.expression, resolution, now));
      case 'range':
        return toolError(`"${input.expression}" is a span of time, not one date; use resolve_time_range for it, or describe it in words in the plan.`);
      default:
        return ok(describeDate(input.expression, resolution, now));
    }
  },
});
