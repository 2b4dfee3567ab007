import { DateTime, Duration } from 'luxon';
import { z } from 'zod';
import type { CalendarEvent } from '../../calendar/calendar-event.js';
import { CalendarError } from '../../calendar/calendar-event.js';
import type { CalendarService, UserCalendar } from '../../calendar/calendar-service.js';
import type { EventReminders } from '../../calendar/event-reminders.js';
import { describeEventTime } from '../../calendar/event-view.js';
import { normalizeFact as normalizeText } from '../../memory/fact-service.js';
import { say } from '../../texts/texts.js';
import { BULK_MAX_ITEMS, bulkQuestion, bulkTooMany, toolLanguage, type BulkPage } from '../../tools/bulk-change.js';
import { defineTool, ok, toolError, type ToolContext, type ToolDefinition } from '../../tools/tool.js';
import { rangeBound, readRange } from './calendar-inputs.js';

const input = z
  .object({
    action: z.enum(['delete', 'move']),
    from: rangeBound,
    to: rangeBound.optional().describe('Default: the end of the `from` day'),
    query: z.string().trim().min(1).max(200).optional().describe('Only events whose title, place or notes contain these words'),
    except: z.array(z.string().trim().min(1).max(100)).max(20).optional().describe('Keep events whose title contains any of these ("ultrasound")'),
    shiftMinutes: z.number().int().min(-525_600).max(525_600).optional().describe('For move: how far to move each event, in minutes (60 = an hour later, -1440 = a day earlier)'),
    events: z.array(z.object({ id: z.string().min(1).max(1100), version: z.string().max(300).optional() })).max(BULK_MAX_ITEMS).optional().describe('Never set this: Herald pins the confirmed events here'),
  })
  .refine((value) => value.action === 'delete' || (value.shiftMinutes !== undefined && value.shiftMinutes !== 0), 'a move needs shiftMinutes (not 0)');
type BulkInput = z.output<typeof input>;

/** The events of the window the change touches: matching `query`, none whose title contains an `except` phrase. */
async function select(calendar: UserCalendar, value: BulkInput, context: ToolContext): Promise<{ ok: true; events: CalendarEvent[]; range: string } | { ok: false; error: string }> {
  const range = readRange(value.from, value.to, context.timezone);
  if (!range.ok) return range;
  const events = await calendar.provider.listEvents(range.range, context.timezone);
  const words = value.query ? normalizeText(value.query).split(' ').filter(Boolean) : [];
  const kept = (value.except ?? []).map((phrase) => normalizeText(phrase)).filter(Boolean);
  const chosen = events.filter((event) => {
    const haystack = ` ${normalizeText([event.title, event.location ?? '', event.description ?? ''].join(' '))} `;
    if (!words.every((word) => haystack.includes(word))) return false;
    const title = ` ${normalizeText(event.title)} `;
    return !kept.some((phrase) => title.includes(phrase));
  });
  const first = DateTime.fromJSDate(range.range.from, { zone: context.timezone });
  const last = DateTime.fromJSDate(new Date(range.range.to.getTime() - 1), { zone: context.timezone });
  const window = first.hasSame(last, 'day') ? first.toFormat('ccc d LLL') : `${first.toFormat('ccc d LLL')} – ${last.toFormat('ccc d LLL')}`;
  return { ok: true, events: chosen, range: window };
}

/** A time moved by `minutes` in its own zone (wall clock), or a date by whole days. */
function shifted(value: string, zone: string, minutes: number): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return DateTime.fromISO(value, { zone: 'UTC' }).plus({ days: Math.round(minutes / 1440) }).toISODate()!;
  return DateTime.fromISO(value, { zone }).plus({ minutes }).toFormat("yyyy-MM-dd'T'HH:mm");
}

/**
 * `change_calendar_events` (seed 003's deleteByWindow with excludeSummaries): deletes or
 * moves every event of a time window in one call, with exclusions by words. It asks ONE
 * question listing what changes (the count, the first ten, a page with all of them when
 * there are more), pinned to exactly those events by id and version: an event added after
 * the question is never touched, nor one changed elsewhere since. Over 500 is refused.
 */
