import fc from 'fast-check';
import { DateTime } from 'luxon';
import type { StringHints } from './json-schema-arbitrary.js';

/** The rows seeded for A and B, as placeholders the run resolves (fuzz-world.ts `resolver`). */
const SEEDED = ['note', 'fact', 'contact', 'reminder', 'reminder2', 'routine', 'event', 'event2', 'list', 'listItem', 'connection'];
/** Which seeded rows an id property of a tool names. */
const ID_KINDS: Record<string, string[]> = {
  noteId: ['note'],
  factId: ['fact'],
  contactId: ['contact'],
  reminderId: ['reminder', 'reminder2'],
  reminderIds: ['reminder', 'reminder2'],
  routineId: ['routine'],
  eventId: ['event', 'event2'],
  eventIds: ['event', 'event2'],
  itemIds: ['listItem'],
};

/**
 * What a model would write in a string by the property's name: the ids of A's rows and of
 * B's (calls on another user's ids are the point), mail ids of both mailboxes, the names
 * both users' things have, addresses (contacts, B, an outsider), and dates near the seeded
 * ones (so moving or deleting an event, or a reminder in range, is reached). The schema's
 * own values are mixed in by the caller.
 */
export function stringHints(zone: string): StringHints {
  const anyId = fc.constantFrom(...SEEDED.flatMap((key) => [`@@A.${key}@@`, `@@B.${key}@@`]));
  /** An id of the kind the property names (noteId: a note of A's or B's) most of the time, else any. */
  const idsFor = (name: string) => {
    const kind = ID_KINDS[name];
    return kind ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...kind.flatMap((key) => [`@@A.${key}@@`, `@@B.${key}@@`])) }, { weight: 1, arbitrary: anyId }) : anyId;
  };
  const mailIds = fc.constantFrom('@@A.mail0@@', '@@A.mail1@@', '@@A.mail2@@', '@@B.mail0@@', '1:1', '999:1');
  const names = fc.constantFrom(
    'Ana groceries', 'Bea groceries', 'groceries', 'milk', 'bread', 'eggs',
    'Ana dentist', 'Bea dentist', 'dentist', 'Bea gym', 'gym',
    'Ana wifi', 'Bea wifi', 'Dana', 'Dana Levi', 'Boris', 'Bea', 'Bea brief', 'Bea page', 'Ana page', 'Dinner', 'Bea private',
  );
  const emails = fc.constantFrom('dana@herald.test', 'boris@herald.test', 'bea@herald.test', 'ana@herald.test', 'attacker@evil.example');
  // Around the seeded events and reminders (six months ahead), and a few other days, past ones included.
  const base = DateTime.now().setZone(zone).plus({ months: 6 }).startOf('day');
  const days = [-200, -1, 0, 1, 3, 7].map((offset) => base.plus({ days: offset }));
  const near = [0, 1, 2].map((offset) => DateTime.now().setZone(zone).plus({ days: offset }).startOf('day'));
  const allDays = [...days, ...near];
  const dates = fc.constantFrom(...allDays.map((day) => day.toISODate()!));
  const times = fc.constantFrom(
    ...allDays.flatMap((day) => [9, 15, 16].map((hour) => day.set({ hour }).toFormat("yyyy-MM-dd'T'HH:mm")) ),
    ...days.slice(2, 4).map((day) => day.set({ hour: 15 }).toISO({ suppressMilliseconds: true })!),
  );
  return (name, schema) => {
    if (schema.pattern === '^\\d{4}-\\d{2}-\\d{2}$') return dates;
    if (schema.pattern?.includes('\\d{4}')) return fc.oneof(times, dates);
    if (schema.format === 'email' || /^(to|cc|attendees|emails)$/.test(name)) return emails;
    if (name === 'ids' || name === 'replyTo') return mailIds;
    if (schema.format === 'uuid' || /Ids?$/.test(name)) return idsFor(name);
    if (/^(match|name|list|title|query|text|subject|items|toNames|inviteeNames|tag|from|content)$/.test(name)) return names;
    return undefined;
  };
}
