import { DateTime } from 'luxon';
import { z } from 'zod';
import type { CalendarEvent, EventChanges, EventDraft } from '../../calendar/calendar-event.js';
import type { CalendarService, UserCalendar } from '../../calendar/calendar-service.js';
import { findEvent, type LookupResult } from '../../calendar/event-lookup.js';
import type { EventReminders } from '../../calendar/event-reminders.js';
import { describeWhen } from '../../calendar/event-time.js';
import { describeEventTime, eventListing, eventView } from '../../calendar/event-view.js';
import { freeSlots } from '../../calendar/free-time.js';
import { recurrenceSchema, toRrule } from '../../reminders/reminder-schedule.js';
import { defineTool, ok, toolError, type ToolContext, type ToolDefinition, type ToolResult } from '../../tools/tool.js';
import { resolveNames, type PeopleFinder } from '../contacts/people-by-name.js';
import { checkTime, dateTimeInput, dayAfter, isoDate, rangeBound, readRange, whenAmbiguous } from './calendar-inputs.js';

/** What the calendar tools work through. */
export interface CalendarToolDependencies {
  calendars: CalendarService;
  eventReminders: EventReminders;
  /** The user's contacts, so a new event can invite people by name ("invite Dana"); absent, only addresses. */
  people?: PeopleFinder | undefined;
}

const startInput = z.union([isoDate, dateTimeInput]).describe("Local date and time (2026-03-06T13:00), an ISO timestamp with offset, or a date (2026-03-06) for an all-day event");
const target = {
  eventId: z.string().trim().min(1).max(1100).optional().describe('The id from get_calendar_events (best)'),
  match: z.string().trim().min(1).max(200).optional().describe('Words of the title, when there is no id, e.g. "dentist"'),
  date: isoDate.optional().describe('With match: the day to look on'),
  scope: z.enum(['this', 'all']).optional().describe('For a repeating event: only this occurrence (default) or the whole series'),
  version: z.string().max(300).optional().describe('The version from get_calendar_events, so a change made elsewhere since is never overwritten'),
};
const emails = z.array(z.string().trim().email()).max(50);

type TargetInput = { eventId?: string | undefined; match?: string | undefined; date?: string | undefined };

async function lookUp(calendar: UserCalendar, input: TargetInput, context: ToolContext): Promise<LookupResult> {
  const range = input.date ? readRange(input.date, input.date, context.timezone) : undefined;
  if (range && !range.ok) return range;
  return findEvent(calendar.provider, { eventId: input.eventId, match: input.match, range: range?.range }, context.timezone, context.clock.now());
}

/** The exact event a confirmed call acts on: its id and version replace the words that found it. */
function pinned<Input extends TargetInput & { version?: string | undefined }>(input: Input, event: CalendarEvent): Input {
  return { ...input, eventId: event.id, match: undefined, date: undefined, version: event.version ?? input.version };
}

/**
 * A failed lookup as the model reads it: several events become Herald's own numbered
 * "Which one?", each candidate this call pinned to that event (id and version).
 */
function lookupError<Input extends TargetInput & { version?: string | undefined }>(found: Extract<LookupResult, { ok: false }>, input: Input) {
  const choice = found.candidates?.length ? { candidates: found.candidates.map((event) => ({ label: `${event.title}, ${describeEventTime(event)}`, input: pinned(input, event) })) } : undefined;
  return toolError(found.error, { choice, gone: found.gone });
}

