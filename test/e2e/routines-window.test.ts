import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { createUser, eventually } from '../reminders/support.js';
import { parseScrape } from '../observability/scrape.js';
import type { RoutineRecurrence } from '../../src/routines/routine-schedule.js';

/**
 * Routines on WhatsApp outside the 24-hour window with no approved template (issue 21 item 3):
 * the run waits for the user's next message (`awaiting_window`, no model call), then runs as a
 * routine run of its own after their reply, once; SMS runs at its time as before.
 */

const ZONE = 'America/New_York';
const SECONDS = "yyyy-MM-dd'T'HH:mm:ss";
const HOUR = 3_600_000;
const daily: RoutineRecurrence = { frequency: 'daily' };

describe('WhatsApp routine runs outside the 24-hour window, without a template', () => {
  let harness: HeraldHarness;
  let counter = 0;
  let phone: string;
  let whatsapp: string;
  let userId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { TWILIO_WHATSAPP_ROUTINE_CONTENT_SID: undefined, METRICS_TOKEN: 'routines-window-token' } });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1415557${String(100 + counter).padStart(4, '0')}`;
    whatsapp = `whatsapp:${phone}`;
    // Their last WhatsApp message was yesterday: the window is closed.
    userId = (await createUser(harness, phone, { timezone: ZONE, channel: 'whatsapp', lastWhatsappInboundAt: new Date(Date.now() - 25 * HOUR) })).id;
  });
  afterAll(async () => {
    await harness.close();
  });

  const prisma = () => harness.database.prisma;

  async function routineIn(seconds: number, name = 'morning brief') {
    const created = await harness.herald.routines.create(userId, ZONE, { name, instruction: 'a short brief of my day: calendar and reminders', at: DateTime.now().setZone(ZONE).plus({ seconds }).toFormat(SECONDS), recurrence: daily });
    if (!created.ok) throw new Error(created.error);
    return prisma().routine.findUniqueOrThrow({ where: { id: created.value.id } });
  }

  /** The routine's run once it is held for the window: nothing sent, no model call. */
  async function heldRun(routineId: string) {
    return eventually(async () => (await prisma().routineRun.findFirst({ where: { routineId, status: 'awaiting_window' } })) ?? undefined, 'the run held for the window');
  }

  async function runsTotal(status: string): Promise<number> {
    const samples = parseScrape((await harness.herald.metrics.scrape()).body);
    return samples.find((sample) => sample.name === 'herald_routine_runs_total' && sample.labels.status === status)?.value ?? 0;
  }

  it('waits for the user\'s next message: nothing at the due time, then their reply and the routine\'s message, once', async () => {
    const heldBefore = await runsTotal('awaiting_window');
    const routine = await routineIn(1);
    const run = await heldRun(routine.id);
    expect(run).toMatchObject({ dueAt: routine.nextDueAt, finishedAt: null, outboundGroupId: null });
    expect(run.heldForWindowAt).not.toBeNull();
    expect(harness.anthropic.requests).toHaveLength(0);
    expect(harness.twilio.messages).toEqual([]);
    expect(await prisma().message.count({ where: { userId } })).toBe(0);
    expect(await runsTotal('awaiting_window')).toBe(heldBefore + 1);
    expect(harness.logs.lines.some((line) => line.event === 'routine_awaiting_window' && line.routineId === routine.id)).toBe(true);

    const dueLocal = DateTime.fromJSDate(routine.nextDueAt!, { zone: ZONE }).toFormat('ccc, LLL d, h:mm a');
    harness.anthropic.enqueue(
      (request) => {
        expect(request.lastUserText()).toContain('good morning, anything new?');
        return { text: 'Good morning! Nothing new on my side.' };
      },
      (request) => {
        // A routine run of its own, told it goes out late, at the user's message.
        expect(request.lastUserText()).toContain('Routine "morning brief"');
        expect(request.lastUserText()).toContain('a short brief of my day: calendar and reminders');
        expect(request.lastUserText()).toContain('only once they wrote again');
        expect(request.lastUserText()).toContain(dueLocal);
        return { text: 'Your morning brief, sent now that you wrote: nothing on your calendar today.' };
      },
    );
    await harness.inbound({ from: whatsapp, body: 'good morning, anything new?' });
    const [reply, brief] = await harness.repliesTo(whatsapp, 2);
    harness.anthropic.rethrowScriptErrors();
    expect(reply!.body).toBe('Good morning! Nothing new on my side.');
    expect(brief!.body).toBe('Your morning brief, sent now that you wrote: nothing on your calendar today.');
    expect(brief!.contentSid ?? undefined).toBeUndefined();
    const sent = await eventually(async () => (await prisma().routineRun.findFirst({ where: { id: run.id, status: 'sent' } })) ?? undefined, 'the held run sent');
    expect(sent.turnId).not.toBeNull();
    expect(await prisma().message.findMany({ where: { userId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: { role: true, kind: true } })).toEqual([
      { role: 'user', kind: 'chat' },
      { role: 'assistant', kind: 'chat' },
      { role: 'assistant', kind: 'routine' },
    ]);

    // A second text is only answered: the run went once.
    harness.anthropic.enqueue({ text: 'Anytime.' });
    expect(await harness.exchange(whatsapp, 'thanks')).toBe('Anytime.');
    await harness.idle(phone);
    expect(harness.twilio.messages.map((message) => message.body)).toEqual([reply!.body, brief!.body, 'Anytime.']);
    expect(harness.anthropic.requests).toHaveLength(3);
    expect(await prisma().routineRun.findMany({ where: { routineId: routine.id }, select: { status: true } })).toEqual([{ status: 'sent' }]);
  });

  it('two messages at once, through two instances, run the held routine once', async () => {
    const second = await HeraldHarness.start({ database: harness.database });
    try {
      const routine = await routineIn(1);
      await heldRun(routine.id);
      const BRIEF = 'Your morning brief, late: one meeting at 3 pm.';
      for (const fake of [harness.anthropic, second.anthropic]) {
        fake.setFallback((request) => ({ delayMs: 200, then: { text: request.lastUserText().includes('Routine "morning brief"') ? BRIEF : 'Hello again!' } }));
      }
      await Promise.all([harness.inbound({ from: whatsapp, body: 'hello?' }), second.inbound({ from: whatsapp, body: 'are you there?' })]);
      await eventually(async () => (await prisma().routineRun.findFirst({ where: { routineId: routine.id, status: 'sent' } })) ?? undefined, 'the held run sent');
      await harness.idle(phone);
      // Each instance has its own fake Twilio: in the order Twilio got them.
      const sent = [...harness.twilio.messages, ...second.twilio.messages]
        .filter((message) => message.to === whatsapp)
        .sort((a, b) => a.dateCreated.getTime() - b.dateCreated.getTime())
        .map((message) => message.body);
      expect(sent.filter((body) => body === BRIEF)).toHaveLength(1);
      // The user's reply came first (a second text, when it was a turn of its own, may be answered after the brief).
      expect(sent[0]).toBe('Hello again!');
      expect(sent.filter((body) => body === 'Hello again!').length).toBeGreaterThanOrEqual(1);
      expect(await prisma().routineRun.count({ where: { routineId: routine.id } })).toBe(1);
    } finally {
      harness.anthropic.reset();
      await second.close();
    }
  });

  it('a held run of a routine paused meanwhile is not run: the user gets only their reply', async () => {
    const droppedBefore = await runsTotal('undeliverable');
    const routine = await routineIn(1);
    const run = await heldRun(routine.id);
    expect((await harness.herald.routines.update(userId, { routineId: routine.id }, { status: 'paused' })).ok).toBe(true);
    harness.anthropic.enqueue({ text: 'Hi! What can I do for you?' });
    expect(await harness.exchange(whatsapp, 'hi')).toBe('Hi! What can I do for you?');
    await harness.idle(phone);
    expect(await prisma().routineRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({ status: 'undeliverable' });
    expect(await runsTotal('undeliverable')).toBe(droppedBefore + 1);
    // No job of the run's left to come late.
    const { rows } = await harness.database.pool.query(`SELECT 1 FROM pgboss.job WHERE name = 'routine' AND data->>'routineId' = $1 AND data->>'dueAt' = $2 AND state IN ('created', 'retry', 'active')`, [routine.id, run.dueAt.toISOString()]);
    expect(rows).toHaveLength(0);
    expect(harness.anthropic.requests).toHaveLength(1);
    expect(harness.twilio.messages.map((message) => message.body)).toEqual(['Hi! What can I do for you?']);
  });

  it('only the latest held run of a routine runs; one a newer run replaced, or older than a day, is dropped', async () => {
    const routine = await routineIn(3_600, 'evening summary');
    const other = await routineIn(3_600, 'news digest');
    const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * HOUR);
    // What two days of a closed window leave: held runs, one of them replaced by a newer run.
    const held = (routineId: string, dueAt: Date) => prisma().routineRun.create({ data: { routineId, userId, dueAt, status: 'awaiting_window', heldForWindowAt: dueAt, createdAt: dueAt } });
    const older = await held(routine.id, at(5));
    const latest = await held(routine.id, at(2));
    const stale = await held(other.id, at(30));
    harness.anthropic.enqueue({ text: 'Hey! All quiet.' }, (request) => {
      expect(request.lastUserText()).toContain('Routine "evening summary"');
      return { text: 'Your evening summary, late: all done today.' };
    });
    await harness.inbound({ from: whatsapp, body: 'hey' });
    const messages = await harness.repliesTo(whatsapp, 2);
    harness.anthropic.rethrowScriptErrors();
    expect(messages.map((message) => message.body)).toEqual(['Hey! All quiet.', 'Your evening summary, late: all done today.']);
    await eventually(async () => ((await prisma().routineRun.findUniqueOrThrow({ where: { id: latest.id } })).status === 'sent' ? true : undefined), 'the latest held run sent');
    expect((await prisma().routineRun.findUniqueOrThrow({ where: { id: older.id } })).status).toBe('undeliverable');
    expect((await prisma().routineRun.findUniqueOrThrow({ where: { id: stale.id } })).status).toBe('undeliverable');
    await harness.idle(phone);
    expect(harness.twilio.messages).toHaveLength(2);
    expect(harness.anthropic.requests).toHaveLength(2);
  });

  it('a routine held again keeps only its latest run waiting: the older one ends undeliverable at once', async () => {
    const droppedBefore = await runsTotal('undeliverable');
    const routine = await routineIn(1);
    const first = await heldRun(routine.id);
    // Its next occurrence, moved to a second from now, finds the window still closed.
    expect((await harness.herald.routines.update(userId, { routineId: routine.id }, { at: DateTime.now().setZone(ZONE).plus({ seconds: 1 }).toFormat(SECONDS) })).ok).toBe(true);
    const second = await eventually(async () => (await prisma().routineRun.findFirst({ where: { routineId: routine.id, status: 'awaiting_window', id: { not: first.id } } })) ?? undefined, 'the next run held');
    expect(second.dueAt.getTime()).toBeGreaterThan(first.dueAt.getTime());
    expect(await prisma().routineRun.findUniqueOrThrow({ where: { id: first.id } })).toMatchObject({ status: 'undeliverable' });
    expect(await runsTotal('undeliverable')).toBe(droppedBefore + 1);
    expect(harness.anthropic.requests).toHaveLength(0);
    expect(harness.twilio.messages).toEqual([]);
  });

  it('SMS is unaffected: the run goes at its time, nothing held', async () => {
    const smsPhone = `+1415557${String(800 + counter).padStart(4, '0')}`;
    userId = (await createUser(harness, smsPhone, { timezone: ZONE })).id;
    const routine = await routineIn(1);
    harness.anthropic.enqueue({ text: 'Your day: nothing scheduled.' });
    const [brief] = await harness.repliesTo(smsPhone, 1);
    expect(brief!.body).toBe('Your day: nothing scheduled.');
    expect(await prisma().routineRun.findMany({ where: { routineId: routine.id }, select: { status: true, heldForWindowAt: true } })).toEqual([{ status: 'sent', heldForWindowAt: null }]);
  });
});
