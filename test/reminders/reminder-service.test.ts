import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { createUser, occurrenceJobs, reminderJobs, startQueueWithoutWorkers } from './support.js';

/**
 * ReminderService on the real database (issue 4): every change stores the reminder and
 * the job of its next occurrence together; refused input saves nothing (no row, no job);
 * jobs of moved or cancelled occurrences find nothing to do.
 *
 * The clock is fake (March 2026, America/New_York): no worker runs, so the jobs stay in
 * pgboss.job to be read, and are fired by calling the delivery directly.
 */
describe('ReminderService', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock();
  let userId: string;
  const phone = '+14155550140';
  const zone = 'America/New_York';

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, start: false });
    await startQueueWithoutWorkers(harness);
    userId = (await createUser(harness, phone, { timezone: zone })).id;
  });
  beforeEach(async () => {
    // Monday 2026-03-02, 10:00 in New York.
    clock.set('2026-03-02T15:00:00Z');
    await harness.database.pool.query(`DELETE FROM pgboss.job WHERE name = 'reminder'`);
    await harness.database.prisma.reminder.deleteMany();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  const reminders = () => harness.herald.reminders;
  const rows = () => harness.database.prisma.reminder.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });

  async function expectNothingSaved() {
    expect(await rows()).toEqual([]);
    expect(await reminderJobs(harness.database)).toEqual([]);
  }

  /** Fires an occurrence's job by hand at `at` (default: its due time). */
  async function fire(reminderId: string, dueAt: Date, at: Date = dueAt) {
    clock.set(at);
    return harness.herald.reminderDelivery.deliver({ reminderId, dueAt: dueAt.toISOString() });
  }

  it('creates a one-off reminder with exactly one job, due at its instant', async () => {
    const created = await reminders().create(userId, zone, { text: '  Call   mom ', at: '2026-03-02T17:00' });
    expect(created).toMatchObject({ ok: true, value: { text: 'Call mom', status: 'active', next: 'Mon, Mar 2, 5:00 PM', nextLocal: '2026-03-02T17:00', repeats: null } });
    const [row] = await rows();
    expect(row).toMatchObject({ userId, text: 'Call mom', timezone: zone, startLocal: '2026-03-02T17:00', rrule: null, status: 'active', nextDueAt: new Date('2026-03-02T22:00:00Z') });
    const jobs = await reminderJobs(harness.database);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ data: { reminderId: row!.id, dueAt: '2026-03-02T22:00:00.000Z' }, startAfter: new Date('2026-03-02T22:00:00Z'), state: 'created' });
  });

  it('refuses a time already past, asking what was meant, and saves nothing', async () => {
    const result = await reminders().create(userId, zone, { text: 'Call mom', at: '2026-03-02T09:00' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toContain('has already passed');
    expect(result.error).toContain('it is now Mon, Mar 2, 10:00 AM');
    expect(result.error).toContain('ask the user what they meant');
    // "Now" itself is not in the future either.
    expect((await reminders().create(userId, zone, { text: 'Call mom', at: '2026-03-02T10:00' })).ok).toBe(false);
    await expectNothingSaved();
  });

  it('refuses a nonexistent or ambiguous local time with a clear question, and saves nothing', async () => {
    const skipped = await reminders().create(userId, zone, { text: 'Take pills', at: '2026-03-08T02:30' });
    expect(skipped).toMatchObject({ ok: false });
    expect(!skipped.ok && skipped.error).toMatch(/02:30 does not exist on 2026-03-08 .*03:30.*Nothing was saved; ask the user which time they mean/);
    const repeated = await reminders().create(userId, zone, { text: 'Take pills', at: '2026-11-01T01:30' });
    expect(!repeated.ok && repeated.error).toMatch(/01:30 happens twice on 2026-11-01 .*-04:00.*-05:00.*Nothing was saved/);
    const invalid = await reminders().create(userId, zone, { text: 'Take pills', at: '2026-02-30T09:00' });
    expect(!invalid.ok && invalid.error).toContain('is not a valid local date and time');
    await expectNothingSaved();

    // Once the user has chosen, the ambiguous time is fine.
    const chosen = await reminders().create(userId, zone, { text: 'Take pills', at: '2026-11-01T01:30', whenAmbiguous: 'later' });
    expect(chosen.ok).toBe(true);
    expect((await rows())[0]?.nextDueAt).toEqual(new Date('2026-11-01T06:30:00Z'));
  });

  it('refuses a 10,000-character text and saves nothing', async () => {
    const result = await reminders().create(userId, zone, { text: 'x'.repeat(10_000), at: '2026-03-02T17:00' });
    expect(result).toEqual({
      ok: false,
      error: 'The reminder text is 10000 characters; reminders can be at most 500. Ask the user for a shorter version. Nothing was saved.',
    });
    expect(await reminders().create(userId, zone, { text: '   ', at: '2026-03-02T17:00' })).toMatchObject({ ok: false });
    await expectNothingSaved();
  });

  it('refuses a rule that never fires, and an invalid one, and saves nothing', async () => {
    const never = await reminders().create(userId, zone, { text: 'Water plants', at: '2026-03-03T09:00', recurrence: { frequency: 'daily', until: '2026-01-01' } });
    expect(!never.ok && never.error).toContain('never produces a reminder');
    const invalid = await reminders().create(userId, zone, { text: 'Water plants', at: '2026-03-03T09:00', recurrence: { frequency: 'daily', interval: 7, weekdays: ['MO'] } });
    expect(!invalid.ok && invalid.error).toContain('That repeat rule is not valid');
    const over = await reminders().create(userId, zone, { text: 'Water plants', at: '2026-02-02T09:00', recurrence: { frequency: 'daily', count: 3 } });
    expect(!over.ok && over.error).toContain('already in the past');
    await expectNothingSaved();
  });

  it('creates a recurring reminder at its first occurrence; a series whose start has passed begins at the next one, with its full count', async () => {
    const weekdays = await reminders().create(userId, zone, { text: 'Stand-up', at: '2026-03-03T08:00', recurrence: { frequency: 'weekly', weekdays: ['MO', 'TU', 'WE', 'TH', 'FR'] } });
    expect(weekdays).toMatchObject({ ok: true, value: { repeats: 'every weekday', nextLocal: '2026-03-03T08:00' } });
    // 09:00 today is past (it is 10:00): the series starts tomorrow, and still fires three times.
    const counted = await reminders().create(userId, zone, { text: 'Stretch', at: '2026-03-02T09:00', recurrence: { frequency: 'daily', count: 3 } });
    expect(counted).toMatchObject({ ok: true, value: { nextLocal: '2026-03-03T09:00' } });
    const stretch = (await rows()).find((row) => row.text === 'Stretch')!;
    expect(stretch.startLocal).toBe('2026-03-03T09:00');
    const fired: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const current = await harness.database.prisma.reminder.findUniqueOrThrow({ where: { id: stretch.id } });
      if (!current.nextDueAt) break;
      fired.push(current.nextDueAt.toISOString());
      await fire(stretch.id, current.nextDueAt);
    }
    expect(fired).toEqual(['2026-03-03T14:00:00.000Z', '2026-03-04T14:00:00.000Z', '2026-03-05T14:00:00.000Z']);
    expect(await harness.database.prisma.reminder.findUniqueOrThrow({ where: { id: stretch.id } })).toMatchObject({ status: 'completed', nextDueAt: null, occurrencesSent: 3 });
  });

  it('moves a reminder: a new job at the new time, and the old job, when it fires, does nothing', async () => {
    await reminders().create(userId, zone, { text: 'Dentist appointment', at: '2026-03-05T10:00' });
    const moved = await reminders().update(userId, { match: 'dentist' }, { at: '2026-03-06T11:30' });
    expect(moved).toMatchObject({ ok: true, value: { text: 'Dentist appointment', nextLocal: '2026-03-06T11:30' } });
    const [row] = await rows();
    expect(row?.nextDueAt).toEqual(new Date('2026-03-06T16:30:00Z'));
    const jobs = await reminderJobs(harness.database);
    expect(jobs.map((job) => [job.data.dueAt, job.startAfter.toISOString()])).toEqual([
      ['2026-03-05T15:00:00.000Z', '2026-03-05T15:00:00.000Z'],
      ['2026-03-06T16:30:00.000Z', '2026-03-06T16:30:00.000Z'],
    ]);

    expect(await fire(row!.id, new Date('2026-03-05T15:00:00Z'))).toEqual({ kind: 'stale' });
    expect(harness.twilio.requests).toHaveLength(0);
    expect(await harness.database.prisma.reminderDelivery.count()).toBe(0);
    expect(await fire(row!.id, new Date('2026-03-06T16:30:00Z'))).toMatchObject({ kind: 'handled', status: 'sent', duplicate: false });
    expect(harness.twilio.messages.map((message) => message.body)).toEqual(['⏰ Reminder: Dentist appointment']);
  });

  it('renames a reminder without touching its schedule, even at a time that happens twice', async () => {
    await reminders().create(userId, zone, { text: 'Take pills', at: '2026-11-01T01:30', whenAmbiguous: 'later' });
    const renamed = await reminders().update(userId, { match: 'pills' }, { text: 'Take the blue pills' });
    expect(renamed).toMatchObject({ ok: true, value: { text: 'Take the blue pills' } });
    const [row] = await rows();
    expect(row).toMatchObject({ text: 'Take the blue pills', nextDueAt: new Date('2026-11-01T06:30:00Z'), startLocal: '2026-11-01T01:30' });
    // Its one job still fires it, with the new text.
    expect(await reminderJobs(harness.database)).toHaveLength(1);
    await fire(row!.id, new Date('2026-11-01T06:30:00Z'));
    expect(harness.twilio.messages.map((message) => message.body)).toEqual(['⏰ Reminder: Take the blue pills']);
  });

  it('renaming a counted series does not restart its count', async () => {
    await reminders().create(userId, zone, { text: 'Stretch', at: '2026-03-03T09:00', recurrence: { frequency: 'daily', count: 3 } });
    const [row] = await rows();
    await fire(row!.id, new Date('2026-03-03T14:00:00Z'));
    clock.set('2026-03-03T15:00:00Z');
    expect((await reminders().update(userId, { match: 'stretch' }, { text: 'Stretch your back' })).ok).toBe(true);
    await fire(row!.id, new Date('2026-03-04T14:00:00Z'));
    await fire(row!.id, new Date('2026-03-05T14:00:00Z'));
    expect(await harness.database.prisma.reminder.findUniqueOrThrow({ where: { id: row!.id } })).toMatchObject({ status: 'completed', nextDueAt: null });
    expect(harness.twilio.messages.map((message) => message.body)).toEqual(['⏰ Reminder: Stretch', '⏰ Reminder: Stretch your back', '⏰ Reminder: Stretch your back']);
  });

  it('changes how a reminder repeats: a one-off becomes weekly, then one-off again', async () => {
    await reminders().create(userId, zone, { text: 'Team lunch', at: '2026-03-04T12:00' });
    const weekly = await reminders().update(userId, { match: 'lunch' }, { recurrence: { frequency: 'weekly', weekdays: ['WE'] } });
    expect(weekly).toMatchObject({ ok: true, value: { repeats: 'every week on Wednesday', nextLocal: '2026-03-04T12:00' } });
    const [row] = await rows();
    expect(row?.rrule).toBe('FREQ=WEEKLY;BYDAY=WE');
    // Moving it keeps the rule; the next Wednesday after the new start time.
    const moved = await reminders().update(userId, { match: 'lunch' }, { at: '2026-03-05T13:00' });
    expect(moved).toMatchObject({ ok: true, value: { repeats: 'every week on Wednesday', nextLocal: '2026-03-11T13:00' } });
    const once = await reminders().update(userId, { reminderId: row!.id }, { recurrence: null });
    expect(once).toMatchObject({ ok: true, value: { repeats: null, nextLocal: '2026-03-11T13:00' } });
    // Every change enqueues the job of the (possibly unchanged) next occurrence: duplicates
    // are harmless, since an occurrence is delivered once.
    expect((await occurrenceJobs(harness.database)).map((job) => job.data.dueAt)).toEqual([
      '2026-03-04T17:00:00.000Z',
      '2026-03-04T17:00:00.000Z',
      '2026-03-11T17:00:00.000Z',
      '2026-03-11T17:00:00.000Z',
    ]);
    // The Mar 4 jobs are stale; the two for Mar 11 deliver once.
    expect(await fire(row!.id, new Date('2026-03-04T17:00:00Z'))).toEqual({ kind: 'stale' });
    expect(await fire(row!.id, new Date('2026-03-11T17:00:00Z'))).toMatchObject({ kind: 'handled', duplicate: false });
    expect(await fire(row!.id, new Date('2026-03-11T17:00:00Z'))).toMatchObject({ kind: 'handled', duplicate: true });
    expect(harness.twilio.messages).toHaveLength(1);
    expect(await harness.database.prisma.reminder.findUniqueOrThrow({ where: { id: row!.id } })).toMatchObject({ status: 'completed' });
  });

  it('refuses an update to a past time, changing nothing', async () => {
    await reminders().create(userId, zone, { text: 'Dentist', at: '2026-03-05T10:00' });
    const before = await rows();
    const result = await reminders().update(userId, { match: 'dentist' }, { at: '2026-03-01T10:00' });
    expect(!result.ok && result.error).toContain('has already passed');
    expect(await rows()).toEqual(before);
    expect(await reminderJobs(harness.database)).toHaveLength(1);
  });

  it('a repeating reminder that follows the user to a zone of the same offset steps over an occurrence they skipped, and keeps going', async () => {
    const created = await reminders().create(userId, zone, { text: 'Team sync', at: '2026-03-03T09:00', recurrence: { frequency: 'weekly' } });
    if (!created.ok) throw new Error(created.error);
    const first = new Date('2026-03-03T14:00:00Z');
    const second = new Date('2026-03-10T13:00:00Z'); // after the DST change (EDT)
    // The user skips the first occurrence ("not this Tuesday"): the reminder moves on to the second.
    await reminders().skipOccurrence(userId, created.value.id, first);
    expect((await rows())[0]!.nextDueAt).toEqual(second);
    // Travel to Toronto, the same clock as New York: the next occurrence is recomputed in the new
    // zone and lands on the skipped instant unless recorded occurrences are stepped over.
    expect(await reminders().moveRecurringTo(userId, 'America/Toronto')).toBe(1);
    const moved = (await rows())[0]!;
    expect(moved).toMatchObject({ timezone: 'America/Toronto', status: 'active', nextDueAt: second });
    expect((await occurrenceJobs(harness.database, created.value.id)).map((job) => job.data.dueAt)).toContain(second.toISOString());
    // That occurrence fires, and the series goes on to the week after.
    expect(await fire(created.value.id, second)).toMatchObject({ kind: 'handled', status: 'sent' });
    expect((await rows())[0]!.nextDueAt).toEqual(new Date('2026-03-17T13:00:00Z'));
  });

  it('cancels by description; the cancelled reminder\'s job does nothing', async () => {
    await reminders().create(userId, zone, { text: 'Dentist appointment', at: '2026-03-05T10:00' });
    await reminders().create(userId, zone, { text: 'Call mom', at: '2026-03-05T18:00' });
    const cancelled = await reminders().cancel(userId, { match: 'the dentist one' });
    expect(cancelled).toMatchObject({ ok: true, value: { text: 'Dentist appointment', status: 'cancelled', next: null } });
    const all = await rows();
    expect(all.map((row) => [row.text, row.status])).toEqual([
      ['Dentist appointment', 'cancelled'],
      ['Call mom', 'active'],
    ]);
    expect(await fire(all[0]!.id, new Date('2026-03-05T15:00:00Z'))).toEqual({ kind: 'stale' });
    expect(harness.twilio.requests).toHaveLength(0);
    expect(await reminders().list(userId)).toHaveLength(1);
    expect(await reminders().list(userId, { includeInactive: true })).toHaveLength(2);
  });

  it('a cancel that matches nothing lists the reminders there are and changes nothing', async () => {
    await reminders().create(userId, zone, { text: 'Dentist appointment', at: '2026-03-05T10:00' });
    await reminders().create(userId, zone, { text: 'Call mom', at: '2026-03-05T18:00' });
    const before = await rows();
    const result = await reminders().cancel(userId, { match: 'haircut' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toContain('No active reminder matches "haircut", so nothing was changed.');
    expect(result.error).toContain('"Dentist appointment" (Thu, Mar 5, 10:00 AM');
    expect(result.error).toContain('"Call mom" (Thu, Mar 5, 6:00 PM');
    expect(await rows()).toEqual(before);
    // Without any reminders, it says so.
    const stranger = await createUser(harness, '+14155550149');
    expect(await reminders().cancel(stranger.id, { match: 'dentist' })).toEqual({
      ok: false,
      error: 'No active reminder matches "dentist", so nothing was changed. The user has no active reminders.',
    });
  });

  it('two matches: the error lists both, they come back as the candidates Herald asks about, and nothing changes', async () => {
    await reminders().create(userId, zone, { text: 'Call mom', at: '2026-03-05T18:00' });
    await reminders().create(userId, zone, { text: 'Call the plumber', at: '2026-03-04T09:00' });
    const before = await rows();
    for (const attempt of [reminders().cancel(userId, { match: 'call' }), reminders().update(userId, { match: 'call' }, { at: '2026-03-07T09:00' })]) {
      const result = await attempt;
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.error).toMatch(/^2 reminders match "call": 1\) "Call the plumber" \(Wed, Mar 4, 9:00 AM, id [0-9a-f-]{36}\); 2\) "Call mom" \(Thu, Mar 5, 6:00 PM, id [0-9a-f-]{36}\)\. Nothing was changed; Herald asks the user which one to (cancel|change) \(complete with needsClarification\)\.$/);
      expect(result.candidates?.map((candidate) => candidate.text)).toEqual(['Call the plumber', 'Call mom']);
    }
    expect(await rows()).toEqual(before);
    expect(await reminderJobs(harness.database)).toHaveLength(2);
    // A closer description picks one.
    expect(await reminders().cancel(userId, { match: 'plumber' })).toMatchObject({ ok: true, value: { text: 'Call the plumber' } });
  });

  it('does not reach other users\' reminders', async () => {
    const other = await createUser(harness, '+14155550148');
    await reminders().create(other.id, zone, { text: 'Dentist', at: '2026-03-05T10:00' });
    expect(await reminders().list(userId)).toEqual([]);
    expect((await reminders().cancel(userId, { match: 'dentist' })).ok).toBe(false);
    const [row] = await rows();
    expect((await reminders().cancel(userId, { reminderId: row!.id })).ok).toBe(false);
    expect((await rows())[0]?.status).toBe('active');
  });

  it('lists active reminders soonest first, optionally by words', async () => {
    await reminders().create(userId, zone, { text: 'Call mom', at: '2026-03-05T18:00' });
    await reminders().create(userId, zone, { text: 'Dentist', at: '2026-03-04T09:00' });
    expect((await reminders().list(userId)).map((view) => view.text)).toEqual(['Dentist', 'Call mom']);
    expect((await reminders().list(userId, { query: 'mom' })).map((view) => view.text)).toEqual(['Call mom']);
  });
});
