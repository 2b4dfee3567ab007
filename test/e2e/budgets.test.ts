import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { budgetReplies } from '../../src/budgets/budget-replies.js';
import { dataReplies } from '../../src/data-rights/data-replies.js';
import { ManualClock } from '../../src/shared/clock.js';
import { keywordReply } from '../../src/turns/keyword-replies.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { waitUntil } from '../db/wait-until.js';

// claude-haiku-5-5 (the light planner a greeting goes to) costs $0.10 per million input
// tokens: a turn reported as 50,000 input tokens costs $0.005.
const EXPENSIVE = { input_tokens: 50_000, output_tokens: 10 };
const USER_NOTICE = budgetReplies(null).user;
const DEPLOYMENT_NOTICE = budgetReplies(null).deployment;

describe('per-user daily budget', () => {
  let harness: HeraldHarness;
  // 10:00 in New York (the test DEFAULT_TIMEZONE; +1 212 numbers get it too).
  const clock = new ManualClock('2026-11-23T15:00:00Z');

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, env: { USER_DAILY_BUDGET_USD: '0.004' } });
  });
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('lets the turn that crosses the budget finish; the next gets one notice, later ones nothing; keywords and reminders go on; midnight resets it', async () => {
    clock.set('2026-11-23T15:00:00Z');
    const phone = '+12125550301';
    harness.anthropic.enqueue({ text: 'Hello! Big answer.', usage: EXPENSIVE });
    expect(await harness.exchange(phone, 'hi')).toBe('Hello! Big answer.');
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });
    const [turn] = await harness.database.prisma.turn.findMany({ where: { userId: user.id } });
    expect(Number(turn!.costUsd)).toBeGreaterThan(0.004);

    // Over budget now: one notice, no model call.
    expect(await harness.exchange(phone, 'and another thing')).toBe(USER_NOTICE);
    // Later the same day: kept, marked ignored, no reply.
    await harness.inbound({ from: phone, body: 'hello?' });
    // HELP is a turn of its own, answered after 'hello?' (one user's turns run in arrival order;
    // the manual clock moves on so the two arrive at different times).
    clock.advance(1000);
    expect(await harness.exchange(phone, 'HELP')).toBe(keywordReply('help', null));
    expect(harness.twilio.messages.map((message) => message.body)).toEqual(['Hello! Big answer.', USER_NOTICE, keywordReply('help', null)]);
    const ignored = await harness.database.prisma.message.findFirstOrThrow({ where: { userId: user.id, content: 'hello?' } });
    expect(ignored.inboundStatus).toBe('ignored');
    expect(harness.anthropic.requests).toHaveLength(1);

    // A reminder still arrives.
    const reminder = await harness.herald.reminders.create(user.id, user.timezone, { text: 'Take the pills', at: '2026-11-23T10:30' });
    if (!reminder.ok) throw new Error(reminder.error);
    clock.set('2026-11-23T15:30:00Z');
    await harness.herald.reminderDelivery.deliver({ reminderId: reminder.value.id, dueAt: '2026-11-23T15:30:00.000Z' });
    const [, , , delivered] = await harness.repliesTo(phone, 4);
    expect(delivered?.body).toBe('⏰ Reminder: Take the pills');

    // 23:59 in New York: still today. 00:01: a new day and a new budget.
    clock.set('2026-11-24T04:59:00Z');
    await harness.inbound({ from: phone, body: 'still there?' });
    // No reply comes for it: wait for its turn to mark it before midnight passes.
    await waitUntil(
      async () => (await harness.database.prisma.message.findFirst({ where: { userId: user.id, content: 'still there?' } }))?.inboundStatus === 'ignored',
      'the late message to be marked ignored',
    );
    clock.set('2026-11-24T05:01:00Z');
    harness.anthropic.enqueue({ text: 'Good morning!' });
    expect(await harness.exchange(phone, 'good morning')).toBe('Good morning!');
    expect(harness.anthropic.requests.map((request) => request.lastUserText())).toEqual(['hi', 'good morning']);
  });

  it('finishes a planned turn whose first model call crosses the budget: the step still runs and its reply is sent', async () => {
    clock.set('2026-11-25T15:00:00Z');
    const phone = '+12125550321';
    harness.anthropic.enqueue(
      {
        toolCalls: [{ name: 'create_plan', input: { analysis: 'A fact to save', goal: 'Save a fact', steps: [{ id: 'step_1', agent: 'memory-agent', task: 'Save: the locker code is 4417' }] } }],
        usage: EXPENSIVE,
      },
      {
        toolCalls: [
          { name: 'remember_fact', input: { category: 'personal', subject: 'locker', content: 'Locker code is 4417' } },
          { name: 'complete_step', input: { summary: 'Saved 1 fact', reply: "Got it: locker code 4417.", created: [{ description: 'Locker code is 4417' }] } },
        ],
      },
    );
    expect(await harness.exchange(phone, 'remember that my locker code is 4417')).toBe('Got it: locker code 4417.');
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });
    const [turn] = await harness.database.prisma.turn.findMany({ where: { userId: user.id } });
    expect(turn).toMatchObject({ status: 'succeeded', modelCalls: 2 });
    expect(Number(turn!.costUsd)).toBeGreaterThan(0.004);
    expect(await harness.database.prisma.fact.count({ where: { userId: user.id } })).toBe(1);
    expect(await harness.exchange(phone, 'thanks!')).toBe(USER_NOTICE);
    expect(harness.anthropic.requests).toHaveLength(2);
  });

  it('counts each user separately', async () => {
    clock.set('2026-11-26T15:00:00Z');
    harness.anthropic.enqueue({ text: 'Hi A.', usage: EXPENSIVE }, { text: 'Hi B.' });
    expect(await harness.exchange('+12125550311', 'hi')).toBe('Hi A.');
    expect(await harness.exchange('+12125550312', 'hi')).toBe('Hi B.');
    expect(await harness.exchange('+12125550311', 'more')).toBe(USER_NOTICE);
  });
});