export function calendarBulkTool(deps: { calendars: CalendarService; eventReminders: EventReminders; page?: BulkPage | undefined }): ToolDefinition {
  return defineTool({
    name: 'change_calendar_events',
    description:
      'Delete or move ALL the events of a time window in ONE call ("clear my calendar this week except the ultrasound", "push everything on Monday an hour later"): from/to, optionally only those matching `query`, keeping those whose title contains an `except` phrase. Held for one YES listing what changes; refused above 500 events.',
    mutates: true,
    inputSchema: input,
    modelSchema: z.object({ action: input.shape.action, from: input.shape.from, to: input.shape.to, query: input.shape.query, except: input.shape.except, shiftMinutes: input.shape.shiftMinutes }),
    confirmation: async (value, context) => {
      if (value.events) return undefined;
      const found = await select(await deps.calendars.calendarOf(context.userId), value, context);
      if (!found.ok || found.events.length === 0 || found.events.length > BULK_MAX_ITEMS) return undefined;
      const language = toolLanguage(context);
      const except = value.except?.length ? say(language, 'bulkExcept', { names: value.except.map((phrase) => `"${phrase}"`).join(', ') }) : '';
      const lines = found.events.map((event) => `${event.title}, ${describeEventTime(event)}`);
      const shift = value.shiftMinutes ? `${value.shiftMinutes > 0 ? '+' : '−'}${Duration.fromObject({ minutes: Math.abs(value.shiftMinutes) }).shiftTo(...(Math.abs(value.shiftMinutes) % 1440 === 0 ? (['days'] as const) : Math.abs(value.shiftMinutes) % 60 === 0 ? (['hours'] as const) : (['minutes'] as const))).reconfigure({ locale: language }).toHuman()}` : '';
      const key = value.action === 'delete' ? 'bulkDeleteEvents' : 'bulkMoveEvents';
      return {
        question: await bulkQuestion(context, key, { range: found.range, except, shift }, lines, deps.page, value.action === 'delete' ? 'Events to delete' : 'Events to move'),
        done: say(language, value.action === 'delete' ? 'bulkDeletedEvents' : 'bulkMovedEvents', { count: found.events.length }),
        input: { ...value, events: found.events.map((event) => ({ id: event.id, ...(event.version ? { version: event.version } : {}) })) },
      };
    },
    run: async (value, context) => {
      const calendar = await deps.calendars.calendarOf(context.userId);
      if (!context.confirmed || !value.events) {
        const found = await select(calendar, value, context);
        if (!found.ok) return toolError(found.error);
        if (found.events.length > BULK_MAX_ITEMS) return toolError(bulkTooMany(context, found.events.length));
        return toolError(found.events.length === 0 ? `No event in ${found.range} matches. Nothing was changed.` : 'Changing several events needs the user\'s confirmation. Nothing was changed.');
      }
      let changed = 0;
      for (const pinned of value.events) {
        const event = await calendar.provider.getEvent(pinned.id, context.timezone);
        if (!event) continue; // deleted elsewhere since the question: nothing to do
        const series = !event.recurrence;
        const options = { scope: series ? ('series' as const) : ('occurrence' as const), version: pinned.version, timezone: context.timezone };
        try {
          if (value.action === 'delete') {
            await calendar.provider.deleteEvent(event.id, options);
            if (series) await deps.eventReminders.deleted(context.userId, calendar.key, event.id);
            else await deps.eventReminders.occurrenceDeleted(context.userId, calendar.key, event);
          } else {
            const minutes = value.shiftMinutes ?? 0;
            const updated = await calendar.provider.updateEvent(event.id, { allDay: event.allDay, start: shifted(event.start, context.timezone, minutes), end: shifted(event.end, context.timezone, minutes) }, options);
            if (series) await deps.eventReminders.moved(context.userId, calendar.key, updated);
            else await deps.eventReminders.occurrenceMoved(context.userId, calendar.key, event, updated);
          }
          changed += 1;
        } catch (error) {
          // Changed elsewhere since the question (a newer version) or gone: left as it is.
          if (error instanceof CalendarError && (error.failure === 'conflict' || error.failure === 'not_found')) continue;
          throw error;
        }
      }
      const language = toolLanguage(context);
      return ok({
        effect: value.action === 'delete' ? 'deleted' : 'updated',
        effects: { created: 0, updated: value.action === 'move' ? changed : 0, deleted: value.action === 'delete' ? changed : 0 },
        reply: say(language, value.action === 'delete' ? 'bulkDeletedEvents' : 'bulkMovedEvents', { count: changed }),
      });
    },
  });
}
