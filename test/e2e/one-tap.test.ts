import { DateTime } from 'luxon';
import { beforeEach, describe, expect, it } from 'vitest';
import { formatLocal } from '../../src/reminders/reminder-schedule.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import type { SentTwilioMessage } from '../fakes/fake-twilio-server.js';
import type { HeraldHarness } from '../helpers/herald-harness.js';
import { messageSid } from '../helpers/herald-harness.js';
import { textingUser } from '../helpers/texting-user.js';
import { createUser } from '../reminders/support.js';

/**
 * One-tap answers (issue 24, item 2) through the webhook, the real SDK against the fake
 * Twilio's Content API: where the channel has buttons (WhatsApp inside the 24-hour window,
 * RCS) a confirmation goes out with YES/NO quick replies and a choice with a list picker,
 * each shape made once and sent by SID with variables; a tap (ButtonPayload) answers the
 * question with no model call, exactly as typed YES or "2"; SMS keeps the text form.
 */
const ZONE = 'America/New_York';
const SERVICE = 'MG' + 'c'.repeat(32);
const QUESTION = 'Your packing list will go once you confirm.\n\nDelete the "packing" list and its 2 items? Reply YES or NO.';

describe('one-tap answers', () => {
  const clock = new ManualClock('2030-03-04T13:00:00Z');
  const user = textingUser({ clock, startAt: '2030-03-04T13:00:00Z', firstPhone: 5600, timezone: ZONE, harness: { env: { TWILIO_MESSAGING_SERVICE_SID: SERVICE } } });
  let harness: HeraldHarness;
  let phone: string;
  let userId: string;

  beforeEach(async () => {
    ({ harness, phone, userId } = user);
    await harness.herald.lists.addItems(userId, 'packing', ['passport', 'charger']);
  });

  const deletePacking: ScriptedAnthropicResponse[] = [
    { toolCalls: [{ name: 'create_plan', input: { analysis: 'Delete a list', goal: 'Delete the packing list', steps: [{ id: 'step_1', agent: 'list-agent', task: 'Delete the packing list' }] } }] },
    { toolCalls: [{ name: 'delete_list', input: { name: 'packing' } }, { name: 'complete_step', input: { summary: 'Awaits the YES', reply: 'Your packing list will go once you confirm.' } }] },
  ];
  const prisma = () => harness.database.prisma;
  const listNames = async () => (await prisma().list.findMany({ where: { userId } })).map((list) => list.name);
  const whatsapp = () => `whatsapp:${phone}`;

  /** Posts a message (a tap when `payload` is set) and returns the next message Herald sends to `to`. */
  async function post(from: string, body: string, options: { payload?: string; to?: string } = {}): Promise<SentTwilioMessage> {
    const to = options.to ?? from;
    const before = harness.twilio.messages.filter((message) => message.to === to).length;
    const extra: Record<string, string> = options.payload ? { ButtonPayload: options.payload, ButtonText: body } : {};
    expect((await harness.inbound({ from, body, extra, ...(from.startsWith('rcs:') ? { to: 'rcs:herald_agent' } : {}) })).statusCode).toBe(200);
    return (await harness.repliesTo(to, before + 1))[before]!;
  }
  const variables = (message: SentTwilioMessage) => JSON.parse(message.contentVariables ?? '{}') as Record<string, string>;

  it('WhatsApp: a confirmation goes with YES/NO quick replies; a tap on YES runs it with no model call', async () => {
    harness.anthropic.enqueue(...deletePacking);
    const asked = await post(whatsapp(), 'delete my packing list');
    const [question] = await prisma().pendingQuestion.findMany({ where: { userId } });
    expect(asked.contentSid).toMatch(/^HX[0-9a-f]{32}$/);
    expect(asked.body).toBe(QUESTION);
    expect(variables(asked)).toEqual({ '1': QUESTION, '2': 'Yes', '3': `herald:${question!.shortId}:yes`, '4': 'No', '5': `herald:${question!.shortId}:no` });
    // The content it went as (made by this test or an earlier one: the shape is cached).
    expect(Object.keys(harness.twilio.content.contents.get(asked.contentSid!)!.types)).toEqual(['twilio/quick-reply', 'twilio/text']);

    const done = await post(whatsapp(), 'Yes', { payload: `herald:${question!.shortId}:yes` });
    expect(done).toMatchObject({ body: 'Deleted the "packing" list.', contentSid: null });
    expect(await listNames()).toEqual([]);
    expect(harness.anthropic.requests).toHaveLength(2);
  });

  it('makes each shape once and reuses its SID (the cache survives in Postgres)', async () => {
    harness.anthropic.enqueue(...deletePacking, ...deletePacking);
    const first = await post(whatsapp(), 'delete my packing list');
    const second = await post(whatsapp(), 'delete my packing list please');
    expect(second.contentSid).toBe(first.contentSid);
    const stored = await prisma().contentShape.findUniqueOrThrow({ where: { shape: 'herald-confirm-v1' } });
    expect(stored.contentSid).toBe(first.contentSid);
    // This fake forgets its requests between tests; what counts is no create for the second question.
    expect(harness.twilio.content.createRequests.length).toBeLessThanOrEqual(1);
  });

  it('RCS: a choice goes as a list picker numbered as the text form; a tap on item 2 picks the second', async () => {
    const thursday = DateTime.fromISO('2030-03-07T10:00', { zone: ZONE });
    for (const [text, at] of [['Call mom', thursday], ['Call dad', thursday.plus({ minutes: 5 })]] as const) {
      const created = await harness.herald.reminders.create(userId, ZONE, { text, at: at.toFormat("yyyy-MM-dd'T'HH:mm") });
      if (!created.ok) throw new Error(created.error);
    }
    const dad = `Call dad, ${formatLocal(thursday.plus({ minutes: 5 }).toJSDate(), ZONE)}`;
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'Cancel a reminder', goal: 'Cancel the call reminder', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: 'Cancel the "call" reminder' }] } }] },
      { toolCalls: [{ name: 'delete_scheduled_job', input: { match: 'call' } }] },
      { toolCalls: [{ name: 'complete_step', input: { summary: 'Several reminders match', needsClarification: true, question: 'Which one do you mean?' } }] },
    );
    const asked = await post(`rcs:${phone}`, 'cancel the call reminder', { to: phone });
    expect(asked).toMatchObject({ messagingServiceSid: SERVICE, contentSid: expect.stringMatching(/^HX/) });
    const [choice] = await prisma().pendingQuestion.findMany({ where: { userId } });
    const vars = variables(asked);
    expect(vars['2']).toBe('Choose');
    expect(vars['3']).toMatch(/^1\) Call mom/);
    expect(vars['6']).toMatch(/^2\) Call dad/);
    expect(vars['8']).toBe(`herald:${choice!.shortId}:2`);
    const picked = await post(`rcs:${phone}`, '2) Call dad', { payload: `herald:${choice!.shortId}:2`, to: phone });
    expect(picked.body).toBe(`Done: ${dad}.`);
    expect(harness.anthropic.requests).toHaveLength(3);
  });

  it('a content Twilio no longer has: the reply goes as text, and the next question makes the shape again', async () => {
    harness.anthropic.enqueue(...deletePacking);
    const first = await post(whatsapp(), 'delete my packing list');
    expect(first.contentSid).toMatch(/^HX/);
    expect((await post(whatsapp(), 'no')).body).toBe("OK, I won't do that.");
    harness.twilio.content.contents.delete(first.contentSid!); // deleted in the console, say
    harness.anthropic.enqueue(...deletePacking);
    const second = await post(whatsapp(), 'delete my packing list');
    expect(second).toMatchObject({ body: QUESTION, contentSid: null });
    expect(harness.twilio.requests.some((request) => request.params.ContentSid === first.contentSid && request.status === 400)).toBe(true);
    expect((await post(whatsapp(), 'no')).body).toBe("OK, I won't do that.");
    harness.anthropic.enqueue(...deletePacking);
    const third = await post(whatsapp(), 'delete my packing list');
    expect(third.contentSid).toMatch(/^HX/);
    expect(third.contentSid).not.toBe(first.contentSid);
  });

  it('SMS keeps the text form', async () => {
    harness.anthropic.enqueue(...deletePacking);
    const asked = await post(phone, 'delete my packing list');
    expect(asked).toMatchObject({ body: QUESTION, contentSid: null });
  });

  it('a tap whose payload belongs to another user\'s question is read as text, not as a tap', async () => {
    const other = await createUser(harness, `+1415555${String(9900 + Math.floor(Math.random() * 90))}`);
    await harness.herald.lists.addItems(other.id, 'packing', ['socks']);
    harness.anthropic.enqueue(...deletePacking);
    await post(`whatsapp:${other.phone}`, 'delete my packing list');
    const [theirs] = await prisma().pendingQuestion.findMany({ where: { userId: other.id } });
    harness.anthropic.enqueue({ text: 'Yes to what?' });
    const reply = await post(whatsapp(), 'Yes', { payload: `herald:${theirs!.shortId}:yes` });
    expect(reply.body).toBe('Yes to what?');
    expect(await prisma().pendingQuestion.findUniqueOrThrow({ where: { id: theirs!.id } })).toMatchObject({ status: 'pending' });
    expect(await prisma().list.count({ where: { userId: other.id } })).toBe(1);
  });

  it('a tap on a question that expired says so and does nothing', async () => {
    harness.anthropic.enqueue(...deletePacking);
    await post(whatsapp(), 'delete my packing list');
    const [question] = await prisma().pendingQuestion.findMany({ where: { userId } });
    clock.advance(harness.config.limits.confirmationTtlMs + 1_000);
    const reply = await post(whatsapp(), 'Yes', { payload: `herald:${question!.shortId}:yes` });
    expect(reply.body).toBe('That question waited more than 5 minutes, so I did nothing. Ask again if you still want it.');
    expect(await listNames()).toEqual(['packing']);
  });

  it('a tap on a question already answered says so', async () => {
    harness.anthropic.enqueue(...deletePacking);
    await post(whatsapp(), 'delete my packing list');
    const [question] = await prisma().pendingQuestion.findMany({ where: { userId } });
    expect((await post(whatsapp(), 'no')).body).toBe("OK, I won't do that.");
    const reply = await post(whatsapp(), 'Yes', { payload: `herald:${question!.shortId}:yes` });
    expect(reply.body).toBe('That question is no longer open, so I did nothing.');
    expect(await listNames()).toEqual(['packing']);
  });

  it('ten taps in a second on one button give one answer', async () => {
    harness.anthropic.enqueue(...deletePacking);
    await post(whatsapp(), 'delete my packing list');
    const [question] = await prisma().pendingQuestion.findMany({ where: { userId } });
    const before = harness.twilio.messages.length;
    const payload = `herald:${question!.shortId}:yes`;
    const responses = await Promise.all(Array.from({ length: 10 }, () => harness.inbound({ from: whatsapp(), body: 'Yes', extra: { ButtonPayload: payload, ButtonText: 'Yes' }, sid: messageSid() })));
    expect(responses.every((response) => response.statusCode === 200)).toBe(true);
    await harness.idle(phone);
    const sent = harness.twilio.messages.slice(before);
    expect(sent.map((message) => message.body)).toEqual(['Deleted the "packing" list.']);
    expect(await prisma().message.count({ where: { userId, role: 'user', buttonPayload: payload } })).toBe(10);
    expect(harness.anthropic.requests).toHaveLength(2);
  });
});

