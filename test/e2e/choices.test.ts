import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatLocal } from '../../src/reminders/reminder-schedule.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness, messageSid } from '../helpers/herald-harness.js';
import { textingUser } from '../helpers/texting-user.js';
import { createUser } from '../reminders/support.js';

/**
 * "Which one?" (issue 19, item 3) through the webhook: when a lookup matches several
 * reminders, Herald numbers them in its own question and keeps them; the answer ("2",
 * "the second", "both", "dad", a Hebrew ordinal) runs the call on that one with no model
 * call. NO drops it; a number outside the list is asked about again, once; after the
 * lifetime, or when the next text is something else, it is an ordinary message.
 */

const ZONE = 'America/New_York';

describe('which one?', () => {
  const clock = new ManualClock('2030-03-04T13:00:00Z');
  const user = textingUser({ clock, startAt: '2030-03-04T13:00:00Z', firstPhone: 4300, timezone: ZONE });
  let harness: HeraldHarness;
  let phone: string;
  let userId: string;
  let mom: string;
  let dad: string;

  beforeEach(async () => {
    ({ harness, phone, userId } = user);
    const thursday = DateTime.fromISO('2030-03-07T10:00', { zone: ZONE });
    for (const [text, at] of [
      ['Call mom', thursday],
      ['Call dad', thursday.plus({ minutes: 5 })],
    ] as const) {
      const created = await harness.herald.reminders.create(userId, ZONE, { text, at: at.toFormat("yyyy-MM-dd'T'HH:mm") });
      if (!created.ok) throw new Error(created.error);
    }
    mom = `Call mom, ${formatLocal(thursday.toJSDate(), ZONE)}`;
    dad = `Call dad, ${formatLocal(thursday.plus({ minutes: 5 }).toJSDate(), ZONE)}`;
  });

  const prisma = () => harness.database.prisma;
  const statuses = async () => Object.fromEntries((await prisma().reminder.findMany({ where: { userId } })).map((reminder) => [reminder.text, reminder.status]));
  const question = () => `Which one?\n1) ${mom}\n2) ${dad}\nReply with its number, or NO to leave it.`;

  const send = (body: string, from = phone) => user.send(body, { from });

  /** The model as it acts on "cancel the call reminder": plan, one lookup that finds two, a clarifying report. */
  function ambiguousCancel(match = 'call'): ScriptedAnthropicResponse[] {
    return [
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'Cancel a reminder', goal: 'Cancel the call reminder', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: `Cancel the "${match}" reminder` }] } }] },
      { toolCalls: [{ name: 'delete_scheduled_job', input: { match } }] },
      { toolCalls: [{ name: 'complete_step', input: { summary: `Several reminders match "${match}"`, needsClarification: true, question: 'Which one do you mean?' } }] },
    ];
  }

  async function askWhich(from = phone): Promise<void> {
    harness.anthropic.enqueue(...ambiguousCancel());
    expect(await send('cancel the call reminder', from)).toBe(question());
    expect(harness.anthropic.requests).toHaveLength(3);
  }

  it.each(['2', '#2', 'the second', 'second one', '2nd', 'dad', 'השני', 'השנייה'])('"%s" picks the second, with no model call', async (answer) => {
    await askWhich();
    const [choice] = await prisma().pendingQuestion.findMany({ where: { userId } });
    expect(choice).toMatchObject({ kind: 'choice', status: 'pending', shortId: expect.stringMatching(/^[a-z2-9]{8}$/) });
    // Herald's words follow the answer's language when it tells one (Hebrew script does).
    expect(await send(answer)).toBe(/[\u0590-\u05FF]/.test(answer) ? `בוצע: ${dad}.` : `Done: ${dad}.`);
    expect(harness.anthropic.requests).toHaveLength(3);
    expect(await statuses()).toEqual({ 'Call mom': 'active', 'Call dad': 'cancelled' });
    expect(await prisma().pendingQuestion.findUniqueOrThrow({ where: { id: choice!.id } })).toMatchObject({ status: 'done', answer: [1] });
  });

  it.each(['both', 'all', 'שניהם'])('"%s" runs it on every candidate', async (answer) => {
    await askWhich();
    const done = /[\u0590-\u05FF]/.test(answer) ? 'בוצע' : 'Done';
    expect(await send(answer)).toBe(`${done}: ${mom}.\n${done}: ${dad}.`);
    expect(await statuses()).toEqual({ 'Call mom': 'cancelled', 'Call dad': 'cancelled' });
  });

  it.each([
    ['none', "OK, I'll leave it."],
    ['no', "OK, I'll leave it."],
    ['לא', 'בסדר, אשאיר את זה.'],
  ])('"%s" drops it', async (answer, reply) => {
    await askWhich();
    expect(await send(answer)).toBe(reply);
    expect(await statuses()).toEqual({ 'Call mom': 'active', 'Call dad': 'active' });
    expect(await prisma().pendingQuestion.findFirstOrThrow({ where: { userId } })).toMatchObject({ status: 'cancelled' });
  });

  it('"3" of two asks again, once; a second "3" is an ordinary message', async () => {
    await askWhich();
    expect(await send('3')).toBe('Please reply with a number from 1 to 2, or NO to leave it.');
    expect(harness.anthropic.requests).toHaveLength(3);
    harness.anthropic.enqueue({ text: 'I only listed two.' });
    expect(await send('3')).toBe('I only listed two.');
    expect(harness.anthropic.requests).toHaveLength(4);
    expect(await statuses()).toEqual({ 'Call mom': 'active', 'Call dad': 'active' });
  });

  it('after the lifetime, "2" is an ordinary message', async () => {
    await askWhich();
    clock.advance(harness.config.limits.confirmationTtlMs + 1);
    harness.anthropic.enqueue({ text: '2 what?' });
    expect(await send('2')).toBe('2 what?');
    expect(await statuses()).toEqual({ 'Call mom': 'active', 'Call dad': 'active' });
    expect(await prisma().pendingQuestion.findFirstOrThrow({ where: { userId } })).toMatchObject({ status: 'expired' });
  });

  it('a text that is clearly something else drops the choice; a later "2" is ordinary', async () => {
    await askWhich();
    harness.anthropic.enqueue({ text: 'Sunny all day.' }, { text: '2 what?' });
    expect(await send("what's the weather like?")).toBe('Sunny all day.');
    expect(await send('2')).toBe('2 what?');
    expect(await statuses()).toEqual({ 'Call mom': 'active', 'Call dad': 'active' });
  });

  it('a choice asked on WhatsApp is answered on SMS by the same person', async () => {
    const whatsapp = `whatsapp:${phone}`;
    await askWhich(whatsapp);
    expect(await prisma().pendingQuestion.findFirstOrThrow({ where: { userId } })).toMatchObject({ channel: 'whatsapp' });
    expect(await send('1', phone)).toBe(`Done: ${mom}.`);
    expect(await statuses()).toEqual({ 'Call mom': 'cancelled', 'Call dad': 'active' });
  });

  it('the candidate was deleted on another device before the answer: says so, and deletes nothing else', async () => {
    await askWhich();
    await prisma().reminder.updateMany({ where: { userId, text: 'Call dad' }, data: { status: 'cancelled', nextDueAt: null } });
    expect(await send('2')).toBe(`${dad} is no longer there (it was changed or deleted elsewhere), so I did nothing.`);
    expect(await statuses()).toEqual({ 'Call mom': 'active', 'Call dad': 'cancelled' });
    expect(harness.anthropic.requests).toHaveLength(3);
  });

  it('one loose match asks "Did you mean …?", and YES answers it', async () => {
    harness.anthropic.enqueue(...ambiguousCancel('moom'));
    // "moom" is one edit from "mom": nothing matched exactly.
    expect(await send('cancel the moom reminder')).toBe(`Did you mean ${mom}? Reply YES or NO.`);
    expect(await send('yes')).toBe(`Done: ${mom}.`);
    expect(await statuses()).toEqual({ 'Call mom': 'cancelled', 'Call dad': 'active' });
    expect(harness.anthropic.requests).toHaveLength(3);
  });

  it('two answers at once (a double tap) run the call once', async () => {
    await askWhich();
    const before = harness.twilio.messages.filter((message) => message.to === phone).length;
    await Promise.all([harness.inbound({ from: phone, body: '2', sid: messageSid() }), harness.inbound({ from: phone, body: '2', sid: messageSid() })]);
    await harness.repliesTo(phone, before + 1);
    // Both taps answered and everything to this phone sent: nothing more will come.
    await harness.idle(phone);
    const replies = harness.twilio.messages.filter((message) => message.to === phone).slice(before).map((message) => message.body);
    expect(replies.filter((body) => body === `Done: ${dad}.`)).toHaveLength(1);
    expect(await statuses()).toEqual({ 'Call mom': 'active', 'Call dad': 'cancelled' });
  });
});

