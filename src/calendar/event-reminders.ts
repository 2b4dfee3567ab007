import { DateTime } from 'luxon';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Recurrence } from '../reminders/reminder-schedule.js';
import type { ReminderService } from '../reminders/reminder-service.js';
import type { CalendarEvent } from './calendar-event.js';
import { seriesKey } from './event-lookup.js';

/**
 * Reminders for events ("remind me 30 minutes before"): ordinary reminders, delivered the
 * way every reminder is, linked to the event so moving it moves them and deleting it
 * cancels them.
 */
export class EventReminders {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly reminders: ReminderService,
  ) {}

  /** A reminder `minutesBefore` the event (each occurrence, for a recurring one). */
  async add(userId: string, calendarKey: string, event: CalendarEvent, minutesBefore: number, recurrence?: Recurrence): Promise<{ ok: true; at: string } | { ok: false; error: string }> {
    const at = this.reminderTime(event, minutesBefore);
    if (recurrence && at.slice(0, 10) !== event.start.slice(0, 10) && (recurrence.weekdays || recurrence.monthDays)) {
      return { ok: false, error: 'A repeating reminder that falls on the day before a repeating event is not supported; the event was saved without it. Suggest a reminder on the same day instead.' };
    }
    const created = await this.reminders.create(userId, event.timezone, { text: reminderText(event), at, recurrence });
    if (!created.ok) return { ok: false, error: `The event was saved, but its reminder was not: ${created.error}` };
    await this.prisma.calendarEventReminder.create({ data: { userId, calendarKey, eventId: seriesKey(event.id), reminderId: created.value.id, minutesBefore } });
    return { ok: true, at: created.value.next ?? at };
  }

  /** After the event moved: its reminders move with it (each the same minutes before). */
  async moved(userId: string, calendarKey: string, event: CalendarEvent): Promise<void> {
    for (const link of await this.links(userId, calendarKey, event.id)) {
      await this.reminders.update(userId, { reminderId: link.reminderId }, { at: this.reminderTime(event, link.minutesBefore), text: reminderText(event) });
    }
  }

  /**
   * After one occurrence of a repeating event moved: the series' reminders skip its old time,
   * and a one-off reminder (linked to that occurrence) goes with it, the same minutes before;
   * moved again, that one-off moves.
   */
  async occurrenceMoved(userId: string, calendarKey: string, before: CalendarEvent, after: CalendarEvent): Promise<void> {
    const ownLinks = await this.occurrenceLinks(userId, calendarKey, before.id);
    if (ownLinks.length > 0) {
      for (const link of ownLinks) await this.reminders.update(userId, { reminderId: link.reminderId }, { at: this.reminderTime(after, link.minutesBefore), text: reminderText(after) });
      return;
    }
    for (const link of await this.links(userId, calendarKey, before.id)) {
      await this.reminders.skipOccurrence(userId, link.reminderId, this.reminderInstant(before, link.minutesBefore));
      const created = await this.reminders.create(userId, after.timezone, { text: reminderText(after), at: this.reminderTime(after, link.minutesBefore) });
      // A moved occurrence whose reminder time has passed gets none (the series' is skipped all the same).
      if (created.ok) await this.prisma.calendarEventReminder.create({ data: { userId, calendarKey, eventId: before.id, reminderId: created.value.id, minutesBefore: link.minutesBefore } });
    }
  }

  /** After one occurrence of a repeating event was deleted: the series' reminders skip it; its own (if it was moved) is cancelled. */
  async occurrenceDeleted(userId: string, calendarKey: string, occurrence: CalendarEvent): Promise<void> {
    const ownLinks = await this.occurrenceLinks(userId, calendarKey, occurrence.id);
    for (const link of ownLinks) {
      await this.reminders.cancel(userId, { reminderId: link.reminderId });
      await this.prisma.calendarEventReminder.delete({ where: { id: link.id } });
    }
    if (ownLinks.length > 0) return;
    for (const link of await this.links(userId, calendarKey, occurrence.id)) {
      await this.reminders.skipOccurrence(userId, link.reminderId, this.reminderInstant(occurrence, link.minutesBefore));
    }
  }

  /** After the event was deleted: its reminders, and those of its moved occurrences, are cancelled. */
  async deleted(userId: string, calendarKey: string, eventId: string): Promise<void> {
    const key = seriesKey(eventId);
    const all = await this.prisma.calendarEventReminder.findMany({ where: { userId, calendarKey, eventId: { startsWith: key } } });
    for (const link of all.filter((candidate) => seriesKey(candidate.eventId) === key)) {
      await this.reminders.cancel(userId, { reminderId: link.reminderId });
      await this.prisma.calendarEventReminder.delete({ where: { id: link.id } });
    }
  }

  /** The series' reminders (linked by the series key). */
  private links(userId: string, calendarKey: string, eventId: string) {
    return this.prisma.calendarEventReminder.findMany({ where: { userId, calendarKey, eventId: seriesKey(eventId) } });
  }

  /** One moved occurrence's own reminders (linked by the occurrence's id). */
  private occurrenceLinks(userId: string, calendarKey: string, occurrenceId: string) {
    if (seriesKey(occurrenceId) === occurrenceId) return Promise.resolve([]);
    return this.prisma.calendarEventReminder.findMany({ where: { userId, calendarKey, eventId: occurrenceId } });
  }

  private reminderInstant(event: CalendarEvent, minutesBefore: number): Date {
    return DateTime.fromISO(this.reminderTime(event, minutesBefore), { zone: event.timezone }).toJSDate();
  }

  private reminderTime(event: CalendarEvent, minutesBefore: number): string {
    const start = event.allDay ? DateTime.fromISO(`${event.start}T09:00`, { zone: event.timezone }) : DateTime.fromJSDate(event.startsAt, { zone: event.timezone });
    const at = start.minus({ minutes: minutesBefore });
    return at.toFormat(at.second === 0 ? "yyyy-MM-dd'T'HH:mm" : "yyyy-MM-dd'T'HH:mm:ss");
  }
}

function reminderText(event: CalendarEvent): string {
  if (event.allDay) return event.title;
  return `${event.title} at ${DateTime.fromJSDate(event.startsAt, { zone: event.timezone }).toFormat('h:mm a')}`;
}
