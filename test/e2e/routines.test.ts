import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { lastToolResults } from '../helpers/model-script.js';
import { createUser, eventually } from '../reminders/support.js';
import { parseScrape } from '../observability/scrape.js';
import { NOTHING_TO_SEND } from '../../src/routines/routine-request.js';
import type { RoutineRecurrence } from '../../src/routines/routine-schedule.js';

/**
 * Routines end to end (issue 21 items 1-3): created by text through the webhook with the
 * scripted model driving scheduler-agent's tools, and run at their time as a turn of their
 * own (pg-boss job, the user's lease, context, orchestrator, outbox), exactly once.
 */

const ZONE = 'America/New_York';
const SECONDS = "yyyy-MM-dd'T'HH:mm:ss";
const daily: RoutineRecurrence = { frequency: 'daily' };

function plan(task: string): ScriptedAnthropicResponse {
  return { toolCalls: [{ name: 'create_plan', input: { analysis: 'A routine request', goal: 'Manage the user\'s routines', steps: [{ id: 'step_1', agent: 'scheduler-agent', task }] } }] };
}

describe('routines through the webhook', () => {
  let harness: HeraldHarness;
  let phoneCounter = 0;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { METRICS_TOKEN: 'routines-metrics-token' } });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    phoneCounter += 1;
    phone = `+1415555${String(700 + phoneCounter).padStart(4, '0')}`;
    userId = (await createUser(harness, phone, { timezone: ZONE })).id;
  });
  afterAll(async () => {
    await harness.close();
  });

  const now = () => DateTime.now().setZone(ZONE);
  const prisma = () => harness.database.prisma;

  /** A routine of this test's user whose first run is `seconds` from now, then daily. */
  async function routineIn(seconds: number, fields: { instruction?: string; condition?: string; name?: string } = {}) {
    const created = await harness.herald.routines.create(userId, ZONE, {
      instruction: fields.instruction ?? 'a short brief of my day: calendar, reminders, unread email',
      ...(fields.condition ? { condition: fields.condition } : {}),
      ...(fields.name ? { name: fields.name } : {}),
      at: now().plus({ seconds }).toFormat(SECONDS),
      recurrence: daily,
    });
    if (!created.ok) throw new Error(created.error);
    return prisma().routine.findUniqueOrThrow({ where: { id: created.value.id } });
  }

  async function finishedRun(routineId: string) {
    return eventually(async () => {
      const run = await prisma().routineRun.findFirst({ where: { routineId, status: { not: 'pending' } } });
      return run ?? undefined;
    }, 'the routine run to finish');
  }

  async function routineJobs(routineId: string) {
    const { rows } = await harness.database.pool.query<{ data: { dueAt: string; heldUntil?: string }; state: string; start_after: Date }>(
      `SELECT data, state, start_after FROM pgboss.job WHERE name = 'routine' AND data->>'routineId' = $1 ORDER BY start_after`,
      [routineId],
    );
    return rows;
  }

  it('"every weekday at 7 send me my day" becomes a routine with its first run\'s job: two model calls', async () => {
    const tomorrow = now().plus({ days: 1 }).toFormat('yyyy-MM-dd');
    harness.anthropic.enqueue(plan(`Create a routine: every weekday at 7:00 send the user their day, starting ${tomorrow}`), {
      toolCalls: [
        { name: 'create_routine', input: { name: 'morning brief', instruction: 'send me my day', at: `${tomorrow}T07:00`, recurrence: { frequency: 'weekly', weekdays: ['MO', 'TU', 'WE', 'TH', 'FR'] } } },
        { name: 'complete_step', input: { summary: 'Created the routine', reply: "Done: every weekday at 7 I'll send you your day.", created: [{ description: 'morning brief' }] } },
      ],
    });
    expect(await harness.exchange(phone, 'every weekday at 7 send me my day')).toBe("Done: every weekday at 7 I'll send you your day.");
    harness.anthropic.rethrowScriptErrors();
    expect(harness.anthropic.requests).toHaveLength(2);
    expect(harness.anthropic.requests[1]!.toolNames()).toEqual(expect.arrayContaining(['create_routine', 'get_routines', 'update_routine', 'delete_routine']));
    const [routine] = await prisma().routine.findMany({ where: { userId } });
    expect(routine).toMatchObject({ name: 'morning brief', instruction: 'send me my day', rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', status: 'active', timezone: ZONE });
    expect(DateTime.fromJSDate(routine!.nextDueAt!, { zone: ZONE }).toFormat('HH:mm')).toBe('07:00');
    expect((await routineJobs(routine!.id)).map((job) => job.data.dueAt)).toEqual([routine!.nextDueAt!.toISOString()]);
  });

  it('refuses an empty instruction, a 5,000-character one and a schedule every 5 minutes, saving nothing', async () => {
    const at = now().plus({ days: 1 }).toFormat("yyyy-MM-dd'T'07:00");
    harness.anthropic.enqueue(
      plan('Create the routines the user asked for'),
      {
        toolCalls: [
          { name: 'create_routine', input: { instruction: '   ', at, recurrence: daily } },
          { name: 'create_routine', input: { instruction: 'x'.repeat(5_000), at, recurrence: daily } },
          { name: 'create_routine', input: { instruction: 'check the price of bitcoin', at, recurrence: { frequency: 'minutely', interval: 5 } } },
        ],
      },
      (request) => {
        const results = lastToolResults(request);
        expect(results.map((result) => result.isError)).toEqual([true, true, true]);
        expect(results[0]!.content).toContain('needs an instruction');
        expect(results[1]!.content).toContain('5000 characters; routines can be at most 2,000');
        expect(results[2]!.content).toContain('at most once an hour');
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Refused', reply: 'Routines can run at most once an hour, and need an instruction of up to 2,000 characters.' } }] };
      },
    );
    expect(await harness.exchange(phone, 'every 5 minutes check bitcoin')).toBe('Routines can run at most once an hour, and need an instruction of up to 2,000 characters.');
    harness.anthropic.rethrowScriptErrors();
    expect(await prisma().routine.count({ where: { userId } })).toBe(0);
  });

  it('runs at its time as a turn of its own: one message, stored in the conversation, and a follow-up sees it', async () => {
    const routine = await routineIn(2, { name: 'morning brief' });
    harness.anthropic.enqueue((request) => {
      // The instruction is the request; the planner is told nobody just wrote it.
      expect(request.lastUserText()).toContain('a short brief of my day: calendar, reminders, unread email');
      expect(request.lastUserText()).toContain('Routine "morning brief"');
      return { text: 'Good morning! Two meetings today: 10:00 standup, 14:00 design review.' };
    });
    const [brief] = await harness.repliesTo(phone, 1);
    harness.anthropic.rethrowScriptErrors();
    expect(brief!.body).toBe('Good morning! Two meetings today: 10:00 standup, 14:00 design review.');
    const run = await finishedRun(routine.id);
    expect(run).toMatchObject({ status: 'sent', dueAt: routine.nextDueAt });
    const turn = await prisma().turn.findUniqueOrThrow({ where: { id: run.turnId! } });
    expect(turn).toMatchObject({ status: 'succeeded', modelCalls: 1 });
    expect(Number(turn.costUsd)).toBeGreaterThan(0);
    expect(await prisma().message.findMany({ where: { userId }, select: { role: true, kind: true, content: true } })).toEqual([
      { role: 'assistant', kind: 'routine', content: brief!.body },
    ]);
    // The next run is tomorrow, with its job.
    const after = await prisma().routine.findUniqueOrThrow({ where: { id: routine.id } });
    expect(after.nextDueAt!.getTime() - routine.nextDueAt!.getTime()).toBeGreaterThanOrEqual(23 * 3_600_000);
    expect(after.runsSent).toBe(1);
    expect((await routineJobs(routine.id)).map((job) => job.data.dueAt)).toContain(after.nextDueAt!.toISOString());

    // "tell me more about the second meeting": the planner sees the brief in the history.
    harness.anthropic.enqueue((request) => {
      expect(JSON.stringify(request.body.messages)).toContain('14:00 design review');
      return { text: 'The design review is at 14:00.' };
    });
    expect(await harness.exchange(phone, 'tell me more about the second meeting')).toBe('The design review is at 14:00.');
    harness.anthropic.rethrowScriptErrors();
  });

  it('a run due inside the user\'s quiet hours waits for them to end: held, no model call, nothing sent', async () => {
    const local = now();
    const end = local.plus({ hours: 2 }).startOf('minute');
    await prisma().user.update({ where: { id: userId }, data: { quietHours: `${local.minus({ hours: 1 }).toFormat('HH:mm')}-${end.toFormat('HH:mm')}` } });
    const routine = await routineIn(1, { name: 'morning brief' });
    const held = await eventually(async () => (await routineJobs(routine.id)).find((job) => job.data.heldUntil !== undefined), 'the run to be held');
    expect(new Date(held.data.heldUntil!).getTime()).toBe(end.toMillis());
    expect(held.data.dueAt).toBe(routine.nextDueAt!.toISOString());
    expect(harness.anthropic.requests).toHaveLength(0);
    expect(harness.twilio.messages.filter((message) => message.to === phone)).toEqual([]);
    expect(await prisma().routineRun.count({ where: { routineId: routine.id, status: { not: 'pending' } } })).toBe(0);
  });

  it('answers in the language of the instruction, not of the English framing around it', async () => {
    const routine = await routineIn(1, { name: 'resumen', instruction: 'cada mañana, un resumen corto de mi día: calendario y recordatorios pendientes' });
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'A brief', goal: 'Brief the user', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: 'List what is due today', dependsOn: [] }] } }] },
      (request) => {
        expect(JSON.stringify(request.body.system)).toContain('<language>Spanish');
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Nothing due', reply: 'Hoy no tienes nada pendiente.' } }] };
      },
    );
    const [brief] = await harness.repliesTo(phone, 1);
    harness.anthropic.rethrowScriptErrors();
    expect(brief!.body).toBe('Hoy no tienes nada pendiente.');
    expect(await finishedRun(routine.id)).toMatchObject({ status: 'sent' });
  });

  it('sends nothing when the condition is not met', async () => {
    const routine = await routineIn(2, { instruction: 'tell me my meetings', condition: 'only if I have meetings' });
    harness.anthropic.enqueue((request) => {
      expect(request.lastUserText()).toContain('Condition: only if I have meetings');
      return { text: NOTHING_TO_SEND };
    });
    expect(await finishedRun(routine.id)).toMatchObject({ status: 'nothing', outboundGroupId: null });
    harness.anthropic.rethrowScriptErrors();
    expect(harness.twilio.messages.filter((message) => message.to === phone)).toEqual([]);
    expect(await prisma().message.count({ where: { userId } })).toBe(0);
  });

  it('a run that fails at the model sends nothing, is logged and counted, and the next run still comes', async () => {
    const routine = await routineIn(2);
    const failedBefore = await failedRuns();
    harness.anthropic.enqueue({ error: { status: 500 } }, { error: { status: 500 } });
    const run = await finishedRun(routine.id);
    expect(run.status).toBe('failed');
    expect(harness.twilio.messages.filter((message) => message.to === phone)).toEqual([]);
    expect(await prisma().message.count({ where: { userId } })).toBe(0);
    expect(await prisma().turn.findUniqueOrThrow({ where: { id: run.turnId! } })).toMatchObject({ status: 'failed', errorKind: 'model' });
    expect(harness.logs.lines.some((line) => line.event === 'routine_failed' && line.routineId === routine.id)).toBe(true);
    expect(await failedRuns()).toBe(failedBefore + 1);
    const after = await prisma().routine.findUniqueOrThrow({ where: { id: routine.id } });
    expect(after.nextDueAt!.getTime()).toBeGreaterThan(routine.nextDueAt!.getTime());
    expect((await routineJobs(routine.id)).map((job) => job.data.dueAt)).toContain(after.nextDueAt!.toISOString());

    // The next occurrence runs: moved to a few seconds from now, it sends.
    expect((await harness.herald.routines.update(userId, { routineId: routine.id }, { at: now().plus({ seconds: 2 }).toFormat(SECONDS) })).ok).toBe(true);
    harness.anthropic.enqueue({ text: 'Your day: nothing scheduled.' });
    const [brief] = await harness.repliesTo(phone, 1);
    expect(brief!.body).toBe('Your day: nothing scheduled.');
  });

  async function failedRuns(): Promise<number> {
    const samples = parseScrape((await harness.herald.metrics.scrape()).body);
    return samples.find((sample) => sample.name === 'herald_routine_runs_total' && sample.labels.status === 'failed')?.value ?? 0;
  }

  it('a run missed by more than an hour is skipped and logged, not sent late; the next is scheduled', async () => {
    const routine = await routineIn(3_600);
    const dueAt = new Date(Date.now() - 2 * 3_600_000);
    await prisma().routine.update({ where: { id: routine.id }, data: { nextDueAt: dueAt } });
    const outcome = await harness.herald.routineRunner.run({ routineId: routine.id, dueAt: dueAt.toISOString() });
    expect(outcome).toEqual({ kind: 'finished', status: 'skipped_late' });
    expect(harness.anthropic.requests).toHaveLength(0);
    expect(harness.logs.lines.some((line) => line.event === 'routine_missed' && line.routineId === routine.id)).toBe(true);
    const after = await prisma().routine.findUniqueOrThrow({ where: { id: routine.id } });
    expect(after.nextDueAt!.getTime()).toBeGreaterThan(Date.now());
  });

  it('two jobs for the same occurrence (two instances) make one run and one message', async () => {
    const second = await HeraldHarness.start({ database: harness.database });
    try {
      const routine = await routineIn(2);
      const job = { routineId: routine.id, dueAt: routine.nextDueAt!.toISOString() };
      // Both instances answer any model call; whichever runs it, one message goes.
      for (const fake of [harness.anthropic, second.anthropic]) fake.setFallback(() => ({ delayMs: 300, then: { text: 'Your day: one meeting at 9.' } }));
      const outcomes = await Promise.all([harness.herald.routineRunner.run(job), second.herald.routineRunner.run(job), harness.herald.routineRunner.run(job)]);
      await finishedRun(routine.id);
      await harness.idle(phone);
      const sent = [...harness.twilio.messages, ...second.twilio.messages].filter((message) => message.to === phone);
      expect(sent.map((message) => message.body)).toEqual(['Your day: one meeting at 9.']);
      expect(await prisma().routineRun.count({ where: { routineId: routine.id } })).toBe(1);
      expect(harness.anthropic.requests.length + second.anthropic.requests.length).toBe(1);
      expect(outcomes.filter((outcome) => outcome.kind === 'finished').length).toBeLessThanOrEqual(1);
    } finally {
      harness.anthropic.reset();
      await second.close();
    }
  });

  it('a user who texts during a run waits for it, then sees the run\'s message in history', async () => {
    const routine = await routineIn(2);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let runStarted!: () => void;
    const started = new Promise<void>((resolve) => (runStarted = resolve));
    harness.anthropic.enqueue(
      async () => {
        runStarted();
        await released;
        return { text: 'Brief: dentist at 4 pm.' };
      },
      (request) => {
        // The user's turn came after the run: its message is in the history, before theirs.
        expect(JSON.stringify(request.body.messages)).toContain('Brief: dentist at 4 pm.');
        return { text: 'The dentist is at 4 pm.' };
      },
    );
    await started;
    expect((await harness.inbound({ from: phone, body: 'when is the dentist?' })).statusCode).toBe(200);
    // The user's turn waits on the lease the run holds: no second model call yet.
    const message = await eventually(() => prisma().message.findFirst({ where: { userId, role: 'user' } }).then((found) => found ?? undefined), 'the inbound message stored');
    expect(message.inboundStatus).toBe('pending');
    expect(harness.anthropic.requests).toHaveLength(1);
    release();
    const replies = await harness.repliesTo(phone, 2);
    harness.anthropic.rethrowScriptErrors();
    expect(replies.map((reply) => reply.body)).toEqual(['Brief: dentist at 4 pm.', 'The dentist is at 4 pm.']);
    expect(await finishedRun(routine.id)).toMatchObject({ status: 'sent' });
  });

  it('a run whose job was lost is enqueued again by the recovery sweep, and runs once', async () => {
    const routine = await routineIn(3_600);
    // Its job is gone and it is overdue (a lost job): nothing would ever run it.
    await harness.database.pool.query(`DELETE FROM pgboss.job WHERE name = 'routine' AND data->>'routineId' = $1`, [routine.id]);
    const dueAt = new Date(Date.now() - 2 * 60_000);
    await prisma().routine.update({ where: { id: routine.id }, data: { nextDueAt: dueAt } });
    harness.anthropic.enqueue({ text: 'Your day, two minutes late.' });
    expect(await harness.herald.routines.recoverOverdue()).toBeGreaterThanOrEqual(1);
    const [brief] = await harness.repliesTo(phone, 1);
    expect(brief!.body).toBe('Your day, two minutes late.');
    expect(await finishedRun(routine.id)).toMatchObject({ status: 'sent', dueAt });
    // Claimed: the routine moved on, so the sweep has nothing more for it.
    expect((await prisma().routine.findUniqueOrThrow({ where: { id: routine.id } })).nextDueAt!.getTime()).toBeGreaterThan(Date.now());
  });

  it('WhatsApp outside the 24-hour window with no template: held for the user\'s next message without a model call (test/e2e/routines-window.test.ts)', async () => {
    const user = await createUser(harness, `+1415556${String(900 + phoneCounter).padStart(4, '0')}`, { timezone: ZONE, channel: 'whatsapp', lastWhatsappInboundAt: new Date(Date.now() - 25 * 3_600_000) });
    userId = user.id;
    const routine = await routineIn(2);
    expect(await finishedRun(routine.id)).toMatchObject({ status: 'awaiting_window' });
    expect(harness.anthropic.requests).toHaveLength(0);
  });
});