describe('one-tap answers when the Content API fails', () => {
  // A Herald of its own: no shape made yet, in memory or in Postgres.
  const clock = new ManualClock('2030-03-04T13:00:00Z');
  const user = textingUser({ clock, startAt: '2030-03-04T13:00:00Z', firstPhone: 5700, timezone: ZONE });

  it('a Content API that answers 500 sends the text form in the same turn; the next question makes the shape', async () => {
    const { harness, phone, userId } = user;
    await harness.herald.lists.addItems(userId, 'packing', ['passport', 'charger']);
    const deletePacking: ScriptedAnthropicResponse[] = [
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'Delete a list', goal: 'Delete the packing list', steps: [{ id: 'step_1', agent: 'list-agent', task: 'Delete the packing list' }] } }] },
      { toolCalls: [{ name: 'delete_list', input: { name: 'packing' } }, { name: 'complete_step', input: { summary: 'Awaits the YES', reply: 'Your packing list will go once you confirm.' } }] },
    ];
    harness.twilio.content.failNext({ status: 500 });
    harness.anthropic.enqueue(...deletePacking);
    const from = `whatsapp:${phone}`;
    expect(await user.send('delete my packing list', { from })).toBe(QUESTION);
    expect(harness.twilio.messages.at(-1)).toMatchObject({ contentSid: null });
    expect(harness.logs.lines.some((line) => line.msg === 'Content API failed; the question goes out as text')).toBe(true);
    expect(await harness.database.prisma.contentShape.count()).toBe(0);
    // Typed YES still answers it.
    expect(await user.send('yes', { from })).toBe('Deleted the "packing" list.');
    // The failure was not remembered: the next question makes the shape.
    await harness.herald.lists.addItems(userId, 'packing', ['passport', 'charger']);
    harness.anthropic.enqueue(...deletePacking);
    expect(await user.send('delete my packing list', { from })).toBe(QUESTION);
    expect(harness.twilio.messages.at(-1)?.contentSid).toMatch(/^HX/);
  });
});
