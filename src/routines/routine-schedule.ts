import rrule from 'rrule';
import { z } from 'zod';
import { recurrenceSchema, toRrule, type Recurrence } from '../reminders/reminder-schedule.js';

const { RRule } = rrule;

/** Routines run at most once an hour (docs/ARCHITECTURE.md "Defaults"): a brief every 5 minutes is a cost, not a routine. */
const ROUTINE_MIN_GAP_MS = 60 * 60 * 1000;

/**
 * How a routine repeats: the reminders' recurrence (daily at, weekdays at, weekly on days
 * at, monthly on a day), plus "hourly" and "minutely" so that "every 5 minutes" can be said,
 * and refused, in plain words rather than squeezed into a daily rule by the model.
 */
export const routineRecurrenceSchema = z
  .object({
    frequency: z.enum(['minutely', 'hourly', 'daily', 'weekly', 'monthly']),
    interval: z.number().int().min(1).max(366).optional().describe('Every N periods, e.g. 2 for "every other week"'),
    weekdays: z.array(z.enum(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'])).min(1).max(7).optional().describe('For weekly: which days, e.g. ["MO","TU","WE","TH","FR"] for weekdays'),
    monthDays: z.array(z.number().int().min(-31).max(31)).min(1).max(31).optional().describe('For monthly: which days, e.g. [1] or [-1] for the last day'),
    until: z.string().trim().optional().describe('Last day (inclusive, local), like 2026-06-30'),
  })
  .describe('How the routine repeats; required');

export type RoutineRecurrence = z.infer<typeof routineRecurrenceSchema>;

/** The RFC 5545 rule for a routine's recurrence, or why it cannot be one (too frequent, not valid). */
export function routineRule(recurrence: RoutineRecurrence): { ok: true; rule: string } | { ok: false; error: string } {
  const interval = recurrence.interval ?? 1;
  const minutes = recurrence.frequency === 'minutely' ? interval : recurrence.frequency === 'hourly' ? interval * 60 : undefined;
  if (minutes !== undefined && minutes * 60_000 < ROUTINE_MIN_GAP_MS) {
    return { ok: false, error: `Routines run at most once an hour; "every ${minutes} minutes" is too often. Nothing was saved: ask the user for hourly or less often.` };
  }
  if (recurrence.frequency === 'minutely' || recurrence.frequency === 'hourly') {
    const options: Partial<ConstructorParameters<typeof RRule>[0]> = { freq: recurrence.frequency === 'hourly' ? RRule.HOURLY : RRule.MINUTELY };
    if (interval > 1) options.interval = interval;
    if (recurrence.weekdays) options.byweekday = recurrence.weekdays.map((day) => RRule[day]);
    return { ok: true, rule: RRule.optionsToString(options).replace(/^RRULE:/, '') };
  }
  const parsed = recurrenceSchema.safeParse({ ...recurrence, frequency: recurrence.frequency } satisfies Partial<Recurrence>);
  if (!parsed.success) return { ok: false, error: `That schedule is not valid: ${parsed.error.issues.map((issue) => issue.message).join('; ')}. Nothing was saved.` };
  return { ok: true, rule: toRrule(parsed.data) };
}

/** Whether consecutive runs (in the instants given, ascending) are ever closer than the minimum gap. */
export function tooFrequent(instants: Date[]): boolean {
  for (let index = 1; index < instants.length; index += 1) {
    if (instants[index]!.getTime() - instants[index - 1]!.getTime() < ROUTINE_MIN_GAP_MS) return true;
  }
  return false;
}
