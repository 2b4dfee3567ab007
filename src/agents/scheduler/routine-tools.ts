import { z } from 'zod';
import { dateTimeInputSchema, resolveDateTimeInput } from '../../tools/date-time-input.js';
import { routineRecurrenceSchema } from '../../routines/routine-schedule.js';
import type { RoutineResult, RoutineService } from '../../routines/routine-service.js';
import { defineTool, ok, toolError, type ToolDefinition, type ToolResult } from '../../tools/tool.js';

const target = {
  routineId: z.string().uuid().optional().describe('The routine id, when known (from get_routines)'),
  match: z.string().trim().min(1).max(200).optional().describe('Words of the routine\'s name or instruction, e.g. "morning brief" or "Sunday summary"'),
};
const whenAmbiguous = z.enum(['earlier', 'later']).optional().describe('Only when the user chose: which of the two times a local time that happens twice means');
// Long enough to take what a user pastes, so the service can refuse it in plain words.
const instruction = z.string().max(20_000);
const atInput = dateTimeInputSchema.describe("The first run: the user's local date and time (2026-03-02T07:00); later runs keep its time of day");

/** A service result as the model reads it. */
function asToolResult<Value>(result: RoutineResult<Value>, effect: string, note?: string): ToolResult {
  if (result.ok) return ok({ effect, routine: result.value, ...(note ? { note } : {}) });
  return toolError(result.error);
}

/** `at` as the user's wall-clock time (an instant with an offset is converted, with a note). */
function localAt(at: string | undefined, timezone: string): { ok: true; at?: string; whenAmbiguous?: 'earlier' | 'later'; note?: string } | { ok: false; result: ToolResult } {
  if (at === undefined) return { ok: true };
  const resolved = resolveDateTimeInput(at, timezone);
  if (!resolved.ok) return { ok: false, result: toolError(resolved.error) };
  return { ok: true, at: resolved.local, ...(resolved.whenAmbiguous ? { whenAmbiguous: resolved.whenAmbiguous } : {}), ...(resolved.note ? { note: resolved.note } : {}) };
}

/**
 * scheduler-agent's routine tools (names are part of the contract, issue 21): a routine is an
 * instruction in the user's words that Herald carries out on a schedule and texts the result.
 */
export function routineTools(routines: RoutineService): ToolDefinition[] {
  return [
    defineTool({
      name: 'create_routine',
      description:
        'Create a routine: an instruction in the user\'s own words that Herald carries out on a schedule and texts them the result ("every weekday at 7 send me my day"). Not for fixed-text reminders (use create_scheduled_job). Refused (nothing saved) when the instruction is empty or too long, the schedule runs more than once an hour, or the user has too many routines.',
      mutates: true,
      inputSchema: z.object({
        name: z.string().trim().max(80).optional().describe('A short name the user can call it by, e.g. "morning brief"'),
        instruction: instruction.describe('What to do each time, in the user\'s words, e.g. "a short brief of my day: calendar, reminders, unread email"'),
        condition: z.string().max(20_000).optional().describe('Only send when this holds, e.g. "only if I have meetings"'),
        at: atInput,
        recurrence: routineRecurrenceSchema,
        whenAmbiguous,
      }),
      run: async (input, context) => {
        const when = localAt(input.at, context.timezone);
        if (!when.ok) return when.result;
        const created = await routines.create(context.userId, context.timezone, { ...input, at: when.at!, whenAmbiguous: when.whenAmbiguous ?? input.whenAmbiguous });
        return asToolResult(created, 'created', when.note);
      },
    }),
    defineTool({
      name: 'get_routines',
      description: "List the user's routines (active and paused, soonest first), optionally only those whose name or instruction contains the words of `query`.",
      mutates: false,
      inputSchema: z.object({ query: z.string().trim().max(200).optional() }),
      run: async (input, context) => {
        const found = await routines.list(context.userId, input);
        return ok({ routines: found, count: found.length, isEmpty: found.length === 0 });
      },
    }),
    defineTool({
      name: 'update_routine',
      description:
        'Change a routine, found by id or by words of its name or instruction: move it (`at`, e.g. "move it to 6:30"), change how it repeats, its words or condition (null removes it), or pause and resume it (`status`). If several match, nothing changes and they are listed: ask the user which.',
      mutates: true,
      inputSchema: z
        .object({
          ...target,
          name: z.string().trim().max(80).optional(),
          instruction: instruction.optional(),
          condition: z.string().max(20_000).nullable().optional(),
          at: atInput.optional(),
          recurrence: routineRecurrenceSchema.optional(),
          status: z.enum(['active', 'paused']).optional().describe('"paused" stops its runs until resumed ("active")'),
          whenAmbiguous,
        })
        .refine((input) => input.routineId || input.match, 'give routineId or match'),
      run: async (input, context) => {
        const when = localAt(input.at, context.timezone);
        if (!when.ok) return when.result;
        const { routineId, match, ...changes } = input;
        const updated = await routines.update(context.userId, { routineId, match }, { ...changes, at: when.at, whenAmbiguous: when.whenAmbiguous ?? input.whenAmbiguous });
        return asToolResult(updated, 'updated', when.note);
      },
    }),
    defineTool({
      name: 'delete_routine',
      description: 'Delete a routine ("stop sending the Sunday summary"), found by id or by words of its name or instruction. If none or several match, nothing is deleted and you are told which exist.',
      mutates: true,
      inputSchema: z.object(target).refine((input) => input.routineId || input.match, 'give routineId or match'),
      run: async (input, context) => asToolResult(await routines.remove(context.userId, input), 'deleted'),
    }),
  ];
}
