import { DateTime } from 'luxon';
import type { ConnectionInput } from '../../../src/connections/connection-store.js';
import type { HeraldHarness } from '../../helpers/herald-harness.js';

/** One user's seeded rows, by the placeholder the fuzz names them with (`note`, `event2`…). */
export type SeededIds = Record<string, string>;

/** The mailbox connection a seeded user gets. */
export type MailboxConnection = ConnectionInput;

/** A service result's value, or a failed seed. */
function checked<Value>(result: { ok: true; value: Value } | { ok: false; error: string }, what: string): Value {
  if (!result.ok) throw new Error(`seeding ${what}: ${result.error}`);
  return result.value;
}

/**
 * One of everything for a user, through Herald's own services, under the placeholders the
 * fuzz names them with: a fact, a note, a list with items, two reminders, a routine, a
 * contact, a page, the calendar feed, two built-in calendar events six months ahead, and a
 * mailbox. `secret` goes into every text (B's: it must never reach A's prompts).
 */
export async function seedUser(harness: HeraldHarness, userId: string, options: { who: string; zone: string; mailbox: MailboxConnection; secret?: string }): Promise<SeededIds> {
  const { herald, database } = harness;
  const { who, zone } = options;
  const secret = options.secret ? ` ${options.secret}` : '';
  const later = DateTime.now().setZone(zone).plus({ months: 6 }).set({ hour: 9, minute: 0, second: 0, millisecond: 0 });
  const local = (offsetDays: number, hour: number) => later.plus({ days: offsetDays }).set({ hour }).toFormat("yyyy-MM-dd'T'HH:mm");
  // Independent rows, seeded at once: most of a run's set-up is waiting on Postgres.
  const seeded = await Promise.all([
    database.prisma.fact.create({ data: { userId, category: 'preferences', subject: 'drink', content: `Prefers tea${secret}`, updatedAt: new Date() } }).then((fact) => ({ fact: fact.id })),
    herald.brain.notes.save(userId, { title: `${who} wifi`, body: `The wifi password is lemon-tree${secret}`, tags: ['home'] }).then((note) => ({ note: checked(note, 'a note').note.id })),
    herald.lists.addItems(userId, `${who} groceries`, ['milk', 'eggs', `bread${secret}`]).then(async (list) => {
      checked(list, 'a list');
      const item = await database.prisma.listItem.findFirstOrThrow({ where: { list: { userId } }, select: { id: true, listId: true } });
      return { list: item.listId, listItem: item.id };
    }),
    herald.reminders.create(userId, zone, { text: `${who} dentist${secret}`, at: local(0, 9) }).then((reminder) => ({ reminder: checked(reminder, 'a reminder').id })),
    herald.reminders.create(userId, zone, { text: `${who} gym${secret}`, at: local(1, 9) }).then((reminder) => ({ reminder2: checked(reminder, 'a reminder').id })),
    herald.routines.create(userId, zone, { name: `${who} brief`, instruction: `Tell me my day${secret}`, at: local(2, 7), recurrence: { frequency: 'monthly' } }).then((routine) => ({ routine: checked(routine, 'a routine').id })),
    herald.contacts.contacts
      .create(userId, { name: `${who === 'Bea' ? 'Boris' : 'Dana'} Levi`, emails: [who === 'Bea' ? 'boris@herald.test' : 'dana@herald.test'], notes: `Met at work${secret}` })
      .then((contact) => ({ contact: checked(contact, 'a contact').contact.id })),
    herald.pages.create(userId, zone, { title: `${who} page`, sections: [{ kind: 'text', markdown: `Hello${secret}` }] }).then((page) => (checked(page, 'a page'), {})),
    herald.calendar.feed.link(userId).then(() => ({})),
    herald.calendar.calendars.calendarOf(userId).then(async ({ provider }) => {
      const event = (offset: number) => provider.createEvent({ title: `${who} dentist`, allDay: false, start: local(offset, 15), end: local(offset, 16), timezone: zone, description: `Bring the card${secret}` });
      const [first, second] = await Promise.all([event(0), event(3)]);
      return { event: first.id, event2: second.id };
    }),
    herald.calendar.connections.save(userId, options.mailbox).then(() => ({})),
  ]);
  return Object.assign({}, ...seeded) as SeededIds;
}
