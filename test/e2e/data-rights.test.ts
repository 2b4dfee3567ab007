import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dataReplies } from '../../src/data-rights/data-replies.js';
import type { MessageTransport, TransportMessage, TransportResult } from '../../src/outbox/message-transport.js';
import { TwilioTransport } from '../../src/outbox/twilio-transport.js';
import { TURN_QUEUE } from '../../src/queue/turn-queue.js';
import { REMINDER_QUEUE } from '../../src/reminders/reminder-queue.js';
import { TRAVEL_RETURN_QUEUE } from '../../src/reminders/travel-queue.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { waitUntil } from '../db/wait-until.js';

const say = dataReplies(null);

/** The real Twilio transport (against the fake Twilio), with a gate that can hold the next send. */
class GatedTransport implements MessageTransport {
  readonly name = 'twilio' as const;
  inner: MessageTransport | undefined;
  private held: { started: () => void; release: Promise<void> } | undefined;

  /** Holds the next send until `release` is called; `started` resolves when it reaches the gate. */
  holdNext(): { started: Promise<void>; release: () => void } {
    let release!: () => void;
    let started!: () => void;
    const startedPromise = new Promise<void>((resolve) => (started = resolve));
    this.held = { started, release: new Promise<void>((resolve) => (release = resolve)) };
    return { started: startedPromise, release };
  }

  async send(message: TransportMessage): Promise<TransportResult> {
    const held = this.held;
    this.held = undefined;
    if (held) {
      held.started();
      await held.release;
    }
    return this.inner!.send(message);
  }
}