describe('deployment daily budget', () => {
  let harness: HeraldHarness;
  const owner = '+12125550399';
  const clock = new ManualClock('2026-11-23T15:00:00Z');

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, env: { DAILY_BUDGET_USD: '0.004', OWNER_PHONES: owner } });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('stops model calls for everyone once spent, tells each user once, and tells the owners once a day', async () => {
    harness.anthropic.enqueue({ text: 'Hello A.', usage: EXPENSIVE });
    expect(await harness.exchange('+12125550321', 'hi')).toBe('Hello A.');

    // Erasing the spender's data does not give the deployment its money back.
    await harness.exchange('+12125550321', 'DELETE MY DATA');
    expect(await harness.exchange('+12125550321', 'YES')).toBe(dataReplies(null).erased);

    expect(await harness.exchange('+12125550322', 'hi')).toBe(DEPLOYMENT_NOTICE);
    const [alert] = await harness.repliesTo(owner, 1);
    expect(alert?.body).toBe(budgetReplies(null).owners('$0.004', 'America/New_York'));
    expect(await harness.exchange('+12125550323', 'hello')).toBe(DEPLOYMENT_NOTICE);
    // The owner, too, is out of model calls (and is not alerted twice).
    expect(await harness.exchange(owner, 'what happened?')).toBe(DEPLOYMENT_NOTICE);
    expect(harness.twilio.messages.filter((message) => message.to === owner)).toHaveLength(2);
    expect(harness.anthropic.requests).toHaveLength(1);
    expect(await harness.database.prisma.systemNotice.count()).toBe(1);

    // Next day in DEFAULT_TIMEZONE: answers again.
    clock.set('2026-11-24T05:30:00Z');
    harness.anthropic.enqueue({ text: 'Back.' });
    expect(await harness.exchange('+12125550322', 'hi again')).toBe('Back.');
  });
});
