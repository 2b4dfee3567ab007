import { DateTime } from 'luxon';
import type { PrismaClient } from '../db/prisma-types.js';
import type { PageInput } from '../pages/page-spec.js';
import type { Clock } from '../shared/clock.js';

/** Where a contact came from, as the page says it. */
const contactSources: Record<string, string> = { user: 'you told Herald', vcard: 'a contact card you sent', carddav: 'your address book', google: 'Google Contacts' };

/**
 * Everything Herald holds about one user, as a page spec (src/pages renders it, escaped,
 * at an unguessable expiring link). Connected accounts show their labels only: secrets
 * are never read here. Each table is read by the user's id, so a page shows nobody else's.
 */
/** How Herald came by the zone MY DATA shows (src/timezones). */
const zoneSourceNote: Record<string, string> = { user: '', number: ' (from your number)', guess: ' (a guess: tell me your city)' };

export class MyDataPage {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    /** Download links for the user's notes and contacts (src/data-rights/data-export.ts). */
    private readonly downloads?: { links(userId: string): Array<{ label: string; url: string }> },
  ) {}

  /** The page for `userId`; undefined for an unknown user. */
  async build(userId: string): Promise<PageInput | undefined> {
    const user = await this.prisma.user.findUnique({ where: { id: userId } });
    if (!user) return undefined;
    const [notes, noteCount, contacts, contactCount, routines, trip] = await Promise.all([
      this.prisma.note.findMany({ where: { userId }, orderBy: { updatedAt: 'desc' }, take: 50, select: { title: true, tags: true } }),
      this.prisma.note.count({ where: { userId } }),
      this.prisma.contact.findMany({ where: { userId }, orderBy: [{ name: 'asc' }, { id: 'asc' }], take: 50, select: { name: true, relationship: true, source: true } }),
      this.prisma.contact.count({ where: { userId } }),
      this.prisma.routine.findMany({ where: { userId }, orderBy: [{ status: 'asc' }, { nextDueAt: 'asc' }], select: { name: true, instruction: true, condition: true, status: true, nextDueAt: true } }),
      // A trip with a return date (src/reminders/travel-trips.ts): the home zone Herald goes back to, and when.
      this.prisma.trip.findUnique({ where: { userId }, select: { homeTimezone: true, timezone: true, returnOn: true } }),
    ]);
    const [facts, reminders, lists, connections, pages, messages, events, calendar, confirmations, grant] = await Promise.all([
      this.prisma.fact.findMany({ where: { userId }, orderBy: [{ category: 'asc' }, { createdAt: 'asc' }], select: { category: true, content: true, learned: true, sourceMessage: { select: { content: true } } } }),
      this.prisma.reminder.findMany({ where: { userId, status: 'active' }, orderBy: { nextDueAt: 'asc' }, select: { text: true, nextDueAt: true, rrule: true } }),
      this.prisma.list.findMany({ where: { userId }, orderBy: { createdAt: 'asc' }, select: { name: true, items: { select: { checked: true } } } }),
      // Labels and status only: never the secrets column.
      this.prisma.connection.findMany({ where: { userId }, orderBy: { createdAt: 'asc' }, select: { provider: true, label: true, status: true, createdAt: true } }),
      this.prisma.page.findMany({ where: { userId, expiresAt: { gt: this.clock.now() } }, orderBy: { createdAt: 'desc' }, select: { title: true, expiresAt: true } }),
      this.prisma.message.groupBy({ by: ['role'], where: { userId }, _count: { _all: true }, _min: { createdAt: true } }),
      this.prisma.calendarEvent.count({ where: { userId } }),
      this.prisma.calendarSettings.findUnique({ where: { userId }, select: { feedTokenHash: true } }),
      this.prisma.pendingQuestion.count({ where: { userId, status: 'pending' } }),
      // The owners' invite list names the number: shown, though it is theirs and outlives an erase.
      this.prisma.accessGrant.findUnique({ where: { phone: user.phone }, select: { createdAt: true, revokedAt: true } }),
    ]);
    const zone = user.timezone;
    const when = (instant: Date | null) => (instant ? DateTime.fromJSDate(instant, { zone }).toFormat('ccc d LLL yyyy, HH:mm') : '—');
    const sent = messages.find((row) => row.role === 'user')?._count._all ?? 0;
    const received = messages.find((row) => row.role === 'assistant')?._count._all ?? 0;
    const first = messages.map((row) => row._min.createdAt).filter((date): date is Date => date !== null).sort((a, b) => a.getTime() - b.getTime())[0] ?? null;
    const sections: PageInput['sections'] = [
      {
        kind: 'key-value',
        heading: 'Profile and settings',
        pairs: [
          { key: 'Phone', value: user.phone },
          { key: 'Name', value: user.name ?? '(not told)' },
          { key: 'Time zone', value: `${user.timezone}${zoneSourceNote[user.timezoneSource]}` },
          ...(trip ? [{ key: 'Trip', value: `on ${trip.timezone} time until ${trip.returnOn}, then back to your home time zone, ${trip.homeTimezone}` }] : []),
          { key: 'Language', value: user.language ?? '(not known yet)' },
          { key: 'Quiet hours (no notices from Herald)', value: user.quietHours ?? 'the default' },
          { key: 'Messages from Herald', value: user.optedOut ? 'stopped (you texted STOP)' : 'on' },
          { key: 'Replies go by', value: user.preferredChannel === 'whatsapp' ? 'WhatsApp' : user.preferredChannel === 'rcs' ? 'RCS' : 'SMS' },
          { key: 'With Herald since', value: when(user.createdAt) },
          ...(grant ? [{ key: "On the owners' invite list", value: grant.revokedAt ? `removed ${when(grant.revokedAt)}` : `since ${when(grant.createdAt)} (kept if you erase your data)` }] : []),
        ],
      },
      {
        kind: 'key-value',
        heading: 'Conversation',
        pairs: [
          { key: 'Your messages stored', value: String(sent) },
          { key: "Herald's messages stored (replies, reminders, notices)", value: String(received) },
          { key: 'Oldest stored message', value: when(first) },
          { key: 'Questions waiting for your answer', value: String(confirmations) },
        ],
      },
      facts.length > 0
        ? { kind: 'list', heading: `What Herald remembers (${facts.length})`, items: facts.map(factLine) }
        : { kind: 'text', heading: 'What Herald remembers', markdown: 'Nothing.' },
      noteCount > 0
        ? {
            kind: 'list',
            heading: `Notes (${noteCount})`,
            items: [...notes.map((note) => (note.tags.length > 0 ? `${note.title} (${note.tags.join(', ')})` : note.title)), ...(noteCount > notes.length ? [`…and ${noteCount - notes.length} more (all of them are in the download below)`] : [])],
          }
        : { kind: 'text', heading: 'Notes', markdown: 'None.' },
      contactCount > 0
        ? {
            kind: 'table',
            heading: `Contacts (${contactCount})`,
            ...(contactCount > contacts.length ? { caption: `The first ${contacts.length}; all of them are in the download below.` } : {}),
            columns: ['Name', 'Relationship', 'From'],
            rows: contacts.map((contact) => [contact.name, contact.relationship ?? '', contactSources[contact.source] ?? contact.source]),
          }
        : { kind: 'text', heading: 'Contacts', markdown: 'None.' },
      ...(this.downloads && noteCount + contactCount > 0
        ? [{ kind: 'links' as const, heading: 'Download your notes and contacts', links: this.downloads.links(userId) }]
        : []),
      reminders.length > 0
        ? {
            kind: 'table',
            heading: `Reminders (${reminders.length})`,
            columns: ['Reminder', 'Next', 'Repeats'],
            rows: reminders.map((reminder) => [reminder.text, when(reminder.nextDueAt), reminder.rrule ? 'yes' : 'no']),
          }
        : { kind: 'text', heading: 'Reminders', markdown: 'None.' },
      routines.length > 0
        ? {
            kind: 'table',
            heading: `Routines (${routines.length})`,
            columns: ['Routine', 'Instruction', 'Next', 'Status'],
            rows: routines.map((routine) => [
              routine.name,
              cut(routine.condition ? `${routine.instruction} (${routine.condition})` : routine.instruction),
              routine.status === 'active' ? when(routine.nextDueAt) : '—',
              routine.status,
            ]),
          }
        : { kind: 'text', heading: 'Routines', markdown: 'None.' },
      lists.length > 0
        ? {
            kind: 'table',
            heading: `Lists (${lists.length})`,
            columns: ['List', 'Items', 'Ticked'],
            rows: lists.map((list) => [list.name, String(list.items.length), String(list.items.filter((item) => item.checked).length)]),
          }
        : { kind: 'text', heading: 'Lists', markdown: 'None.' },
      {
        kind: 'key-value',
        heading: 'Calendar',
        pairs: [
          { key: "Events in Herald's calendar", value: String(events) },
          { key: 'Calendar feed link', value: calendar?.feedTokenHash ? 'on' : 'off' },
        ],
      },
      connections.length > 0
        ? {
            kind: 'table',
            heading: `Connected accounts (${connections.length})`,
            caption: 'Passwords and tokens are stored encrypted and never shown.',
            columns: ['Account', 'Status', 'Connected'],
            rows: connections.map((connection) => [connection.label, connection.status === 'active' ? 'working' : 'needs reconnecting', when(connection.createdAt)]),
          }
        : { kind: 'text', heading: 'Connected accounts', markdown: 'None.' },
      pages.length > 0
        ? { kind: 'list', heading: `Pages (${pages.length})`, items: pages.map((page) => `${page.title} (link works until ${when(page.expiresAt)})`) }
        : { kind: 'text', heading: 'Pages', markdown: 'None.' },
      { kind: 'text', heading: 'Erasing it', markdown: 'Text **DELETE MY DATA** to erase all of this. Herald asks you to confirm with YES first.' },
    ];
    return { title: 'What Herald holds about you', language: 'en', sections };
  }
}

/** A fact as the page lists it; a learned one says so, with the sentence it came from (cut to a line). */
function factLine(fact: { category: string; content: string; learned: boolean; sourceMessage: { content: string } | null }): string {
  if (!fact.learned) return `${fact.content} (${fact.category})`;
  const source = fact.sourceMessage?.content.trim().replace(/\s+/g, ' ') ?? '';
  const quoted = source.length > 160 ? `${source.slice(0, 157)}…` : source;
  return `${fact.content} (${fact.category}; learned from your message “${quoted}”)`;
}

/** A routine's instruction as a table cell: its beginning (MY DATA is an overview; the full text is the user's own). */
function cut(text: string): string {
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}
