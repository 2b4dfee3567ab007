import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { lastToolResults as toolResults } from '../helpers/model-script.js';
import { createUser } from '../reminders/support.js';

/**
 * Lists end to end (issue 4): texts through the signed webhook, a scripted list-agent
 * step, the user's reply, and the rows in the database. Every test asserts its exact
 * number of model calls.
 */

function plan(task: string): ScriptedAnthropicResponse {
  return { toolCalls: [{ name: 'create_plan', input: { analysis: 'A list request', goal: 'Manage the user\'s lists', steps: [{ id: 'step_1', agent: 'list-agent', task }] } }] };
}

describe('lists through the webhook', () => {
  let harness: HeraldHarness;
  let counter = 0;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1415555${String(3400 + counter)}`;
    userId = (await createUser(harness, phone)).id;
  });
  afterAll(async () => {
    await harness.close();
  });

  const lists = () => harness.herald.lists;

  async function send(body: string): Promise<string> {
    expect((await harness.inbound({ from: phone, body })).statusCode).toBe(200);
    const [reply] = await harness.replies(1);
    harness.anthropic.rethrowScriptErrors();
    expect(reply?.to).toBe(phone);
    return reply!.body ?? '';
  }

  async function contents() {
    const found = await harness.database.prisma.list.findMany({ where: { userId }, orderBy: { createdAt: 'asc' }, include: { items: { orderBy: { position: 'asc' } } } });
    return Object.fromEntries(found.map((list) => [list.name, list.items.map((item) => (item.checked ? `[x] ${item.text}` : item.text))]));
  }

  async function steps() {
    const turn = await harness.database.prisma.turn.findFirstOrThrow({
      where: { userId },
      orderBy: { startedAt: 'desc' },
      include: { plans: { include: { stepRuns: { orderBy: { startedAt: 'asc' } } } } },
    });
    return { turn, stepRuns: turn.plans[0]!.stepRuns };
  }

  it('two tools called in one answer: both results go back with the next request, which the API accepts (three model calls)', async () => {
    harness.anthropic.enqueue(
      plan('Add milk to the shopping list and nails to the hardware list'),
      {
        toolCalls: [
          { name: 'add_list_items', input: { list: 'shopping', items: ['milk'] } },
          { name: 'add_list_items', input: { list: 'hardware', items: ['nails'] } },
        ],
      },
      (request) => {
        // The real API refuses a tool_use whose tool_result is missing (the fake too): one result per call.
        expect(toolResults(request).map((result) => result.isError)).toEqual([false, false]);
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Added 2 items', reply: 'Added milk and nails.', created: [{ description: 'milk' }, { description: 'nails' }] } }] };
      },
    );
    expect(await send('add milk to shopping and nails to hardware')).toBe('Added milk and nails.');
    expect(harness.anthropic.requests).toHaveLength(3);
    expect(await contents()).toEqual({ shopping: ['milk'], hardware: ['nails'] });
  });

  it('creates a list and adds several items in one call: two model calls', async () => {
    harness.anthropic.enqueue(plan('Create a shopping list with milk, eggs and bread'), {
      toolCalls: [
        { name: 'create_list', input: { name: 'shopping' } },
        { name: 'add_list_items', input: { list: 'shopping', items: ['milk', 'eggs', 'bread'] } },
        {
          name: 'complete_step',
          input: {
            summary: 'Created the shopping list with 3 items',
            reply: 'Your shopping list: milk, eggs, bread.',
            created: [{ description: 'shopping list' }, { description: 'milk' }, { description: 'eggs' }, { description: 'bread' }],
          },
        },
      ],
    });
    expect(await send('start a shopping list with milk, eggs and bread')).toBe('Your shopping list: milk, eggs, bread.');
    expect(harness.anthropic.requests).toHaveLength(2);
    expect(harness.anthropic.requests[1]!.toolNames()).toEqual(['create_list', 'add_list_items', 'get_lists', 'check_list_items', 'remove_list_items', 'delete_list', 'change_list_items', 'complete_step']);
    expect(await contents()).toEqual({ shopping: ['milk', 'eggs', 'bread'] });
    expect((await steps()).turn.modelCalls).toBe(2);
  });

  it('"add butter" with one list goes to it: two model calls', async () => {
    await lists().addItems(userId, 'groceries', ['milk']);
    harness.anthropic.enqueue(plan('Add butter to the user\'s list'), {
      toolCalls: [
        { name: 'add_list_items', input: { items: ['butter'] } },
        { name: 'complete_step', input: { summary: 'Added butter to groceries', reply: 'Added butter to your groceries list.', created: [{ description: 'butter' }] } },
      ],
    });
    expect(await send('add butter')).toBe('Added butter to your groceries list.');
    expect(harness.anthropic.requests).toHaveLength(2);
    expect(await contents()).toEqual({ groceries: ['milk', 'butter'] });
  });

  it('"add milk" with several lists: Herald asks which, numbered, nothing is added; "packing" adds it there with no model call', async () => {
    await lists().createList(userId, 'shopping');
    await lists().createList(userId, 'packing');
    harness.anthropic.enqueue(
      plan('Add milk to the user\'s list'),
      { toolCalls: [{ name: 'add_list_items', input: { items: ['milk'] } }] },
      (request) => {
        const [result] = toolResults(request);
        expect(result).toEqual({ isError: true, content: 'The user has several lists (shopping, packing). Nothing was changed; Herald asks the user which one (complete with needsClarification).' });
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Several lists', needsClarification: true, question: 'Which list?' } }] };
      },
    );
    expect(await send('add milk')).toBe('Which one?\n1) shopping\n2) packing\nReply with its number, or NO to leave it.');
    expect(harness.anthropic.requests).toHaveLength(3);
    expect(await contents()).toEqual({ shopping: [], packing: [] });
    expect((await harness.inbound({ from: phone, body: 'packing' })).statusCode).toBe(200);
    expect((await harness.repliesTo(phone, 2))[1]!.body).toBe('Done: packing.');
    expect(harness.anthropic.requests).toHaveLength(3);
    expect(await contents()).toEqual({ shopping: [], packing: ['milk'] });
  });

  it('checks an item off: two model calls', async () => {
    await lists().addItems(userId, 'shopping', ['milk', 'eggs']);
    harness.anthropic.enqueue(plan('Check off eggs'), {
      toolCalls: [
        { name: 'check_list_items', input: { items: ['eggs'] } },
        { name: 'complete_step', input: { summary: 'Checked off eggs', reply: 'Checked off eggs.', updated: [{ description: 'eggs' }] } },
      ],
    });
    expect(await send('got the eggs')).toBe('Checked off eggs.');
    expect(harness.anthropic.requests).toHaveLength(2);
    expect(await contents()).toEqual({ shopping: ['milk', '[x] eggs'] });
  });

  it('removes items: two model calls', async () => {
    await lists().addItems(userId, 'shopping', ['milk', 'eggs', 'bread']);
    harness.anthropic.enqueue(plan('Remove milk and bread from the shopping list'), {
      toolCalls: [
        { name: 'remove_list_items', input: { list: 'shopping', items: ['milk', 'bread'] } },
        { name: 'complete_step', input: { summary: 'Removed 2', reply: 'Removed milk and bread.', deleted: [{ description: 'milk' }, { description: 'bread' }] } },
      ],
    });
    expect(await send('take milk and bread off the shopping list')).toBe('Removed milk and bread.');
    expect(harness.anthropic.requests).toHaveLength(2);
    expect(await contents()).toEqual({ shopping: ['eggs'] });
  });

  it('shows a list, built from get_lists: three model calls', async () => {
    await lists().addItems(userId, 'shopping', ['milk', 'eggs']);
    await lists().checkItems(userId, 'shopping', ['eggs'], true);
    harness.anthropic.enqueue(
      plan('Show the shopping list'),
      { toolCalls: [{ name: 'get_lists', input: { name: 'shopping' } }] },
      (request) => {
        const shown = JSON.parse(toolResults(request)[0]!.content) as { lists: Array<{ name: string; items: Array<{ text: string; checked: boolean }> }>; isEmpty: boolean };
        expect(shown.isEmpty).toBe(false);
        const lines = shown.lists[0]!.items.map((item) => `${item.checked ? '✓' : '•'} ${item.text}`);
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Shown', reply: `Shopping:\n${lines.join('\n')}`, data: { lists: shown.lists } } }] };
      },
    );
    expect(await send("what's on my shopping list?")).toBe('Shopping:\n• milk\n✓ eggs');
    expect(harness.anthropic.requests).toHaveLength(3);
  });

  it('an empty list shows as isEmpty: three model calls', async () => {
    await lists().createList(userId, 'packing');
    harness.anthropic.enqueue(
      plan('Show the packing list'),
      { toolCalls: [{ name: 'get_lists', input: { name: 'packing' } }] },
      (request) => {
        expect(JSON.parse(toolResults(request)[0]!.content)).toEqual({ lists: [{ name: 'packing', items: [] }], isEmpty: true });
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Empty', reply: 'Your packing list is empty.', isEmpty: true } }] };
      },
    );
    expect(await send("what's on my packing list?")).toBe('Your packing list is empty.');
    expect(harness.anthropic.requests).toHaveLength(3);
    expect((await steps()).stepRuns[0]!.output).toMatchObject({ isEmpty: true });
  });

  it('deletes an empty list without asking: two model calls', async () => {
    await lists().createList(userId, 'packing');
    await lists().addItems(userId, 'shopping', ['milk']);
    harness.anthropic.enqueue(plan('Delete the packing list'), {
      toolCalls: [
        { name: 'delete_list', input: { name: 'packing' } },
        { name: 'complete_step', input: { summary: 'Deleted', reply: 'Deleted your packing list.', deleted: [{ description: 'packing list' }] } },
      ],
    });
    expect(await send('delete the packing list')).toBe('Deleted your packing list.');
    expect(harness.anthropic.requests).toHaveLength(2);
    expect(await contents()).toEqual({ shopping: ['milk'] });
  });

  it('the verifier rejects a step claiming 4 items added when 3 were, and the retry reports the truth: three model calls', async () => {
    await lists().createList(userId, 'shopping');
    harness.anthropic.enqueue(
      plan('Add milk, eggs and bread to the shopping list'),
      {
        toolCalls: [
          { name: 'add_list_items', input: { list: 'shopping', items: ['milk', 'eggs', 'bread'] } },
          { name: 'complete_step', input: { summary: 'Added 4', reply: 'Added 4 items.', created: ['milk', 'eggs', 'bread', 'butter'].map((description) => ({ description })) } },
        ],
      },
      (request) => {
        // The retry is told what went wrong and that the first attempt's changes are real.
        expect(request.allText()).toContain('claimed 4 created but 3 tool call(s) actually created something');
        return {
          toolCalls: [
            { name: 'add_list_items', input: { list: 'shopping', items: ['milk', 'eggs', 'bread'] } },
            { name: 'complete_step', input: { summary: 'Already there', reply: 'Milk, eggs and bread are on your shopping list.' } },
          ],
        };
      },
    );
    expect(await send('add milk, eggs and bread')).toBe('Milk, eggs and bread are on your shopping list.');
    expect(harness.anthropic.requests).toHaveLength(3);
    const { stepRuns } = await steps();
    expect(stepRuns.map((run) => [run.attempt, run.status, run.errorKind])).toEqual([
      [0, 'failed', 'verification'],
      [1, 'completed', null],
    ]);
    expect(await contents()).toEqual({ shopping: ['milk', 'eggs', 'bread'] });
  });
});
