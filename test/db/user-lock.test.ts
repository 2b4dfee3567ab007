import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ContactService } from '../../src/contacts/contact-service.js';
import { ListService } from '../../src/lists/list-service.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { NoteService } from '../../src/notes/note-service.js';
import { JobQueue } from '../../src/queue/job-queue.js';
import { reminderQueueDefinition } from '../../src/reminders/reminder-queue.js';
import { ReminderService } from '../../src/reminders/reminder-service.js';
import { routineQueueDefinition } from '../../src/routines/routine-queue.js';
import { RoutineService } from '../../src/routines/routine-service.js';
import { ManualClock } from '../../src/shared/clock.js';
import { creationBarrier } from '../helpers/creation-barrier.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * Every per-user count limit holds when creations come at once (issue 32 item 3): the
 * planner runs up to three steps together, and a user can text twice. Each creator counts
 * in the transaction that creates, under the user's advisory lock (src/db/user-lock.ts).
 * The creation barrier makes racing creators read their count together unless the lock
 * serialises them, so a count taken outside the lock fails here every time, not by luck.
 */
describe('per-user limits under concurrent creation', () => {
  let database: TestDatabase;
  let queue: JobQueue;
  const clock = new ManualClock('2026-03-02T15:00:00Z');
  const zone = 'America/New_York';
  let userId: string;
  let counter = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    queue = new JobQueue(database.pool, createSilentLogger());
    await queue.start([reminderQueueDefinition, routineQueueDefinition(60_000)]);
  });
  beforeEach(async () => {
    counter += 1;
    userId = (await database.prisma.user.create({ data: { phone: `+1415555${String(3200 + counter)}`, timezone: zone, updatedAt: new Date() } })).id;
  });
  afterAll(async () => {
    await queue.stop(0);
    await database.drop();
  });

  /** Runs the creations at once; how many succeeded and the refusals' words. */
  async function atOnce<Result extends { ok: boolean }>(creations: Array<() => Promise<Result>>): Promise<{ saved: number; refused: string[] }> {
    const results = await Promise.all(creations.map((create) => create()));
    return { saved: results.filter((result) => result.ok).length, refused: results.flatMap((result) => ('error' in result && typeof result.error === 'string' ? [result.error] : [])) };
  }

  const jobsOf = async (name: string, key: string, ids: string[]) =>
    (await database.pool.query(`SELECT 1 FROM pgboss.job WHERE name = $1 AND data->>$2 = ANY($3::text[])`, [name, key, ids])).rowCount;

  it('routines: 9 of 10 and three created at once end at exactly 10, each with its job', async () => {
    const barrier = creationBarrier(database, 'routine', 'count');
    const routines = new RoutineService(barrier.prisma, queue, clock, { maxPerUser: 10, maxInstructionLength: 2000 });
    const routine = (index: number) => () => routines.create(userId, zone, { instruction: `brief number ${index}`, at: '2026-03-03T07:00', recurrence: { frequency: 'daily' } });
    for (let index = 0; index < 9; index += 1) expect((await routine(index)()).ok).toBe(true);

    barrier.arm(3);
    const { saved, refused } = await atOnce([routine(9), routine(10), routine(11)]);
    expect(saved).toBe(1);
    expect(refused).toEqual([expect.stringContaining('already has 10 routines'), expect.stringContaining('already has 10 routines')]);
    const rows = await database.prisma.routine.findMany({ where: { userId }, select: { id: true } });
    expect(rows).toHaveLength(10);
    expect(await jobsOf('routine', 'routineId', rows.map((row) => row.id))).toBe(10);
  });

  it('reminders: the active limit holds for creations at once, and for a fired one-off set again', async () => {
    const barrier = creationBarrier(database, 'reminder', 'count');
    const reminders = new ReminderService(barrier.prisma, queue, clock, { maxTextLength: 500, maxActivePerUser: 10 });
    const reminder = (index: number) => () => reminders.create(userId, zone, { text: `Reminder ${index}`, at: `2026-03-0${3 + (index % 5)}T09:${String(10 + index).padStart(2, '0')}` });
    for (let index = 0; index < 9; index += 1) expect((await reminder(index)()).ok).toBe(true);

    barrier.arm(3);
    const { saved, refused } = await atOnce([reminder(9), reminder(10), reminder(11)]);
    expect(saved).toBe(1);
    expect(refused).toEqual([expect.stringContaining('already has 10 active reminders'), expect.stringContaining('already has 10 active reminders')]);
    expect(await database.prisma.reminder.count({ where: { userId, status: 'active' } })).toBe(10);

    // A one-off that fired is set again by id ("move it to 6"): one more active reminder, so refused at the limit.
    const fired = await database.prisma.reminder.findFirstOrThrow({ where: { userId } });
    await database.prisma.reminder.update({ where: { id: fired.id }, data: { status: 'completed', nextDueAt: null } });
    expect((await reminder(12)()).ok).toBe(true);
    const moved = await reminders.update(userId, { reminderId: fired.id }, { at: '2026-03-04T18:00' });
    expect(moved).toMatchObject({ ok: false, error: expect.stringContaining('already has 10 active reminders') });
    expect(await database.prisma.reminder.findUniqueOrThrow({ where: { id: fired.id } })).toMatchObject({ status: 'completed' });
    // Below the limit it is set again, as before.
    await reminders.cancel(userId, { match: 'Reminder 12' });
    expect(await reminders.update(userId, { reminderId: fired.id }, { at: '2026-03-04T18:00' })).toMatchObject({ ok: true, value: { status: 'active' } });
  });

  it('notes: 9 of 10 and three saved at once end at exactly 10', async () => {
    const barrier = creationBarrier(database, 'note', 'count');
    const notes = new NoteService(barrier.prisma, clock, { maxPerUser: 10 });
    const note = (index: number) => () => notes.save(userId, { body: `note number ${index}` });
    for (let index = 0; index < 9; index += 1) expect((await note(index)()).ok).toBe(true);

    barrier.arm(3);
    const { saved, refused } = await atOnce([note(9), note(10), note(11)]);
    expect(saved).toBe(1);
    expect(refused).toHaveLength(2);
    expect(await database.prisma.note.count({ where: { userId } })).toBe(10);
  });

  it('contacts: 9 of 10 and three saved at once end at exactly 10', async () => {
    const barrier = creationBarrier(database, 'contact', 'count');
    const contacts = new ContactService(barrier.prisma, clock, { maxPerUser: 10 });
    const contact = (index: number) => () => contacts.create(userId, { name: `Friend ${index}`, phones: [`+1415555${String(6100 + index)}`] });
    for (let index = 0; index < 9; index += 1) expect((await contact(index)()).ok).toBe(true);

    barrier.arm(3);
    const { saved, refused } = await atOnce([contact(9), contact(10), contact(11)]);
    expect(saved).toBe(1);
    expect(refused).toEqual([expect.stringContaining('already has 10 contacts'), expect.stringContaining('already has 10 contacts')]);
    expect(await database.prisma.contact.count({ where: { userId } })).toBe(10);
  });

  it('lists: 99 of 100 and three new lists at once end at exactly 100 (by create_list or by adding to a new list)', async () => {
    const barrier = creationBarrier(database, 'list', 'count');
    const lists = new ListService(barrier.prisma, clock);
    const now = clock.now();
    await database.prisma.list.createMany({ data: Array.from({ length: 99 }, (_, index) => ({ userId, name: `list ${index}`, normalizedName: `${index}`, createdAt: now, updatedAt: now })) });

    barrier.arm(3);
    const { saved, refused } = await atOnce<{ ok: boolean }>([() => lists.createList(userId, 'hardware'), () => lists.createList(userId, 'garden'), () => lists.addItems(userId, 'books', ['Dune'])]);
    expect(saved).toBe(1);
    expect(refused).toEqual([expect.stringContaining('already has 100 lists'), expect.stringContaining('already has 100 lists')]);
    expect(await database.prisma.list.count({ where: { userId } })).toBe(100);
  });

  it('two steps making the same new list at once make it once, with both items', async () => {
    const barrier = creationBarrier(database, 'list', 'findUnique');
    const lists = new ListService(barrier.prisma, clock);
    barrier.arm(2);
    const [first, second] = await Promise.all([lists.addItems(userId, 'camping', ['tent']), lists.addItems(userId, 'camping', ['stove'])]);
    expect([first.ok, second.ok]).toEqual([true, true]);
    // Exactly one of them made it.
    expect([first, second].filter((result) => result.ok && result.value.listCreated)).toHaveLength(1);
    const rows = await database.prisma.list.findMany({ where: { userId }, include: { items: { orderBy: { position: 'asc' } } } });
    expect(rows.map((row) => row.name)).toEqual(['camping']);
    expect(rows[0]!.items.map((item) => item.text).sort()).toEqual(['stove', 'tent']);
    expect(new Set(rows[0]!.items.map((item) => item.position)).size).toBe(2);
  });

  it('list items: 498 of 500 and three added at once end at exactly 500, none twice', async () => {
    const lists = new ListService(database.prisma, clock);
    const made = await lists.createList(userId, 'shopping');
    if (!made.ok) throw new Error(made.error);
    const list = await database.prisma.list.findFirstOrThrow({ where: { userId } });
    const now = clock.now();
    await database.prisma.listItem.createMany({ data: Array.from({ length: 498 }, (_, index) => ({ listId: list.id, text: `item ${index}`, position: index, createdAt: now, updatedAt: now })) });

    // The limit is checked against the items read with the list.
    const barrier = creationBarrier(database, 'list', 'findUnique');
    const racing = new ListService(barrier.prisma, clock);
    barrier.arm(3);
    const { saved, refused } = await atOnce([() => racing.addItems(userId, 'shopping', ['milk']), () => racing.addItems(userId, 'shopping', ['eggs']), () => racing.addItems(userId, 'shopping', ['bread'])]);
    expect(saved).toBe(2);
    expect(refused).toEqual([expect.stringContaining('would have more than 500 items')]);
    const items = await database.prisma.listItem.findMany({ where: { listId: list.id }, select: { position: true } });
    expect(items).toHaveLength(500);
    expect(new Set(items.map((item) => item.position)).size).toBe(500);
  });
});