describe('routines: budget, WhatsApp template and a run taken over after a crash', () => {
  const TEMPLATE = 'HX0123456789abcdef0123456789abcdef';
  let harness: HeraldHarness;
  let counter = 0;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { USER_DAILY_BUDGET_USD: '0.01', TWILIO_WHATSAPP_ROUTINE_CONTENT_SID: TEMPLATE } });
    // The operator's approved template, as it exists in their account.
    harness.twilio.content.register(TEMPLATE, { body: '{{1}}' });
  });
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
  });
  afterAll(async () => {
    await harness.close();
  });

  const prisma = () => harness.database.prisma;
  const now = () => DateTime.now().setZone(ZONE);

  async function routineFor(userId: string, seconds: number, name: string) {
    const created = await harness.herald.routines.create(userId, ZONE, { name, instruction: `the ${name}`, at: now().plus({ seconds }).toFormat(SECONDS), recurrence: daily });
    if (!created.ok) throw new Error(created.error);
    return prisma().routine.findUniqueOrThrow({ where: { id: created.value.id } });
  }

  it('a user past the daily budget gets no runs that day and one notice, with no model call', async () => {
    const phone = `+1415558${String(100 + counter).padStart(4, '0')}`;
    const user = await createUser(harness, phone, { timezone: ZONE });
    // Today's turns already cost more than the user's budget.
    await prisma().turn.create({ data: { userId: user.id, startedAt: new Date(), status: 'succeeded', costUsd: 0.02, finishedAt: new Date() } });
    const first = await routineFor(user.id, 2, 'morning brief');
    const second = await routineFor(user.id, 2, 'news digest');
    for (const routine of [first, second]) {
      await eventually(async () => (await prisma().routineRun.findFirst({ where: { routineId: routine.id, status: 'skipped_budget' } })) ?? undefined, 'the run skipped for the budget');
    }
    await harness.idle(phone);
    const notices = harness.twilio.messages.filter((message) => message.to === phone);
    expect(notices).toHaveLength(1);
    expect(notices[0]!.body).toMatch(/^You've reached today's limit for Herald's answers, so your routines \("(morning brief|news digest)" first\) won't run until midnight\.$/);
    expect(await prisma().message.findMany({ where: { userId: user.id }, select: { kind: true } })).toEqual([{ kind: 'notice' }]);
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it('on WhatsApp outside the 24-hour window the run goes out through the routine template', async () => {
    const number = `+1415558${String(300 + counter).padStart(4, '0')}`;
    const user = await createUser(harness, number, { timezone: ZONE, channel: 'whatsapp', lastWhatsappInboundAt: new Date(Date.now() - 30 * 3_600_000) });
    await routineFor(user.id, 2, 'morning brief');
    harness.anthropic.enqueue({ text: 'Your day: gym at 6 pm.' });
    const [sent] = await harness.repliesTo(`whatsapp:${number}`, 1);
    expect(sent).toMatchObject({ to: `whatsapp:${number}`, contentSid: TEMPLATE });
    // At its time, not held for the user's next message.
    expect(await prisma().routineRun.findMany({ where: { userId: user.id }, select: { status: true, heldForWindowAt: true } })).toEqual([{ status: 'sent', heldForWindowAt: null }]);
  });

  it('a run claimed by an instance that died (its lease lapsed) is run by the job\'s retry, once', async () => {
    const phone = `+1415558${String(500 + counter).padStart(4, '0')}`;
    const user = await createUser(harness, phone, { timezone: ZONE });
    const routine = await routineFor(user.id, 3_600, 'morning brief');
    // What a crash after the claim leaves: the routine moved on, its run pending, the dead holder's lease lapsed.
    const dueAt = new Date(Date.now() - 60_000);
    await prisma().routineRun.create({ data: { routineId: routine.id, userId: user.id, dueAt, status: 'pending', createdAt: dueAt } });
    await prisma().user.update({ where: { id: user.id }, data: { turnLeaseOwner: 'dead-instance', turnLeaseUntil: new Date(Date.now() - 1_000) } });
    harness.anthropic.enqueue({ text: 'Your day, a minute late: nothing scheduled.' });
    const job = { routineId: routine.id, dueAt: dueAt.toISOString() };
    expect(await harness.herald.routineRunner.run(job)).toEqual({ kind: 'finished', status: 'sent' });
    expect(await harness.herald.routineRunner.run(job)).toEqual({ kind: 'duplicate', status: 'sent' });
    await harness.idle(phone);
    expect(harness.twilio.messages.filter((message) => message.to === phone).map((message) => message.body)).toEqual(['Your day, a minute late: nothing scheduled.']);
    // The routine's own next run is untouched.
    expect((await prisma().routine.findUniqueOrThrow({ where: { id: routine.id } })).nextDueAt).toEqual(routine.nextDueAt);
  });
});
