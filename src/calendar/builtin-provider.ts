import type { PrismaClient } from '../db/prisma-types.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import { CalendarError, type CalendarEvent, type EventChanges, type EventDraft, type TimeRange, type WriteOptions } from './calendar-event.js';
import type { CalendarProvider } from './calendar-provider.js';
import { buildEventObject, changeObject, removeFromObject } from './ics-changes.js';
import { eventsInObject, findInObject, objectSpan, objectTitle, splitOccurrenceId } from './ics-object.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Herald's own calendar, in Postgres: each event is its iCalendar object (as a CalDAV server
 * would keep it), with the span it covers for range queries and a sequence that is its
 * version. Changes lock the row, so two writers never lose each other's edit, and a stale
 * version is refused. Everyone has it; nothing to set up; the ICS feed publishes it.
 */
export class BuiltinCalendarProvider implements CalendarProvider {
  readonly kind = 'builtin' as const;
  readonly label = "Herald's calendar";

  constructor(
    private readonly prisma: PrismaClient,
    private readonly userId: string,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async listEvents(range: TimeRange, timezone: string): Promise<CalendarEvent[]> {
    const rows = await this.prisma.calendarEvent.findMany({
      where: { userId: this.userId, startsAt: { lt: range.to }, OR: [{ endsAt: null }, { endsAt: { gt: range.from } }] },
      orderBy: { startsAt: 'asc' },
    });
    return rows.flatMap((row) => eventsInObject(row.ics, range, timezone, row.id, String(row.sequence))).sort((left, right) => left.startsAt.getTime() - right.startsAt.getTime());
  }

  async getEvent(id: string, timezone: string): Promise<CalendarEvent | undefined> {
    const { key, occurrence } = splitOccurrenceId(id);
    if (!UUID.test(key)) return undefined;
    const row = await this.prisma.calendarEvent.findFirst({ where: { id: key, userId: this.userId } });
    return row ? findInObject(row.ics, occurrence, timezone, row.id, String(row.sequence)) : undefined;
  }

  async createEvent(draft: EventDraft): Promise<CalendarEvent> {
    const now = this.clock.now();
    const uid = `${this.ids.next('event')}@herald`;
    const ics = buildEventObject(draft, uid, now);
    const span = objectSpan(ics, draft.timezone);
    const row = await this.prisma.calendarEvent.create({
      data: { userId: this.userId, uid, title: draft.title, ics, startsAt: span.startsAt, endsAt: span.endsAt ?? null, sequence: 0, createdAt: now, updatedAt: now },
    });
    return findInObject(ics, undefined, draft.timezone, row.id, '0')!;
  }

  async updateEvent(id: string, changes: EventChanges, options: WriteOptions): Promise<CalendarEvent> {
    const { key, occurrence } = splitOccurrenceId(id);
    return this.write(key, options.version, async (row, transaction) => {
      const now = this.clock.now();
      const zone = options.timezone;
      const ics = changeObject(row.ics, occurrence, changes, options.scope, zone, now);
      const span = objectSpan(ics, zone);
      const saved = await transaction.calendarEvent.update({
        where: { id: row.id },
        data: { ics, title: objectTitle(ics), startsAt: span.startsAt, endsAt: span.endsAt ?? null, sequence: row.sequence + 1, updatedAt: now },
      });
      const shown = options.scope === 'occurrence' ? occurrence : undefined;
      return findInObject(ics, shown, zone, saved.id, String(saved.sequence))!;
    });
  }

  async deleteEvent(id: string, options: WriteOptions): Promise<void> {
    const { key, occurrence } = splitOccurrenceId(id);
    await this.write(key, options.version, async (row, transaction) => {
      const now = this.clock.now();
      const ics = removeFromObject(row.ics, occurrence, options.scope, now);
      if (ics === undefined) {
        await transaction.calendarEvent.delete({ where: { id: row.id } });
        return;
      }
      await transaction.calendarEvent.update({ where: { id: row.id }, data: { ics, sequence: row.sequence + 1, updatedAt: now } });
    });
  }

  /** Runs a change on the locked row, refusing it when the row is gone or has moved past `version`. */
  private async write<Result>(
    key: string,
    version: string | undefined,
    change: (row: { id: string; ics: string; sequence: number }, transaction: Parameters<Parameters<PrismaClient['$transaction']>[0]>[0]) => Promise<Result>,
  ): Promise<Result> {
    if (!UUID.test(key)) throw new CalendarError('not_found', 'There is no such event in the calendar. Nothing was changed.');
    return this.prisma.$transaction(async (transaction) => {
      await transaction.$queryRaw`SELECT id FROM "CalendarEvent" WHERE id = ${key}::uuid FOR UPDATE`;
      const row = await transaction.calendarEvent.findFirst({ where: { id: key, userId: this.userId } });
      if (!row) throw new CalendarError('not_found', 'That event is no longer in the calendar. Nothing was changed.');
      if (version !== undefined && version !== String(row.sequence)) {
        throw new CalendarError('conflict', 'That event was changed since I read it, so I changed nothing. Ask again to see it as it is now.');
      }
      return change(row, transaction);
    });
  }
}
