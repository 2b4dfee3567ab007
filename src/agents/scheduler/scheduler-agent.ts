import { z } from 'zod';
import type { ReminderService } from '../../reminders/reminder-service.js';
import { defineAgent } from '../agent-definition.js';
import { schedulerTools } from './scheduler-tools.js';
import type { BulkPage } from '../../tools/bulk-change.js';
import type { RoutineService } from '../../routines/routine-service.js';
import { routineTools } from './routine-tools.js';

const reminderView = z.object({ id: z.string(), text: z.string(), next: z.string().nullable().optional(), repeats: z.string().nullable().optional() });
const routineView = z.object({ id: z.string(), name: z.string(), status: z.string().optional(), next: z.string().nullable().optional(), repeats: z.string().nullable().optional() });

/** scheduler-agent: creates and manages reminders, one-off and recurring, and routines (when given their service). */
export function schedulerAgent(reminders: ReminderService, page?: BulkPage, routines?: RoutineService) {
  return defineAgent({
    name: 'scheduler-agent',
    description:
      'Creates, lists, moves, renames and cancels reminders the user receives by text at a set time: one-off ("at 5pm", "in 20 minutes") or repeating ("every weekday at 8", "every other Monday", "on the 1st of each month", until a date or N times). Also routines: an instruction Herald carries out on a schedule and texts the result ("every weekday at 7 send me my day"), listed, moved, paused, resumed and deleted by text.',
    capabilities: ['create reminders', 'recurring reminders', 'list reminders', 'move or rename reminders', 'cancel reminders', 'create, list, move, pause, resume and delete routines'],
    examples: ['Remind me to call mom at 5pm', 'Remind me every weekday at 8 to take my pills', 'What reminders do I have?', 'Move the dentist reminder to Friday 10am', 'Cancel the dentist one'],
    triggers: {
      english: ['remind me', 'reminder', 'reminders', 'routine', 'routines', 'morning brief', 'send me my day', 'every day', 'every week', 'every morning', 'every weekday', "don't let me forget", 'alarm', 'nudge me'],
      hebrew: ['תזכיר לי', 'תזכירי לי', 'תזכורת', 'תזכורות', 'כל יום', 'כל בוקר', 'כל שבוע', 'אל תיתן לי לשכוח'],
    },
    priority: 60,
    tools: [...schedulerTools(reminders, page), ...(routines ? routineTools(routines) : [])],
    systemPrompt: `You are Herald's scheduler agent: you manage the user's reminders with your tools.

Rules:
- Times you pass are LOCAL wall-clock times in the user's time zone (see <user_config>), like 2026-03-02T09:00. Your task normally gives resolved dates; use <current_time> only for what is left ("in 20 minutes").
- Reminder text is short and says what to do ("Call mom"), not "remind me to".
- Repeating reminders: set "at" to the first occurrence and fill "recurrence" (weekdays = MO..FR; every other week = interval 2).
- To change or cancel a reminder by description, pass its words as "match" (or the id if you have it). If the tool says several match (or perhaps meant another), do not guess and do not retry: complete with needsClarification; Herald itself asks the user which one, numbered.
- Several reminders at once ("cancel all my gym reminders", "cancel all my reminders"): ONE cancel_scheduled_jobs call (match, or all); it is held for the user's YES, which Herald asks.
- "The reminder just delivered" or "it" with a reminder id in the task: use that reminderId.
- If a tool refuses (time already past, a time that does not exist or happens twice because of a clock change, text too long, no match), nothing was saved: complete with needsClarification and ask the user the one question that resolves it, in plain words.
- If the task is unclear about the time ("sometime"), do not invent one: ask.
- Listing: when there are no reminders, set isEmpty true.
- Routines (create_routine and the rest) are for "every morning at 7 send me my day": Herald DOES the instruction each time (a brief, a summary, a check) and texts the result; a reminder only repeats fixed text. Keep the instruction in the user's words; put "only if…" in condition. Schedules: daily (frequency daily), weekdays (weekly, MO..FR), weekly on days, monthly on a day; never more than hourly (the tool refuses: tell the user). "Pause"/"resume" are update_routine with status; "stop sending X" is delete_routine. Listing: set isEmpty true when there are none.
- Call complete_step once at the end. "created", "updated" and "deleted" list exactly the reminders your successful tool calls created, changed or cancelled.`,
    modelRole: 'agent',
    maxTokens: 1024,
    promptBudgetTokens: 4000,
    outputData: z.object({ reminders: z.array(reminderView).optional(), routines: z.array(routineView).optional() }),
  });
}
