import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { formatLocal } from '../../src/reminders/reminder-schedule.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { lastToolResults as toolResults } from '../helpers/model-script.js';
import { createUser, occurrenceJobs } from '../reminders/support.js';

/**
 * Reminders end to end (issue 4): a text comes in through the signed webhook, the scripted
 * model plans a scheduler-agent step and drives its tools, and the user gets the reply;
 * the reminder rows and their pg-boss jobs are checked in the database. Every test
 * asserts its exact number of model calls.
 */

const ZONE = 'America/New_York';
const LOCAL = "yyyy-MM-dd'T'HH:mm";

function plan(task: string, goal = 'Manage the user\'s reminders'): ScriptedAnthropicResponse {
  return { toolCalls: [{ name: 'create_plan', input: { analysis: 'A reminder request', goal, steps: [{ id: 'step_1', agent: 'scheduler-agent', task }] } }] };
}

describe('reminders through the webhook', () => {
  let harness: HeraldHarness;
  let phoneCounter = 0;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    phoneCounter += 1;
    phone = `+1415555${String(300 + phoneCounter).padStart(4, '0')}`;
    userId = (await createUser(harness, phone, { timezone: ZONE })).id;
  });
  afterAll(async () => {
    await harness.close();
  });

  const now = () => DateTime.now().setZone(ZONE);
  const reminderRows = () => harness.database.prisma.reminder.findMany({ where: { userId }, orderBy: { id: 'asc' } });

  /** Sends a text and returns the one reply. */
  async function send(body: string): Promise<string> {
    const before = harness.twilio.messages.length;
    expect((await harness.inbound({ from: phone, body })).statusCode).toBe(200);
    const messages = await harness.replies(before + 1);
    harness.anthropic.rethrowScriptErrors();
    const reply = messages[before]!;
    expect(reply.to).toBe(phone);
    return reply.body ?? '';
  }

  async function latestTurn() {
    return harness.database.prisma.turn.findFirstOrThrow({
      where: { userId },
      orderBy: { startedAt: 'desc' },
      include: { plans: { include: { stepRuns: { orderBy: { startedAt: 'asc' } } } } },
    });
  }

  async function existing(text: string, at: DateTime) {
    const created = await harness.herald.reminders.create(userId, ZONE, { text, at: at.toFormat(LOCAL) });
    if (!created.ok) throw new Error(created.error);
    return created.value;
  }

  it('creates a one-off reminder "in a few seconds" that then fires: two model calls', async () => {
    const due = now().plus({ seconds: 4 });
    harness.anthropic.enqueue(plan(`Create a reminder "Call mom" at ${due.toFormat("yyyy-MM-dd'T'HH:mm:ss")}`), {
      toolCalls: [
        { name: 'create_scheduled_job', input: { text: 'Call mom', at: due.toFormat("yyyy-MM-dd'T'HH:mm:ss") } },
        { name: 'complete_step', input: { summary: 'Created the reminder', reply: "OK, I'll remind you to call mom.", created: [{ description: 'Call mom' }] } },
      ],
    });
    expect(await send('remind me to call mom in 4 seconds')).toBe("OK, I'll remind you to call mom.");
    expect(harness.anthropic.requests).toHaveLength(2);
    expect(harness.anthropic.requests[1]!.toolNames()).toEqual(['create_scheduled_job', 'get_scheduled_jobs', 'update_scheduled_job', 'delete_scheduled_job', 'cancel_scheduled_jobs', 'create_routine', 'get_routines', 'update_routine', 'delete_routine', 'complete_step']);
    const dueAt = new Date(due.startOf('second').toMillis());
    const [reminder] = await reminderRows();
    // Stored as given, but whole minutes without their ":00" (a due time on the minute happens).
    const startLocal = due.second === 0 ? due.toFormat("yyyy-MM-dd'T'HH:mm") : due.toFormat("yyyy-MM-dd'T'HH:mm:ss");
    expect(reminder).toMatchObject({ text: 'Call mom', rrule: null, startLocal });
    // One job, due at the reminder's instant (it may have run already: the state is not checked).
    expect((await occurrenceJobs(harness.database, reminder!.id)).map((job) => [job.data.dueAt, job.startAfter])).toEqual([[dueAt.toISOString(), dueAt]]);
    expect((await latestTurn()).modelCalls).toBe(2);

    const fired = await harness.replies(2);
    expect(fired[1]).toMatchObject({ to: phone, body: '⏰ Reminder: Call mom' });
    expect(fired[1]!.dateCreated.getTime()).toBeGreaterThanOrEqual(dueAt.getTime());
    expect(await harness.database.prisma.reminder.findUniqueOrThrow({ where: { id: reminder!.id } })).toMatchObject({ status: 'completed', nextDueAt: null });
    expect(await harness.database.prisma.reminderDelivery.findMany({ where: { userId } })).toMatchObject([{ status: 'sent' }]);
    expect(harness.anthropic.requests).toHaveLength(2);
  });

  it('lists reminders ("what reminders do I have?"): the reply is built from get_scheduled_jobs; three model calls', async () => {
    const tomorrow = now().plus({ days: 1 }).set({ hour: 10, minute: 0, second: 0, millisecond: 0 });
    const dentist = await existing('Dentist appointment', tomorrow);
    const mom = await existing('Call mom', tomorrow.plus({ hours: 8 }));
    harness.anthropic.enqueue(
      plan('List the user\'s reminders'),
      { toolCalls: [{ name: 'get_scheduled_jobs', input: {} }] },
      (request) => {
        const [result] = toolResults(request);
        const listed = JSON.parse(result!.content) as { reminders: Array<{ id: string; text: string; next: string }>; count: number; isEmpty: boolean };
        expect(listed).toMatchObject({ count: 2, isEmpty: false });
        const lines = listed.reminders.map((reminder) => `${reminder.text}: ${reminder.next}`);
        return {
          toolCalls: [
            {
              name: 'complete_step',
              input: { summary: `${listed.count} reminders`, reply: `You have ${listed.count} reminders:\n${lines.join('\n')}`, isEmpty: false, data: { reminders: listed.reminders } },
            },
          ],
        };
      },
    );
    const reply = await send('what reminders do I have?');
    expect(reply).toBe(`You have 2 reminders:\nDentist appointment: ${dentist.next}\nCall mom: ${mom.next}`);
    expect(harness.anthropic.requests).toHaveLength(3);
    expect((await latestTurn()).modelCalls).toBe(3);
  });

  it('an empty listing carries isEmpty: three model calls', async () => {
    harness.anthropic.enqueue(
      plan('List the user\'s reminders'),
      { toolCalls: [{ name: 'get_scheduled_jobs', input: {} }] },
      (request) => {
        const listed = JSON.parse(toolResults(request)[0]!.content) as { isEmpty: boolean; count: number };
        expect(listed).toEqual({ reminders: [], count: 0, isEmpty: true });
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'No reminders', reply: "You don't have any reminders.", isEmpty: true } }] };
      },
    );
    expect(await send('what reminders do I have?')).toBe("You don't have any reminders.");
    const turn = await latestTurn();
    expect(turn.modelCalls).toBe(3);
    expect(turn.plans[0]!.stepRuns[0]!.output).toMatchObject({ isEmpty: true });
  });

  it('moves a reminder by description: new job at the new time, the old one finds nothing to do; two model calls', async () => {
    const tomorrow = now().plus({ days: 1 }).set({ hour: 10, minute: 0, second: 0, millisecond: 0 });
    const dentist = await existing('Dentist appointment', tomorrow);
    const newTime = tomorrow.plus({ days: 1, hours: 1, minutes: 30 });
    harness.anthropic.enqueue(plan(`Move the dentist reminder to ${newTime.toFormat(LOCAL)}`), {
      toolCalls: [
        { name: 'update_scheduled_job', input: { match: 'dentist', at: newTime.toFormat(LOCAL) } },
        { name: 'complete_step', input: { summary: 'Moved', reply: `Moved: dentist appointment, ${newTime.toFormat('ccc h:mm a')}.`, updated: [{ id: dentist.id, description: 'Dentist appointment' }] } },
      ],
    });
    expect(await send('move the dentist reminder to the day after tomorrow at 11:30')).toBe(`Moved: dentist appointment, ${newTime.toFormat('ccc h:mm a')}.`);
    expect(harness.anthropic.requests).toHaveLength(2);
    const [row] = await reminderRows();
    expect(row).toMatchObject({ id: dentist.id, status: 'active', nextDueAt: newTime.toJSDate() });
    expect((await occurrenceJobs(harness.database, dentist.id)).map((job) => job.startAfter)).toEqual([tomorrow.toJSDate(), newTime.toJSDate()]);
    // The job of the old time, whenever it runs, does nothing.
    expect(await harness.herald.reminderDelivery.deliver({ reminderId: dentist.id, dueAt: tomorrow.toJSDate().toISOString() })).toEqual({ kind: 'stale' });
    expect(harness.twilio.messages).toHaveLength(1);
  });

  it('cancels a reminder by description ("cancel the dentist one"): two model calls', async () => {
    const tomorrow = now().plus({ days: 1 }).set({ hour: 10, minute: 0, second: 0, millisecond: 0 });
    const dentist = await existing('Dentist appointment', tomorrow);
    await existing('Call mom', tomorrow.plus({ hours: 8 }));
    harness.anthropic.enqueue(plan('Cancel the dentist reminder'), {
      toolCalls: [
        { name: 'delete_scheduled_job', input: { match: 'dentist' } },
        { name: 'complete_step', input: { summary: 'Cancelled', reply: 'Cancelled the dentist reminder.', deleted: [{ id: dentist.id, description: 'Dentist appointment' }] } },
      ],
    });
    expect(await send('cancel the dentist one')).toBe('Cancelled the dentist reminder.');
    expect(harness.anthropic.requests).toHaveLength(2);
    expect((await reminderRows()).map((row) => [row.text, row.status])).toEqual([
      ['Dentist appointment', 'cancelled'],
      ['Call mom', 'active'],
    ]);
    expect(await harness.herald.reminderDelivery.deliver({ reminderId: dentist.id, dueAt: tomorrow.toJSDate().toISOString() })).toEqual({ kind: 'stale' });
  });

  it('two reminders match: Herald numbers them in its own question, nothing changes; "the plumber one" cancels that one with no model call', async () => {
    const tomorrow = now().plus({ days: 1 }).set({ hour: 9, minute: 0, second: 0, millisecond: 0 });
    await existing('Call mom', tomorrow.plus({ hours: 9 }));
    await existing('Call the plumber', tomorrow);
    harness.anthropic.enqueue(
      plan('Cancel the "call" reminder'),
      { toolCalls: [{ name: 'delete_scheduled_job', input: { match: 'call' } }] },
      (request) => {
        const [result] = toolResults(request);
        expect(result?.isError).toBe(true);
        expect(result?.content).toMatch(/^2 reminders match "call": 1\) "Call the plumber" .*2\) "Call mom" .*Nothing was changed; Herald asks the user which one to cancel/);
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Two reminders match "call"', needsClarification: true, question: 'Which one, the plumber or mom?' } }] };
      },
    );
    const plumber = `Call the plumber, ${formatLocal(tomorrow.toJSDate(), ZONE)}`;
    const mom = `Call mom, ${formatLocal(tomorrow.plus({ hours: 9 }).toJSDate(), ZONE)}`;
    // Herald's own words, numbered, instead of the agent's question.
    expect(await send('cancel the call reminder')).toBe(`Which one?\n1) ${plumber}\n2) ${mom}\nReply with its number, or NO to leave it.`);
    expect(harness.anthropic.requests).toHaveLength(3);
    expect(harness.twilio.messages).toHaveLength(1);
    expect((await reminderRows()).map((row) => row.status)).toEqual(['active', 'active']);
    expect((await latestTurn()).plans[0]!.status).toBe('needs_clarification');

    expect(await send('the plumber one')).toBe(`Done: ${plumber}.`);
    expect(harness.anthropic.requests).toHaveLength(3);
    expect((await reminderRows()).map((row) => [row.text, row.status])).toEqual([
      ['Call mom', 'active'],
      ['Call the plumber', 'cancelled'],
    ]);
  });

  it('"remind me sometime": the agent asks when, nothing is saved; two model calls', async () => {
    const question = 'Sure, when should I remind you?';
    harness.anthropic.enqueue(plan('Create a reminder; the user gave no time ("sometime")'), {
      toolCalls: [{ name: 'complete_step', input: { summary: 'No time given', needsClarification: true, question } }],
    });
    expect(await send('remind me sometime')).toBe(question);
    expect(harness.anthropic.requests).toHaveLength(2);
    expect(await reminderRows()).toEqual([]);
  });

  it('a time already past: the user is asked what they meant and nothing is saved; three model calls', async () => {
    const past = now().minus({ hours: 1 }).startOf('minute');
    const question = `It's already past ${past.toFormat('h:mm a')}. Did you mean tomorrow at ${past.toFormat('h:mm a')}?`;
    harness.anthropic.enqueue(
      plan(`Create a reminder "Call mom" at ${past.toFormat(LOCAL)}`),
      { toolCalls: [{ name: 'create_scheduled_job', input: { text: 'Call mom', at: past.toFormat(LOCAL) } }] },
      (request) => {
        const [result] = toolResults(request);
        expect(result?.isError).toBe(true);
        expect(result?.content).toContain('has already passed');
        expect(result?.content).toContain('Nothing was saved');
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'The time has passed', needsClarification: true, question } }] };
      },
    );
    expect(await send(`remind me to call mom at ${past.toFormat('h:mm a')}`)).toBe(question);
    expect(harness.anthropic.requests).toHaveLength(3);
    expect(await reminderRows()).toEqual([]);
    expect(harness.twilio.messages).toHaveLength(1);
  });

  it('a 10,000-character reminder is refused and the user asked for a shorter one; three model calls', async () => {
    const tomorrow = now().plus({ days: 1 }).set({ hour: 9, minute: 0 });
    const question = 'That reminder is very long. Could you give me a shorter version?';
    harness.anthropic.enqueue(
      plan('Create a very long reminder'),
      { toolCalls: [{ name: 'create_scheduled_job', input: { text: 'y'.repeat(10_000), at: tomorrow.toFormat(LOCAL) } }] },
      (request) => {
        expect(toolResults(request)[0]?.content).toContain('The reminder text is 10000 characters; reminders can be at most 500');
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Too long', needsClarification: true, question } }] };
      },
    );
    expect(await send(`remind me tomorrow at 9: ${'y'.repeat(1_200)}`)).toBe(question);
    expect(harness.anthropic.requests).toHaveLength(3);
    expect(await reminderRows()).toEqual([]);
  });

  it('creates "every weekday at 8": a weekly rule, the job at the next weekday 08:00; two model calls', async () => {
    let first = now().plus({ days: 1 }).set({ hour: 8, minute: 0, second: 0, millisecond: 0 });
    while (first.weekday > 5) first = first.plus({ days: 1 });
    harness.anthropic.enqueue(plan(`Create a reminder "Take vitamins" every weekday at 08:00, starting ${first.toFormat(LOCAL)}`), {
      toolCalls: [
        {
          name: 'create_scheduled_job',
          input: { text: 'Take vitamins', at: first.toFormat(LOCAL), recurrence: { frequency: 'weekly', weekdays: ['MO', 'TU', 'WE', 'TH', 'FR'] } },
        },
        { name: 'complete_step', input: { summary: 'Created', reply: "Done: every weekday at 8 I'll remind you to take your vitamins.", created: [{ description: 'Take vitamins' }] } },
      ],
    });
    expect(await send('remind me every weekday at 8 to take my vitamins')).toBe("Done: every weekday at 8 I'll remind you to take your vitamins.");
    expect(harness.anthropic.requests).toHaveLength(2);
    const [row] = await reminderRows();
    expect(row).toMatchObject({ rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', startLocal: first.toFormat(LOCAL), nextDueAt: first.toJSDate() });
    expect((await occurrenceJobs(harness.database, row!.id)).map((job) => job.startAfter)).toEqual([first.toJSDate()]);
  });
});

