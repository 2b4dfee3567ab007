import { z } from 'zod';
import { localDateTimeSchema, recurrenceSchema } from '../../reminders/reminder-schedule.js';
import type { ReminderResult, ReminderService } from '../../reminders/reminder-service.js';
import { defineTool, ok, toolError, type ToolDefinition, type ToolResult } from '../../tools/tool.js';

const target = {
  reminderId: z.string().uuid().optional().describe('The reminder id, when known (from get_scheduled_jobs)'),
  match: z.string().trim().min(1).max(200).optional().describe('Words of the reminder text, e.g. "dentist", when the id is not known'),
};
const whenAmbiguous = z
  .enum(['earlier', 'later'])
  .optional()
  .describe('Only when the user chose: which of the two times a local time that happens twice (DST fall-back night) means');

function asToolResult<Value>(result: ReminderResult<Value>, effect: string): ToolResult {
  return result.ok ? ok({ effect, reminder: result.value }) : toolError(result.error);
}

/** scheduler-agent's tools (names are part of the contract). */
export function schedulerTools(reminders: ReminderService): ToolDefinition[] {
  return [
    defineTool({
      name: 'create_scheduled_job',
      description:
        'Create a reminder. `at` is the local wall-clock time in the user\'s time zone (no offset) of the reminder, or of its first occurrence when it repeats. Fails with an explanation (and saves nothing) if the time is past, does not exist or is ambiguous, or the text is too long.',
      mutates: true,
      inputSchema: z.object({
        text: z.string().max(20_000).describe('What to remind the user about, short, e.g. "Call mom"'),
        at: localDateTimeSchema.describe('Local date and time, e.g. 2026-03-02T09:00'),
        recurrence: recurrenceSchema.optional().describe('Only for repeating reminders'),
        whenAmbiguous,
      }),
      run: async (input, context) => asToolResult(await reminders.create(context.userId, context.timezone, input), 'created'),
    }),
    defineTool({
      name: 'get_scheduled_jobs',
      description: "List the user's reminders (active ones, soonest first), optionally only those whose text contains the words of `query`.",
      mutates: false,
      inputSchema: z.object({
        query: z.string().trim().max(200).optional(),
        includeInactive: z.boolean().optional().describe('Also completed and cancelled reminders'),
      }),
      run: async (input, context) => {
        const found = await reminders.list(context.userId, input);
        return ok({ reminders: found, count: found.length, isEmpty: found.length === 0 });
      },
    }),
    defineTool({
      name: 'update_scheduled_job',
      description:
        'Change a reminder, found by id or by words of its text: move it (`at`), rename it (`text`), change or remove how it repeats (`recurrence`, null for one-off). If several reminders match, nothing changes and the matches are listed: ask the user which.',
      mutates: true,
      inputSchema: z
        .object({
          ...target,
          text: z.string().max(20_000).optional(),
          at: localDateTimeSchema.optional(),
          recurrence: recurrenceSchema.nullable().optional(),
          whenAmbiguous,
        })
        .refine((input) => input.reminderId || input.match, 'give reminderId or match')
        .refine((input) => input.text !== undefined || input.at !== undefined || input.recurrence !== undefined, 'give something to change: text, at or recurrence'),
      run: async (input, context) =>
        asToolResult(await reminders.update(context.userId, input, { text: input.text, at: input.at, recurrence: input.recurrence, whenAmbiguous: input.whenAmbiguous }), 'updated'),
    }),
    defineTool({
      name: 'delete_scheduled_job',
      description: 'Cancel a reminder, found by id or by words of its text. If none or several match, nothing is cancelled and you are told which exist.',
      mutates: true,
      inputSchema: z.object(target).refine((input) => input.reminderId || input.match, 'give reminderId or match'),
      run: async (input, context) => asToolResult(await reminders.cancel(context.userId, input), 'deleted'),
    }),
  ];
}