/** Every table with a userId column, and how many of its rows name `userId`. */
async function rowsOfUser(harness: HeraldHarness, userId: string): Promise<Record<string, number>> {
  const tables = await harness.database.pool.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'userId' ORDER BY table_name`,
  );
  const counts: Record<string, number> = {};
  for (const { table_name: table } of tables.rows) {
    const { rows } = await harness.database.pool.query<{ count: number }>(`SELECT count(*)::int AS count FROM "${table}" WHERE "userId" = $1::uuid`, [userId]);
    counts[table] = rows[0]!.count;
  }
  return counts;
}

/**
 * Every table of every schema in the database (public, pg-boss's, the search index's, and any a
 * later change adds), each partitioned table once with its partitions.
 */
async function everyTable(harness: HeraldHarness): Promise<Array<{ schema: string; table: string }>> {
  const { rows } = await harness.database.pool.query<{ schema: string; table: string }>(
    `SELECT n.nspname AS schema, c.relname AS table FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND n.nspname <> 'information_schema' AND left(n.nspname, 3) <> 'pg_'
      ORDER BY 1, 2`,
  );
  return rows;
}

/** Tables (`schema.table`, in every schema) with any row whose text mentions `needle`, in any letter case. */
async function tablesMentioning(harness: HeraldHarness, needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const { schema, table } of await everyTable(harness)) {
    const { rows } = await harness.database.pool.query(`SELECT 1 FROM "${schema}"."${table}" t WHERE row_to_json(t)::text ILIKE $1 LIMIT 1`, [`%${needle}%`]);
    if (rows.length > 0) found.push(`${schema}.${table}`);
  }
  return found;
}

describe('MY DATA and DELETE MY DATA', () => {
  let harness: HeraldHarness;
  const transport = new GatedTransport();

  beforeAll(async () => {
    harness = await HeraldHarness.start({ transport });
    transport.inner = new TwilioTransport({
      accountSid: harness.twilio.accountSid,
      authToken: harness.twilio.authToken,
      apiBaseUrl: harness.twilio.url,
      timeoutMs: 5000,
    });
  });
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  /** A word only this user wrote (in a message and a note), for the erase to leave nowhere. */
  const wordOf = (phone: string) => `Quillwort${phone.slice(-4)}`;

  /** A user with something in every part of Herald: memory, notes, a reminder, a list, a connected account, history. */
  async function seededUser(phone: string) {
    harness.anthropic.enqueue({ text: 'Hi there!' });
    await harness.exchange(phone, `hello, my parrot is called ${wordOf(phone)}`);
    const prisma = harness.database.prisma;
    const user = await prisma.user.update({ where: { phone }, data: { name: 'Zebulon' } });
    await prisma.fact.create({ data: { userId: user.id, category: 'preferences', subject: 'diet', content: 'collects antique barometers' } });
    // Indexed for search (herald_search's documents and vocabulary hold its words).
    const note = await harness.herald.brain.notes.save(user.id, { title: 'Parrot', body: `${wordOf(phone)} likes sunflower seeds` });
    if (!note.ok) throw new Error(note.error);
    const reminder = await harness.herald.reminders.create(user.id, user.timezone, { text: 'Water the ficus', at: '2031-05-01T09:00' });
    if (!reminder.ok) throw new Error(reminder.error);
    const list = await harness.herald.lists.addItems(user.id, 'groceries', ['oat milk', 'lentils']);
    if (!list.ok) throw new Error(list.error);
    const connection = await harness.herald.calendar.connections.save(user.id, {
      provider: 'caldav',
      account: 'dana@example.org',
      label: 'Fastmail (dana@example.org)',
      settings: { serverUrl: 'https://caldav.example.org' },
      secrets: { password: 'app-password-XYZZY' },
    });
    // A trip with a return date (its home zone and date are shown; its pending job goes with an erase).
    const until = new Date(Date.now() + 10 * 24 * 3_600_000).toISOString().slice(0, 10);
    const trip = await harness.herald.trips.change(user.id, { timezone: 'Asia/Tokyo', returnOn: until });
    if (!trip.ok) throw new Error(trip.error);
    return { user, reminderId: reminder.value.id, connection, tripUntil: until };
  }

  it('MY DATA answers with a link to a page of everything held (labels, never secrets), with no model call', async () => {
    const phone = '+12125550701';
    const { connection, tripUntil } = await seededUser(phone);
    harness.anthropic.reset();

    const reply = await harness.exchange(phone, 'my data');
    const link = /https:\/\/herald\.test\/p\/\S+/.exec(reply)?.[0];
    expect(reply).toBe(say.myData(link!));
    expect(harness.anthropic.requests).toHaveLength(0);

    const page = await harness.herald.app.inject({ method: 'GET', url: new URL(link!).pathname });
    expect(page.statusCode).toBe(200);
    for (const shown of ['Zebulon', phone, 'collects antique barometers', 'Water the ficus', 'groceries', 'Fastmail (dana@example.org)', 'Your messages stored']) expect(page.body).toContain(shown);
    expect(page.body).toContain(`on Asia/Tokyo time until ${tripUntil}, then back to your home time zone, America/New_York`);
    const stored = await harness.database.prisma.connection.findUniqueOrThrow({ where: { id: connection.id } });
    expect(page.body).not.toContain('XYZZY');
    expect(page.body).not.toContain(stored.secrets.slice(0, 24));

    // In Hebrew too, answered in Hebrew.
    const hebrew = await harness.exchange(phone, 'הנתונים שלי');
    expect(hebrew).toMatch(/^כל מה ש-Herald שומר עליכם: https:\/\/herald\.test\/p\//);
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it('DELETE MY DATA asks first; YES erases every row of the user in every table, confirms by text, and the next message starts a new user', async () => {
    const phone = '+12125550702';
    const { user, reminderId } = await seededUser(phone);
    harness.anthropic.reset();
    const before = await rowsOfUser(harness, user.id);
    // The walk finds the user-owned tables (so it cannot pass by finding none), and there is data in them.
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['Message', 'Turn', 'Fact', 'Reminder', 'List', 'Connection', 'OutboundMessage', 'PlanRun']));
    expect(before.Fact).toBe(1);
    expect(before.Connection).toBe(1);
    const jobs = () => harness.database.pool.query(`SELECT 1 FROM pgboss.job WHERE name = $1 AND data->>'reminderId' = $2`, [REMINDER_QUEUE, reminderId]).then((result) => result.rowCount);
    expect(await jobs()).toBe(1);
    expect(before.Trip).toBe(1);
    const tripJobs = () => harness.database.pool.query(`SELECT 1 FROM pgboss.job WHERE name = $1 AND data->>'userId' = $2`, [TRAVEL_RETURN_QUEUE, user.id]).then((result) => result.rowCount);
    expect(await tripJobs()).toBe(1);

    const question = await harness.exchange(phone, 'Delete my data');
    expect(question).toBe(`${say.confirmErase} Reply YES within 5 minutes to erase it.`);
    // Nothing is gone yet.
    expect((await rowsOfUser(harness, user.id)).Fact).toBe(1);
    // The search finds what it looks for: their word is in their messages, notes and search index.
    expect(await tablesMentioning(harness, wordOf(phone))).toEqual(expect.arrayContaining(['public.Message', 'public.Note', 'herald_search.document', 'herald_search.word']));

    expect(await harness.exchange(phone, 'yes')).toBe(say.erased);
    expect(harness.anthropic.requests).toHaveLength(0);

    const after = await rowsOfUser(harness, user.id);
    expect(Object.entries(after).filter(([, count]) => count > 0)).toEqual([]);
    expect(await harness.database.prisma.user.findUnique({ where: { id: user.id } })).toBeNull();
    expect(await jobs()).toBe(0);
    expect(await tripJobs()).toBe(0);
    // Once the turn that erased is over (its own job was running it, and a finished job keeps its
    // data for a day), no table of any schema keeps the number, the id or a word they wrote:
    // the dedupe keys of their messages, pg-boss's jobs and archive, the search index included.
    await waitUntil(() => harness.herald.worker.activeCount === 0, 'the erasing turn to end');
    const schemas = new Set((await everyTable(harness)).map((table) => table.schema));
    expect([...schemas]).toEqual(expect.arrayContaining(['public', 'pgboss', 'herald_search']));
    expect(await tablesMentioning(harness, phone.slice(1))).toEqual([]);
    expect(await tablesMentioning(harness, user.id)).toEqual([]);
    expect(await tablesMentioning(harness, wordOf(phone))).toEqual([]);
    expect(harness.logs.text()).not.toContain('XYZZY');

    // A turn job still naming the erased user (queued by a busy worker just before the erase)
    // ends without rescheduling itself, and is deleted rather than kept as completed.
    const strayId = await harness.herald.queue.enqueue(TURN_QUEUE, { userId: user.id });
    harness.herald.queue.wake(TURN_QUEUE);
    await waitUntil(async () => {
      const { rows } = await harness.database.pool.query<{ state: string }>(`SELECT state FROM pgboss.job WHERE id = $1`, [strayId]);
      return !['created', 'retry', 'active'].includes(rows[0]?.state ?? 'gone');
    }, 'the stray turn job to be handled');
    expect(await tablesMentioning(harness, user.id)).toEqual([]);

    // The next message is a new user's first.
    harness.anthropic.enqueue({ text: 'Hi! What should I call you?' });
    expect(await harness.exchange(phone, 'hello?')).toBe('Hi! What should I call you?');
    const fresh = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });
    expect(fresh.id).not.toBe(user.id);
    expect(fresh.name).toBeNull();
    expect(harness.anthropic.requests[0]!.allText()).not.toContain('Zebulon');
    expect(harness.anthropic.requests[0]!.allText()).not.toContain('barometers');
  });

  it('keeps everything when the answer is not YES, or the YES comes too late', async () => {
    const phone = '+12125550703';
    const { user } = await seededUser(phone);
    harness.anthropic.reset();
    expect(await harness.exchange(phone, 'מחק את הנתונים שלי')).toBe(`${dataReplies('he').confirmErase} השיבו כן תוך 5 דקות כדי למחוק.`);
    expect(await harness.exchange(phone, 'no')).toBe("OK, I won't do that.");
    expect((await rowsOfUser(harness, user.id)).Fact).toBe(1);

    await harness.exchange(phone, 'DELETE MY DATA');
    // The question lapses: a later YES is too late.
    await harness.database.prisma.pendingQuestion.updateMany({ where: { userId: user.id, status: 'pending' }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await harness.exchange(phone, 'YES')).toMatch(/waited more than 5 minutes/);
    expect((await rowsOfUser(harness, user.id)).Fact).toBe(1);
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it('never sends a reminder after the erase commits: a delivery in flight finishes first, a later one finds nothing', async () => {
    const phone = '+12125550704';
    const { user, reminderId } = await seededUser(phone);
    expect(await harness.exchange(phone, 'DELETE MY DATA')).toContain(say.confirmErase);
    const reminder = await harness.database.prisma.reminder.findUniqueOrThrow({ where: { id: reminderId } });
    harness.twilio.reset();

    // The reminder fires and its send hangs at Twilio...
    const gate = transport.holdNext();
    const delivery = harness.herald.reminderDelivery.deliver({ reminderId, dueAt: reminder.nextDueAt!.toISOString() });
    await gate.started;
    // ...while the user says YES: the erase waits for the send in flight.
    await harness.inbound({ from: phone, body: 'YES' });
    await waitUntil(() => harness.logs.lines.some((line) => line.msg === 'a message to the user is being sent; erasing once it is out' && line.userId === user.id), 'the erase to wait for the send');
    expect(await harness.database.prisma.user.findUnique({ where: { id: user.id } })).not.toBeNull();

    gate.release();
    await delivery;
    const messages = await harness.repliesTo(phone, 2);
    expect(messages.map((message) => message.body)).toEqual(['⏰ Reminder: Water the ficus', say.erased]);
    expect(await harness.database.prisma.user.findUnique({ where: { id: user.id } })).toBeNull();

    // A delivery of the same reminder after the erase (its job was already taken, say) sends nothing.
    expect(await harness.herald.reminderDelivery.deliver({ reminderId, dueAt: reminder.nextDueAt!.toISOString() })).toEqual({ kind: 'stale' });
    expect(harness.twilio.messages.filter((message) => message.to === phone)).toHaveLength(2);
  });
});
