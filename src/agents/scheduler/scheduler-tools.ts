import { z } from 'zod';
import { recurrenceSchema } from '../../reminders/reminder-schedule.js';
import { dateTimeInputSchema, resolveDateTimeInput } from '../../tools/date-time-input.js';
import type { ReminderResult, ReminderService } from '../../reminders/reminder-service.js';
import { defineTool, ok, toolError, type ToolDefinition, type ToolResult } from '../../tools/tool.js';
import { BULK_MAX_ITEMS, bulkQuestion, bulkTooMany, toolLanguage, type BulkPage } from '../../tools/bulk-change.js';
import { say } from '../../texts/texts.js';

const target = {
  reminderId: z.string().uuid().optional().describe('The reminder id, when known (from get_scheduled_jobs)'),
  match: z.string().trim().min(1).max(200).optional().describe('Words of the reminder text, e.g. "dentist", when the id is not known'),
};
const whenAmbiguous = z
  .enum(['earlier', 'later'])
  .optional()
  .describe('Only when the user chose: which of the two times a local time that happens twice (DST fall-back night) means');

/**
 * A service result as the model reads it. Several matching reminders (or one loose match)
 * become Herald's own numbered question: each candidate carries this call's arguments
 * pinned to it by id, so the user's "2" runs exactly that.
 */
function asToolResult<Value>(result: ReminderResult<Value>, effect: string, note?: string, call?: Record<string, unknown>): ToolResult {
  if (result.ok) return ok({ effect, reminder: result.value, ...(note ? { note } : {}) });
  const choice = call && result.candidates?.length
    ? { weak: result.weak, candidates: result.candidates.map((reminder) => ({ label: reminder.next ? `${reminder.text}, ${reminder.next}` : reminder.text, input: { ...call, reminderId: reminder.id, match: undefined } })) }
    : undefined;
  return toolError(result.error, { choice, gone: result.gone });
}

const atInput = dateTimeInputSchema.describe(
  "When: the user's local date and time (2026-03-02T09:00), or an ISO timestamp with its UTC offset (2026-03-02T09:00:00-05:00)",
);

/**
 * `at` as the reminder service takes it: the user's wall-clock time. An ISO timestamp with
 * an offset is one instant; when the offset is not the user's zone's, the instant wins and
 * `note` says the local time (and for a time the clocks show twice, which of the two).
 */
function localAt(
  at: string | undefined,
  whenAmbiguous: 'earlier' | 'later' | undefined,
  timezone: string,
): { ok: true; at?: string; whenAmbiguous?: 'earlier' | 'later'; note?: string } | { ok: false; result: ToolResult } {
  if (at === undefined) return { ok: true, ...(whenAmbiguous ? { whenAmbiguous } : {}) };
  const resolved = resolveDateTimeInput(at, timezone);
  if (!resolved.ok) return { ok: false, result: toolError(resolved.error) };
  const chosen = resolved.whenAmbiguous ?? whenAmbiguous;
  return { ok: true, at: resolved.local, ...(chosen ? { whenAmbiguous: chosen } : {}), ...(resolved.note ? { note: resolved.note } : {}) };
}

/** scheduler-agent's tools (names are part of the contract). */
export function schedulerTools(reminders: ReminderService, page?: BulkPage): ToolDefinition[] {
  const bulkInput = z
    .object({
      match: z.string().trim().min(1).max(200).optional().describe('Words every reminder to cancel contains, e.g. "gym"'),
      all: z.boolean().optional().describe('Every active reminder'),
      reminderIds: z.array(z.string().uuid()).max(BULK_MAX_ITEMS).optional().describe('Never set this: Herald pins the confirmed reminders here'),
    })
    .refine((input) => input.match || input.all || input.reminderIds, 'give match or all');
  return [
    defineTool({
      name: 'create_scheduled_job',
      description:
        "Create a reminder. `at` is when it fires (its first time, when it repeats): preferably the user's local wall-clock time. Fails with an explanation (and saves nothing) if the time is past, does not exist or is ambiguous, or the text is too long.",
      mutates: true,
      inputSchema: z.object({
        text: z.string().max(20_000).describe('What to remind the user about, short, e.g. "Call mom"'),
        at: atInput,
        recurrence: recurrenceSchema.optional().describe('Only for repeating reminders'),
        whenAmbiguous,
      }),
      run: async (input, context) => {
        const when = localAt(input.at, input.whenAmbiguous, context.timezone);
        if (!when.ok) return when.result;
        const created = await reminders.create(context.userId, context.timezone, { ...input, at: when.at!, whenAmbiguous: when.whenAmbiguous });
        return asToolResult(created, 'created', when.note);
      },
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
          at: atInput.optional(),
          recurrence: recurrenceSchema.nullable().optional(),
          whenAmbiguous,
        })
        .refine((input) => input.reminderId || input.match, 'give reminderId or match')
        .refine((input) => input.text !== undefined || input.at !== undefined || input.recurrence !== undefined, 'give something to change: text, at or recurrence'),
      run: async (input, context) => {
        const when = localAt(input.at, input.whenAmbiguous, context.timezone);
        if (!when.ok) return when.result;
        const updated = await reminders.update(context.userId, input, { text: input.text, at: when.at, recurrence: input.recurrence, whenAmbiguous: when.whenAmbiguous });
        return asToolResult(updated, 'updated', when.note, input);
      },
    }),
    defineTool({
      name: 'delete_scheduled_job',
      description: 'Cancel a reminder, found by id or by words of its text. If none or several match, nothing is cancelled and you are told which exist.',
      mutates: true,
      inputSchema: z.object(target).refine((input) => input.reminderId || input.match, 'give reminderId or match'),
      run: async (input, context) => asToolResult(await reminders.cancel(context.userId, input), 'deleted', undefined, input),
    }),
    defineTool({
      name: 'cancel_scheduled_jobs',
      description:
        'Cancel SEVERAL reminders in one call: all whose text contains the words of `match` ("all my gym reminders"), or every one (all: true). Held for ONE YES that lists them; the cancelled count comes back after it. Refused above 500.',
      mutates: true,
      inputSchema: bulkInput,
      modelSchema: z.object({ match: bulkInput.shape.match, all: bulkInput.shape.all }),
      confirmation: async (input, context) => {
        if (input.reminderIds) return undefined;
        const chosen = await reminders.select(context.userId, input);
        if (chosen.length === 0 || chosen.length > BULK_MAX_ITEMS) return undefined;
        const lines = chosen.map((reminder) => (reminder.next ? `${reminder.text}, ${reminder.next}` : reminder.text));
        return {
          question: await bulkQuestion(context, 'bulkCancelReminders', {}, lines, page, 'Reminders to cancel'),
          done: say(toolLanguage(context), 'bulkCancelledReminders', { count: chosen.length }),
          input: { reminderIds: chosen.map((reminder) => reminder.id) },
        };
      },
      run: async (input, context) => {
        if (!context.confirmed || !input.reminderIds) {
          const chosen = await reminders.select(context.userId, input);
          if (chosen.length > BULK_MAX_ITEMS) return toolError(bulkTooMany(context, chosen.length));
          return toolError(chosen.length === 0 ? `No active reminder matches${input.match ? ` "${input.match}"` : ''}. Nothing was cancelled.` : 'Cancelling several reminders needs the user\'s confirmation. Nothing was cancelled.');
        }
        const count = await reminders.cancelMany(context.userId, input.reminderIds);
        return ok({ effect: 'deleted', effects: { created: 0, updated: 0, deleted: count }, reply: say(toolLanguage(context), 'bulkCancelledReminders', { count }) });
      },
    }),
  ];
}
