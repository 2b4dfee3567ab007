import { DateTime } from 'luxon';
import { defineTool, ok, toolError } from '../../tools/tool.js';
import { isValidTimezone } from '../../shared/time-zones.js';
import { resolveRangePhrase } from '../../time/resolve.js';
import { invalidTimezoneMessage } from './time-context.js';
import { describeAmbiguous, describeRange, timeErrorMessage, phraseInput } from './time-answers.js';

export type { ResolvedTimeRange } from './time-answers.js';

const resolveTimeRangeInput = phraseInput('"this week", "next weekend", "tonight", "the next 3 days", "january", "friday 3pm to 5pm", "השבוע", "la semana que viene"');

/** Converts a span the user wrote into start and end timestamps in their time zone (UT-1, UT-5). */
export const resolveTimeRangeTool = defineTool({
  name: 'resolve_time_range',
  description: [
    'Converts a span of time the user wrote ("this week", "next week", "this weekend", "next month", "today", "tomorrow", "tonight", "this morning", "the next 3 days", "january", "friday 3pm to 5pm", "from dec 28 to jan 3", in any of Herald\'s languages) into start and end timestamps in the user\'s time zone.',
    "start is the first moment and end the last (inclusive: 23:59:59 local for whole days), both ISO 8601 with their UTC offset; startDate, endDate and days give the calendar dates. Weeks run Monday to Sunday (Sunday to Saturday for users in Israel and countries with a Friday–Saturday weekend, whose weekend is Friday–Saturday; elsewhere Saturday–Sunday). \"this week\" is the whole week, days already past included; a weekend is the current one on a weekend day, otherwise the coming one; \"the next 3 days\" is today and the 2 days after; a month name alone is its next occurrence, the current month included. Morning is 06:00–11:59, afternoon 12:00–17:59, evening and tonight 18:00–23:59.",
    'Call it before planning and put the returned dates in every task. If the answer has status "ambiguous", ask the user which they mean; if it is an error, ask or describe the span in words: never guess.',
  ].join(' '),
  inputSchema: resolveTimeRangeInput,
  mutates: false,
  async run(input, context) {
    if (!isValidTimezone(context.timezone)) return toolError(invalidTimezoneMessage(context.timezone));
    const now = DateTime.fromJSDate(context.clock.now(), { zone: context.timezone });
    const resolution = resolveRangePhrase(input.expression, { now, language: input.language ?? context.language, country: context.country });
    switch (resolution.kind) {
      case 'error':
        return toolError(timeErrorMessage(resolution));
      case 'ambiguous':
        return ok(describeAmbiguous(input.expression, resolution, now));
      case 'range':
        return ok(describeRange(input.expression, resolution));
      default:
        return toolError(`Could not read "${input.expression}" as a span.`);
    }
  },
});