describe('which one? and a crash', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock('2030-03-04T13:00:00Z');
  const phone = '+14155554399';

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('a crash between the choice and the action: the answer, run again, does it exactly once', async () => {
    const userId = (await createUser(harness, phone, { timezone: ZONE })).id;
    for (const text of ['Call mom', 'Call dad']) {
      const created = await harness.herald.reminders.create(userId, ZONE, { text, at: '2030-03-07T10:00' });
      if (!created.ok) throw new Error(created.error);
    }
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'Cancel', goal: 'Cancel the call reminder', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: 'Cancel the "call" reminder' }] } }] },
      { toolCalls: [{ name: 'delete_scheduled_job', input: { match: 'call' } }] },
      { toolCalls: [{ name: 'complete_step', input: { summary: 'Two match', needsClarification: true, question: 'Which one?' } }] },
    );
    expect((await harness.inbound({ from: phone, body: 'cancel the call reminder' })).statusCode).toBe(200);
    await harness.repliesTo(phone, 1);
    const [choice] = await harness.herald.questions.latest(userId);

    // The answer "2" was stored, and its turn claimed the choice, then the process died: no
    // job left, the message pending, the choice executing, nothing cancelled yet.
    const answer = await harness.database.prisma.message.create({
      data: { userId, role: 'user', content: '2', channel: 'sms', tokenCount: 1, inboundStatus: 'pending', createdAt: clock.now() },
    });
    expect(await harness.herald.questions.claim(choice!.id, [answer.id], [1])).toBe('claimed');

    // Recovery finds the pending message; its turn resumes the claim and acts, once.
    await harness.herald.recovery.recover();
    const replies = await harness.repliesTo(phone, 2);
    expect(replies[1]!.body).toMatch(/^Done: Call dad, /);
    const reminders = await harness.database.prisma.reminder.findMany({ where: { userId }, orderBy: { text: 'asc' } });
    expect(reminders.map((reminder) => [reminder.text, reminder.status])).toEqual([
      ['Call dad', 'cancelled'],
      ['Call mom', 'active'],
    ]);
    expect(await harness.database.prisma.pendingQuestion.findUniqueOrThrow({ where: { id: choice!.id } })).toMatchObject({ status: 'done', outcome: [{ label: expect.stringMatching(/^Call dad/), ok: true }] });
    expect(await harness.database.prisma.message.findUniqueOrThrow({ where: { id: answer.id } })).toMatchObject({ inboundStatus: 'handled' });
    expect(harness.anthropic.requests).toHaveLength(3);
  });
});
