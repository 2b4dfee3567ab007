import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness, messageSid } from '../helpers/herald-harness.js';
import { createUser } from '../reminders/support.js';

/**
 * Confirmations (docs/ARCHITECTURE.md "The orchestrator", step 6) end to end: a destructive tool (deleting a list that
 * still has items) does not act; the reply asks, in Herald's own words, and the next
 * message settles it without any model call: YES runs the held call exactly once, NO
 * cancels it, anything else cancels it and is answered normally, and a YES after the
 * lifetime is told it came too late.
 */

const QUESTION = 'Delete the "packing" list and its 2 items? Reply YES or NO.';

function deletePackingTurns(): ScriptedAnthropicResponse[] {
  return [
    { toolCalls: [{ name: 'create_plan', input: { analysis: 'Delete a list', goal: 'Delete the packing list', steps: [{ id: 'step_1', agent: 'list-agent', task: 'Delete the packing list' }] } }] },
    {
      toolCalls: [
        { name: 'delete_list', input: { name: 'packing' } },
        { name: 'complete_step', input: { summary: 'Deleting the packing list awaits the user\'s confirmation', reply: 'Your packing list will go once you confirm.' } },
      ],
    },
  ];
}

describe('confirmations through the webhook', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock('2026-11-23T12:00:00Z');
  let counter = 0;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1415555${String(3600 + counter)}`;
    userId = (await createUser(harness, phone)).id;
    await harness.herald.lists.addItems(userId, 'packing', ['passport', 'charger']);
  });
  afterAll(async () => {
    await harness.close();
  });

  async function send(body: string): Promise<string> {
    const before = harness.twilio.messages.filter((message) => message.to === phone).length;
    expect((await harness.inbound({ from: phone, body })).statusCode).toBe(200);
    const replies = await harness.repliesTo(phone, before + 1);
    return replies[before]!.body ?? '';
  }
  const listNames = async () => (await harness.database.prisma.list.findMany({ where: { userId } })).map((list) => list.name);
  const confirmations = () => harness.database.prisma.pendingQuestion.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } });

  it('asks before deleting a list with items; YES deletes it without a model call', async () => {
    harness.anthropic.enqueue(...deletePackingTurns());
    expect(await send('delete my packing list')).toBe(`Your packing list will go once you confirm.\n\n${QUESTION}`);
    expect(await listNames()).toEqual(['packing']);
    const [pending] = await confirmations();
    expect(pending).toMatchObject({ status: 'pending', question: 'Delete the "packing" list and its 2 items?', payload: { actions: [{ agent: 'list-agent', tool: 'delete_list', input: { name: 'packing' } }] } });
    expect(pending!.expiresAt.getTime() - clock.now().getTime()).toBe(harness.config.limits.confirmationTtlMs);

    expect(await send('YES')).toBe('Deleted the "packing" list.');
    expect(harness.anthropic.requests).toHaveLength(2); // the YES cost no model call
    expect(await listNames()).toEqual([]);
    expect(await confirmations()).toMatchObject([{ status: 'done', outcome: [{ tool: 'delete_list', ok: true }] }]);
    const turn = await harness.database.prisma.turn.findFirstOrThrow({ where: { userId }, orderBy: { startedAt: 'desc' } });
    expect(turn).toMatchObject({ status: 'succeeded', modelCalls: 0 });
  });

  // Not "cancel" on SMS: that is a carrier opt-out word (it unsubscribes, as carriers require).
  // Herald's own words follow the language the answer is written in.
  it.each([
    ['no', "OK, I won't do that."],
    ['No.', "OK, I won't do that."],
    ['nope', "OK, I won't do that."],
    ['לא', 'בסדר, לא אעשה את זה.'],
  ])('"%s" cancels, without a model call', async (answer, reply) => {
    harness.anthropic.enqueue(...deletePackingTurns());
    await send('delete my packing list');
    expect(await send(answer)).toBe(reply);
    expect(harness.anthropic.requests).toHaveLength(2);
    expect(await listNames()).toEqual(['packing']);
    expect(await confirmations()).toMatchObject([{ status: 'cancelled' }]);
  });

  it('anything else cancels it and is answered normally; a YES after that confirms nothing', async () => {
    harness.anthropic.enqueue(...deletePackingTurns(), { text: 'Sunny all day.' }, { text: 'Yes to what? Nothing is waiting for your OK.' });
    await send('delete my packing list');
    expect(await send("what's the weather like?")).toBe('Sunny all day.');
    expect(await confirmations()).toMatchObject([{ status: 'cancelled' }]);
    expect(await send('yes')).toBe('Yes to what? Nothing is waiting for your OK.');
    expect(await listNames()).toEqual(['packing']);
  });

  it.each(['y', 'Yes!', 'ok', 'CONFIRM', 'כן', 'yes 👍'])('"%s" is a YES', async (answer) => {
    harness.anthropic.enqueue(...deletePackingTurns());
    await send('delete my packing list');
    expect(await send(answer)).toBe('Deleted the "packing" list.');
    expect(await listNames()).toEqual([]);
  });

  it('answers a Hebrew speaker in Hebrew', async () => {
    await harness.database.prisma.user.update({ where: { id: userId }, data: { language: 'he' } });
    harness.anthropic.enqueue(...deletePackingTurns());
    expect(await send('תמחק את רשימת האריזה')).toContain('השיבו כן או לא.');
    expect(await send('לא')).toBe('בסדר, לא אעשה את זה.');
  });

  it('a YES after the lifetime does nothing, and says so', async () => {
    harness.anthropic.enqueue(...deletePackingTurns());
    await send('delete my packing list');
    clock.advance(harness.config.limits.confirmationTtlMs + 1);
    expect(await send('yes')).toBe("That request waited more than 5 minutes, so I didn't do it. Ask again if you still want it.");
    expect(harness.anthropic.requests).toHaveLength(2);
    expect(await listNames()).toEqual(['packing']);
    expect(await confirmations()).toMatchObject([{ status: 'expired' }]);
  });

  it('two YES messages at once (a double tap, a retry with a new sid) run the action once', async () => {
    harness.anthropic.enqueue(...deletePackingTurns());
    await send('delete my packing list');
    const before = harness.twilio.messages.filter((message) => message.to === phone).length;
    const responses = await Promise.all([harness.inbound({ from: phone, body: 'yes', sid: messageSid() }), harness.inbound({ from: phone, body: 'YES', sid: messageSid() })]);
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200]);
    const replies = (await harness.repliesTo(phone, before + 1)).slice(before);
    // Merged into one turn, or answered as two: either way one deletion, and no error.
    expect(replies[0]!.body).toBe('Deleted the "packing" list.');
    await harness.idle(phone);
    const all = harness.twilio.messages.filter((message) => message.to === phone).slice(before).map((message) => message.body);
    expect(all.filter((body) => body === 'Deleted the "packing" list.')).toHaveLength(1);
    expect(all.every((body) => body === 'Deleted the "packing" list.' || body === 'That is already done.')).toBe(true);
    expect(await confirmations()).toMatchObject([{ status: 'done', outcome: [{ ok: true }] }]);
  });
});