/** calendar-agent's event tools (names are part of the contract). */
export function calendarEventTools({ calendars, eventReminders, people }: CalendarToolDependencies): ToolDefinition[] {
  const createInput = z
    .object({
      title: z.string().trim().min(1).max(200),
      start: startInput,
      end: startInput.optional().describe('End time; for all-day events the last day (inclusive)'),
      durationMinutes: z.number().int().min(1).max(20_160).optional().describe('Instead of end (default 60 minutes)'),
      location: z.string().trim().max(300).optional(),
      description: z.string().trim().max(2000).optional(),
      attendees: emails.optional().describe('Email addresses to invite (the user confirms before invitations go out)'),
      inviteeNames: z
        .array(z.string().trim().min(1).max(120))
        .max(20)
        .optional()
        .describe('People from the user\'s contacts to invite, by the name the user used ("Dana", "mom"): Herald finds their addresses, and asks the user which one itself when several match'),
      recurrence: recurrenceSchema.optional().describe('Only for repeating events ("every Tuesday")'),
      remindMinutesBefore: z.number().int().min(0).max(10_080).optional().describe('A text reminder this many minutes before (each occurrence)'),
      whenAmbiguous,
    })
    .refine((input) => !(input.end && input.durationMinutes), 'give end or durationMinutes, not both');

  type CreateInput = z.output<typeof createInput>;

  /**
   * The invitees named (inviteeNames) as addresses in `attendees`. Several people for a name:
   * the call fails with Herald's own numbered choice, each candidate this call with that
   * person's address pinned, so "2" asks YES to exactly that invitation with no model.
   */
  async function withInvitees(input: CreateInput, context: ToolContext): Promise<{ ok: true; input: CreateInput } | { ok: false; result: ToolResult }> {
    const wanted = input.inviteeNames ?? [];
    if (wanted.length === 0) return { ok: true, input };
    if (!people) return { ok: false, result: toolError('Herald has no contacts to look names up in here: give the addresses in "attendees". Nothing was saved.') };
    const resolved = await resolveNames(people, context.userId, wanted, input.attendees ?? [], 'nothing was saved');
    if (resolved.ok) return { ok: true, input: { ...input, attendees: resolved.addresses, inviteeNames: undefined } };
    if (resolved.kind === 'unknown') return { ok: false, result: toolError(resolved.error) };
    const candidates = resolved.matches.map((match) => ({ label: match.label, input: { ...input, attendees: [...resolved.addresses, match.address], inviteeNames: resolved.rest.length > 0 ? resolved.rest : undefined } }));
    return { ok: false, result: toolError(resolved.error, { choice: { candidates } }) };
  }

  function draftOf(input: CreateInput, zone: string): { ok: true; draft: EventDraft; note?: string } | { ok: false; error: string } {
    const base = { title: input.title, timezone: zone, location: input.location, description: input.description, attendees: input.attendees, recurrence: input.recurrence ? toRrule(input.recurrence) : undefined };
    if (/^\d{4}-\d{2}-\d{2}$/.test(input.start)) {
      const last = input.end?.slice(0, 10) ?? input.start;
      if (last < input.start) return { ok: false, error: 'The last day is before the first. Nothing was saved.' };
      return { ok: true, draft: { ...base, allDay: true, start: input.start, end: dayAfter(last) } };
    }
    const start = checkTime(input.start, zone, input.whenAmbiguous);
    if (!start.ok) return start;
    const end = input.end ? checkTime(input.end, zone, input.whenAmbiguous) : checkTime(new Date(start.instant.getTime() + (input.durationMinutes ?? 60) * 60_000).toISOString(), zone, 'earlier');
    if (!end.ok) return end;
    if (end.instant.getTime() <= start.instant.getTime()) return { ok: false, error: 'The end must be after the start. Nothing was saved.' };
    return { ok: true, draft: { ...base, allDay: false, start: start.local, end: end.local }, ...(start.note ? { note: start.note } : {}) };
  }

  const updateInput = z
    .object({
      ...target,
      title: z.string().trim().min(1).max(200).optional(),
      start: startInput.optional().describe('New start (the length is kept unless end or durationMinutes is given)'),
      end: startInput.optional(),
      durationMinutes: z.number().int().min(1).max(20_160).optional(),
      location: z.string().trim().max(300).optional(),
      description: z.string().trim().max(2000).optional(),
      attendees: emails.optional().describe('The full new list of invitees'),
      recurrence: recurrenceSchema.nullable().optional().describe('A new repeat rule for the series, or null to stop repeating'),
      whenAmbiguous,
    })
    .refine((input) => input.eventId || input.match, 'give eventId or match')
    .refine((input) => Object.keys(input).some((key) => ['title', 'start', 'end', 'durationMinutes', 'location', 'description', 'attendees', 'recurrence'].includes(key)), 'give something to change');
  type UpdateInput = z.output<typeof updateInput>;
  const needsYes = (input: UpdateInput, event: CalendarEvent) =>
    input.start !== undefined || input.end !== undefined || input.durationMinutes !== undefined || (input.attendees ?? []).some((email) => !event.attendees.includes(email));

  function changesOf(input: UpdateInput, event: CalendarEvent, zone: string): { ok: true; changes: EventChanges; note?: string } | { ok: false; error: string } {
    const changes: EventChanges = { title: input.title, location: input.location, description: input.description, attendees: input.attendees };
    if (input.recurrence !== undefined) changes.recurrence = input.recurrence ? toRrule(input.recurrence) : null;
    let note: string | undefined;
    if (input.start && /^\d{4}-\d{2}-\d{2}$/.test(input.start)) {
      Object.assign(changes, { allDay: true, start: input.start, end: input.end ? dayAfter(input.end.slice(0, 10)) : undefined });
    } else if (input.start || input.end || input.durationMinutes) {
      const start = input.start ? checkTime(input.start, zone, input.whenAmbiguous) : undefined;
      if (start && !start.ok) return start;
      note = start?.note;
      const startInstant = start?.instant ?? event.startsAt;
      const end = input.end ? checkTime(input.end, zone, input.whenAmbiguous) : input.durationMinutes ? checkTime(new Date(startInstant.getTime() + input.durationMinutes * 60_000).toISOString(), zone, 'earlier') : undefined;
      if (end && !end.ok) return end;
      Object.assign(changes, { allDay: false, start: start?.local ?? (event.allDay ? undefined : event.start), end: end?.local });
    }
    return { ok: true, changes, ...(note ? { note } : {}) };
  }

  return [
    defineTool({
      name: 'get_calendar_events',
      description: "List the user's calendar events (repeating ones as their occurrences) from `from` to `to`, optionally only those whose title, place or notes contain the words of `query`. Long ranges come back as counts per day beyond the first 30 events.",
      mutates: false,
      inputSchema: z.object({ from: rangeBound, to: rangeBound.optional().describe('Default: the end of the `from` day'), query: z.string().trim().max(200).optional() }),
      run: async (input, context) => {
        const range = readRange(input.from, input.to, context.timezone);
        if (!range.ok) return toolError(range.error);
        const calendar = await calendars.calendarOf(context.userId);
        let events = await calendar.provider.listEvents(range.range, context.timezone);
        if (input.query) {
          const words = input.query.toLowerCase().split(/\s+/).filter(Boolean);
          events = events.filter((event) => words.every((word) => `${event.title} ${event.location ?? ''} ${event.description ?? ''}`.toLowerCase().includes(word)));
        }
        return ok(eventListing(events, calendar.provider.label));
      },
    }),
    defineTool({
      name: 'create_calendar_event',
      description:
        'Add an event. Timed: start (and end or durationMinutes, default 60). All-day: start is a date (end the last day). Reports events it overlaps: tell the user. With attendees, invitations wait for the user\'s YES. Refuses (saving nothing) a local time that does not exist or happens twice that night (DST).',
      mutates: true,
      inputSchema: createInput,
      confirmation: async (given, context) => {
        // Names that need the user (nobody, or several people) are not asked about here: the call runs and says so.
        const named = await withInvitees(given, context);
        if (!named.ok) return undefined;
        const { input } = named;
        if (!input.attendees?.length) return undefined;
        const built = draftOf(input, context.timezone);
        if (!built.ok) return undefined;
        const when = describeWhen(built.draft);
        const invitees = input.attendees.join(', ');
        return { question: `Add "${input.title}" on ${when} and invite ${invitees}?`, done: `Added "${input.title}" (${when}) and invited ${invitees}.`, ...(given.inviteeNames?.length ? { input } : {}) };
      },
      run: async (given, context) => {
        const named = await withInvitees(given, context);
        if (!named.ok) return named.result;
        const { input } = named;
        const built = draftOf(input, context.timezone);
        if (!built.ok) return toolError(built.error);
        // Names resolved only now (the contacts changed since the question was not asked): invitations still wait for YES.
        if (given.inviteeNames?.length && !context.confirmed) return toolError("Inviting people needs the user's YES to the exact invitation. Nothing was saved; call again.");
        const calendar = await calendars.calendarOf(context.userId);
        const created = await calendar.provider.createEvent(built.draft);
        const clashes = created.allDay ? [] : (await calendar.provider.listEvents({ from: created.startsAt, to: created.endsAt }, context.timezone)).filter((event) => !event.allDay && !sameSeries(event.id, created.id));
        const reminder = input.remindMinutesBefore !== undefined ? await eventReminders.add(context.userId, calendar.key, created, input.remindMinutesBefore, input.recurrence) : undefined;
        return ok({
          effect: 'created',
          event: eventView(created),
          ...(clashes.length > 0 ? { overlaps: clashes.slice(0, 5).map((event) => ({ title: event.title, when: eventView(event).when })), overlapNote: 'It overlaps these events: say so in the reply.' } : {}),
          ...(reminder ? (reminder.ok ? { reminderAt: reminder.at } : { reminderProblem: reminder.error }) : {}),
          ...(built.note ? { note: built.note } : {}),
        });
      },
    }),
    defineTool({
      name: 'update_calendar_event',
      description:
        'Change an event found by eventId (or words of its title as match, with date): rename it, move it (start; its length is kept), change place, notes, invitees or how it repeats. scope "this" (default) or "all" for a repeating event. Moving it, or inviting people, waits for the user\'s YES. If several events match, nothing changes and they are listed: ask which.',
      mutates: true,
      inputSchema: updateInput,
      confirmation: async (input, context) => {
        const calendar = await calendars.calendarOf(context.userId);
        const found = await lookUp(calendar, input, context);
        if (!found.ok || !needsYes(input, found.event)) return undefined;
        const event = found.event;
        const built = changesOf(input, event, context.timezone);
        if (!built.ok) return undefined;
        const series = input.scope === 'all' && event.recurrence ? 'every ' : '';
        const invite = input.attendees?.length ? ` and invite ${input.attendees.join(', ')}` : '';
        if (input.start && built.changes.start) {
          const next = describeWhen({ allDay: built.changes.allDay ?? event.allDay, start: built.changes.start, timezone: context.timezone });
          return { question: `Move ${series}"${event.title}" from ${describeWhen(event)} to ${next}${invite}?`, done: `Moved "${event.title}" to ${next}.`, input: pinned(input, event) };
        }
        if (built.changes.end) {
          const end = DateTime.fromISO(built.changes.end, { zone: context.timezone }).toFormat(built.changes.end.includes('T') ? 'h:mm a' : 'ccc d LLL');
          return { question: `Change ${series}"${event.title}" (${describeWhen(event)}) to end at ${end}${invite}?`, done: `"${event.title}" now ends at ${end}.`, input: pinned(input, event) };
        }
        return { question: `Change ${series}"${event.title}" (${describeWhen(event)})${invite}?`, done: `Updated "${event.title}" and sent the invitations.`, input: pinned(input, event) };
      },
      run: async (input, context) => {
        const calendar = await calendars.calendarOf(context.userId);
        const found = await lookUp(calendar, input, context);
        if (!found.ok) return lookupError(found, input);
        if (!context.confirmed && needsYes(input, found.event)) return toolError('Moving an event or inviting people needs the user\'s confirmation, and the event could not be confirmed. Nothing was changed.');
        const built = changesOf(input, found.event, context.timezone);
        if (!built.ok) return toolError(built.error);
        const updated = await calendar.provider.updateEvent(found.event.id, built.changes, { scope: input.scope === 'all' ? 'series' : 'occurrence', version: input.version, timezone: context.timezone });
        if ((built.changes.start || built.changes.end) && (input.scope === 'all' || !found.event.recurrence)) await eventReminders.moved(context.userId, calendar.key, updated);
        // One occurrence moved: the series' reminder skips its old time and a reminder of its own goes with it.
        else if (built.changes.start) await eventReminders.occurrenceMoved(context.userId, calendar.key, found.event, updated);
        return ok({ effect: 'updated', event: eventView(updated), ...(built.note ? { note: built.note } : {}) });
      },
    }),
    defineTool({
      name: 'delete_calendar_event',
      description:
        'Delete an event found by eventId (or words of its title as match, with date); scope "this" (default) or "all" for a repeating event. It waits for the user\'s YES. If several events match, nothing is deleted and they are listed: ask which.',
      mutates: true,
      inputSchema: z.object(target).refine((input) => input.eventId || input.match, 'give eventId or match'),
      confirmation: async (input, context) => {
        const found = await lookUp(await calendars.calendarOf(context.userId), input, context);
        if (!found.ok) return undefined;
        const event = found.event;
        const what = input.scope === 'all' && event.recurrence ? `every "${event.title}" (${eventView(event).repeats ?? 'repeating'})` : `"${event.title}" on ${describeWhen(event)}${event.recurrence ? ' (only that one)' : ''}`;
        return { question: `Delete ${what}?`, done: `Deleted ${what}.`, input: pinned(input, event) };
      },
      run: async (input, context) => {
        const calendar = await calendars.calendarOf(context.userId);
        const found = await lookUp(calendar, input, context);
        if (!found.ok) return lookupError(found, input);
        if (!context.confirmed) return toolError('Deleting needs the user\'s confirmation, and the event could not be confirmed. Nothing was deleted.');
        const series = input.scope === 'all' || !found.event.recurrence;
        await calendar.provider.deleteEvent(found.event.id, { scope: series ? 'series' : 'occurrence', version: input.version, timezone: context.timezone });
        if (series) await eventReminders.deleted(context.userId, calendar.key, found.event.id);
        else await eventReminders.occurrenceDeleted(context.userId, calendar.key, found.event);
        return ok({ effect: 'deleted', event: { title: found.event.title, when: eventView(found.event).when } });
      },
    }),
    defineTool({
      name: 'find_free_time',
      description: 'Free time between `from` and `to` ("am I free Friday afternoon?"): the free stretches of at least minMinutes within each day\'s hours, and what is busy.',
      mutates: false,
      inputSchema: z.object({
        from: rangeBound,
        to: rangeBound.optional(),
        minMinutes: z.number().int().min(5).max(1440).optional().describe('Default 30'),
        dayStart: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/).optional().describe('Default 08:00'),
        dayEnd: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/).optional().describe('Default 20:00 (at most 23:59)'),
      }),
      run: async (input, context) => {
        const range = readRange(input.from, input.to, context.timezone);
        if (!range.ok) return toolError(range.error);
        const calendar = await calendars.calendarOf(context.userId);
        const events = await calendar.provider.listEvents(range.range, context.timezone);
        const free = freeSlots(events, range.range, { zone: context.timezone, minMinutes: input.minMinutes ?? 30, dayStart: input.dayStart ?? '08:00', dayEnd: input.dayEnd ?? '20:00' });
        const busy = events.filter((event) => !event.allDay);
        return ok({
          isFree: busy.length === 0,
          free: free.slice(0, 20),
          busy: busy.slice(0, 20).map((event) => ({ title: event.title, when: eventView(event).when })),
          ...(events.some((event) => event.allDay) ? { allDay: events.filter((event) => event.allDay).slice(0, 10).map((event) => event.title) } : {}),
        });
      },
    }),
  ];
}

function sameSeries(left: string, right: string): boolean {
  return left === right || left.startsWith(`${right}@`) || left.startsWith(`${right}_`);
}