describe('a recurring reminder created through the webhook, across a DST change (injected clock)', () => {
  let harness: HeraldHarness;
  const phone = '+14155550399';
  // Noon two days before New York's next clock change: every date stays ahead of the
  // database's own clock, so no job fires by itself; occurrences are fired by hand.
  const change = nextOffsetChange(ZONE, DateTime.now().plus({ days: 3 }));
  const start = change.minus({ days: 2 }).set({ hour: 12, minute: 0, second: 0, millisecond: 0 });
  const clock = new ManualClock(start.toJSDate());

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock });
    await createUser(harness, phone, { timezone: ZONE });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('"every day at 9" fires at 09:00 local on both sides of the change; two model calls', async () => {
    const first = start.plus({ days: 1 }).set({ hour: 9 });
    harness.anthropic.enqueue(plan(`Create a reminder "Take pills" every day at 09:00, starting ${first.toFormat(LOCAL)}`), {
      toolCalls: [
        { name: 'create_scheduled_job', input: { text: 'Take pills', at: first.toFormat(LOCAL), recurrence: { frequency: 'daily' } } },
        { name: 'complete_step', input: { summary: 'Created', reply: "I'll remind you every day at 9.", created: [{ description: 'Take pills' }] } },
      ],
    });
    await harness.inbound({ from: phone, body: 'remind me to take my pills every day at 9' });
    const [reply] = await harness.replies(1);
    expect(reply?.body).toBe("I'll remind you every day at 9.");
    expect(harness.anthropic.requests).toHaveLength(2);

    const reminder = await harness.database.prisma.reminder.findFirstOrThrow();
    const offsets: string[] = [];
    let due = reminder.nextDueAt!;
    for (let occurrence = 0; occurrence < 3; occurrence += 1) {
      const jobs = await occurrenceJobs(harness.database, reminder.id);
      expect(jobs[jobs.length - 1]?.startAfter).toEqual(due);
      const local = DateTime.fromJSDate(due, { zone: ZONE });
      expect(local.toFormat('HH:mm')).toBe('09:00');
      offsets.push(local.toFormat('ZZ'));
      clock.set(due.getTime() + 500);
      expect(await harness.herald.reminderDelivery.deliver({ reminderId: reminder.id, dueAt: due.toISOString() })).toMatchObject({ status: 'sent' });
      due = (await harness.database.prisma.reminder.findUniqueOrThrow({ where: { id: reminder.id } })).nextDueAt!;
    }
    // Before the change, on the day of it, after it: the same 09:00, with the offset moving.
    expect(offsets[0]).toBe(DateTime.fromJSDate(start.toJSDate(), { zone: ZONE }).toFormat('ZZ'));
    expect(offsets[2]).toBe(change.toFormat('ZZ'));
    expect(offsets[0]).not.toBe(offsets[2]);
    const messages = await harness.replies(4);
    expect(messages.slice(1).map((message) => message.body)).toEqual(['⏰ Reminder: Take pills', '⏰ Reminder: Take pills', '⏰ Reminder: Take pills']);
  });
});

/** The first hour after `from` at which `zone`'s UTC offset differs from the one at `from`. */
function nextOffsetChange(zone: string, from: DateTime): DateTime {
  let cursor = from.setZone(zone).startOf('hour');
  const offset = cursor.offset;
  for (let hours = 0; hours < 24 * 400; hours += 1) {
    cursor = cursor.plus({ hours: 1 });
    if (cursor.offset !== offset) return cursor;
  }
  throw new Error(`${zone} has no clock change within 400 days`);
}
