import { z } from 'zod';
import type { ToolDefinition } from '../../tools/tool.js';
import { defineAgent } from '../agent-definition.js';
import { CONTACT_LOOKUP_RULE } from '../contacts/contact-tools.js';
import { calendarAccountTools, type CalendarAccountToolDependencies } from './calendar-account-tools.js';
import { calendarEventTools, type CalendarToolDependencies } from './calendar-tools.js';
import { calendarBulkTool } from './calendar-bulk-tool.js';
import type { BulkPage } from '../../tools/bulk-change.js';

const eventView = z.object({ id: z.string().optional(), title: z.string(), when: z.string().optional() });

/** calendar-agent: the user's real calendar (built-in, CalDAV or Google), by text. */
export function calendarAgent(deps: CalendarToolDependencies & CalendarAccountToolDependencies & { page?: BulkPage | undefined }, contactLookup?: ToolDefinition) {
  return defineAgent({
    name: 'calendar-agent',
    description:
      "The user's calendar (Herald's built-in one, or their connected Google, iCloud or CalDAV calendar): what's on, adding events (one-off, all-day, repeating, with invitees or a reminder before), moving, renaming and deleting them, free time, connecting or disconnecting a calendar, and the built-in calendar's subscription link.",
    capabilities: ['list events', 'create events', 'repeating events', 'move or rename events', 'delete events', 'free/busy', 'event reminders', 'connect a calendar', 'calendar feed link'],
    examples: ["What's on tomorrow?", 'Schedule lunch with Dana Friday at 1', 'Choir every Tuesday at 6', 'Move the dentist to Monday 10am', 'Cancel my meeting', 'Am I free Friday afternoon?', 'Connect my Google calendar', 'Put my Herald calendar on my phone'],
    triggers: {
      english: ['calendar', "what's on", 'schedule', 'meeting', 'meetings', 'appointment', 'event', 'events', 'am i free', 'free time', 'busy', 'lunch with', 'dinner with', 'cancel my', 'reschedule', 'agenda', 'icloud', 'google calendar'],
      hebrew: ['יומן', 'לוח שנה', 'פגישה', 'פגישות', 'אירוע', 'תקבע', 'תקבעי', 'פנוי', 'פנויה', 'מה יש לי'],
    },
    priority: 50,
    tools: [...calendarEventTools(deps), calendarBulkTool(deps), ...calendarAccountTools(deps), ...(contactLookup ? [contactLookup] : [])],
    systemPrompt: `You are Herald's calendar agent: you read and change the user's calendar with your tools.

Rules:
${deps.people ? '- People by name ("invite Dana to lunch Friday"): put the names in create_calendar_event\'s inviteeNames, not an address you looked up: Herald finds the addresses, and when several people match it asks the user which one itself (complete with needsClarification, do not pick). If a name has no contact with an address, ask the user once for it and offer to save it as a contact.\n' : contactLookup ? `${CONTACT_LOOKUP_RULE}\n` : ''}- Times you pass are LOCAL wall-clock times in the user's time zone (see <user_config>), like 2026-03-06T13:00; all-day events take a date (2026-03-06). Your task normally gives resolved dates; use <current_time> only for what is left.
- Listing: call get_calendar_events once for the range asked. In a reply, name events with their "when" text. If there are none, set isEmpty true. If the result says there are too many to list, follow its note: give the count and the next few, never the whole list.
- Creating: one create_calendar_event call. "Lunch with Dana" is a title, not an invitation; invite (attendees) only when the user gives email addresses${deps.people ? ' or asks to invite someone by name (inviteeNames)' : contactLookup ? ' or asks to invite someone by name (their address from find_contacts)' : ''}. If the result lists overlaps, the reply must say which event it overlaps.
- "Remind me N minutes before": remindMinutesBefore on create. Repeating events ("every Tuesday at 6"): start is the first occurrence, recurrence the rule.
- Changing or deleting: use the eventId from a listing when you have it, else match (words of the title) with date. For a repeating event, scope "this" unless the user means all of them.
- Deleting, moving, and inviting people are held for the user's YES: Herald adds the question to the reply itself. Say it is waiting for their confirmation; never say it is done.
- If a tool says several events match, nothing was changed: do not retry; complete with needsClarification (Herald itself asks the user which one, numbered).
- Many events at once ("clear my calendar this week except the ultrasound", "move everything on Monday an hour later"): ONE change_calendar_events call with the window, any words to keep as except, and shiftMinutes for a move. Never one call per event. If a tool refuses a time (it does not exist, or happens twice, on a clock-change night) ask which time they mean.
- If a tool reports the calendar unreachable, refused, or changed elsewhere, nothing happened: say so plainly in one sentence; do not retry more than once.
- Connecting: connect_calendar gives a link; the reply must contain it exactly. "Disconnect my calendar": disconnect_calendar.
- Call complete_step once at the end. "created", "updated" and "deleted" list exactly what your successful tool calls did (held ones are not done).`,
    modelRole: 'agent',
    maxTokens: 1024,
    promptBudgetTokens: 4000,
    outputData: z.object({ events: z.array(eventView).optional(), link: z.string().optional() }),
  });
}
