import { DateTime } from 'luxon';
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import type { HeraldHarness } from '../helpers/herald-harness.js';
import { textingUser } from '../helpers/texting-user.js';
import { CheckedScript, composerRequest, plannerRequest, RoutedScript, stepRequest } from '../helpers/model-script.js';

/**
 * Questions a plan asks (issue 19, items 4 and 5), through the webhook: when a later step
 * asks, the reply says what earlier steps changed, asks their held YES questions and keeps
 * their links, then asks; the question is kept with the plan for 5 minutes, and the answer
 * resumes it without running the earlier steps again. After 5 minutes the text is a fresh
 * message (seed 003's HITL timeout). The plans' steps need nothing from each other, so they
 * run at once (issue 25): the model is scripted by who asks.
 */

const ZONE = 'America/New_York';

describe('a question a plan asks', () => {
  const clock = new ManualClock('2030-03-04T13:00:00Z');
  const user = textingUser({ clock, startAt: '2030-03-04T13:00:00Z', firstPhone: 4600, timezone: ZONE });
  const script = new CheckedScript();
  let harness: HeraldHarness;
  let userId: string;
  beforeEach(() => ({ harness, userId } = user));
  const send = (body: string) => user.send(body);

  const five = () => DateTime.fromJSDate(clock.now(), { zone: ZONE }).set({ hour: 17, minute: 0 }).toFormat("yyyy-MM-dd'T'HH:mm");
  const question = 'Which list should the milk go on?';

  /**
   * "Remind me at 5 to shop, and add milk to my list": the two steps run at once; the reminder
   * is made, the list step asks which list. Answered by who asks (their order is not fixed).
   */
  function remindThenAsk() {
    harness.anthropic.setFallback(new RoutedScript([
      ['planner', plannerRequest, [{ toolCalls: [{ name: 'create_plan', input: { analysis: 'Two things', goal: 'Reminder at 5 and milk on a list', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: `Create a reminder "Go shopping" at ${five()}`, dependsOn: [] }, { id: 'step_2', agent: 'list-agent', task: 'Add milk to the user\'s list', dependsOn: [] }] } }] }]],
      ['reminder step', stepRequest('Go shopping'), [{
        toolCalls: [
          { name: 'create_scheduled_job', input: { text: 'Go shopping', at: five() } },
          { name: 'complete_step', input: { summary: 'Reminder "Go shopping" set for 5 PM', created: [{ description: 'Go shopping at 5 PM' }] } },
        ],
      }]],
      ['list step', stepRequest('Add milk'), [{ toolCalls: [{ name: 'complete_step', input: { summary: 'The user did not say which list', needsClarification: true, question } }] }]],
      // The composer says what was done, and nothing more: the question follows.
      ['composer', composerRequest, [{ text: "I'll remind you to go shopping at 5 PM." }]],
    ]).answer);
  }

  const reminders = () => harness.database.prisma.reminder.findMany({ where: { userId } });

  it('the reply reports what earlier steps did, then asks; the answer resumes the plan and the reminder exists exactly once', async () => {
    remindThenAsk();
    expect(await send('remind me at 5 to go shopping and add milk to my list')).toBe(`I'll remind you to go shopping at 5 PM.\n\n${question}`);
    expect(await reminders()).toHaveLength(1);
    const [pending] = await harness.database.prisma.pendingQuestion.findMany({ where: { userId } });
    expect(pending).toMatchObject({ kind: 'clarification', status: 'pending', question, payload: { request: 'remind me at 5 to go shopping and add milk to my list' } });

    clock.advance(60_000);
    harness.anthropic.enqueue(
      script.checked((request) => {
        // The resumed planner knows which steps ran, what was asked, and what was first asked.
        const last = request.body.messages!.at(-1)!.content as Array<{ text: string }>;
        expect(last[0]!.text).toBe('shopping');
        expect(last[1]!.text).toContain('<step id="step_1" agent="scheduler-agent" status="completed">');
        expect(last[1]!.text).toContain(`Herald asked: ${question}`);
        expect(last[1]!.text).not.toContain('step_2');
        return { toolCalls: [{ name: 'create_plan', input: { analysis: 'The answer names the list', goal: 'Milk on the shopping list', steps: [{ id: 'step_3', agent: 'list-agent', task: 'Add milk to the shopping list' }] } }] };
      }),
      {
        toolCalls: [
          { name: 'add_list_items', input: { list: 'shopping', items: ['milk'] } },
          { name: 'complete_step', input: { summary: 'Added milk to shopping', created: [{ description: 'milk' }] } },
        ],
      },
      { text: 'Milk is on your shopping list.' },
    );
    expect(await send('shopping')).toBe('Milk is on your shopping list.');
    script.rethrow();
    // The scheduler step was not run again: still exactly one reminder.
    expect(await reminders()).toHaveLength(1);
    expect(harness.anthropic.requests.filter((request) => request.toolNames().includes('create_scheduled_job'))).toHaveLength(1);
    expect(await harness.database.prisma.pendingQuestion.findUniqueOrThrow({ where: { id: pending!.id } })).toMatchObject({ status: 'done' });
    expect((await harness.herald.lists.lists(userId, 'shopping')).ok).toBe(true);
  });

  it('after 5 minutes the answer is a fresh message: no plan is resumed', async () => {
    remindThenAsk();
    await send('remind me at 5 to go shopping and add milk to my list');
    clock.advance(harness.config.limits.confirmationTtlMs + 1);
    harness.anthropic.enqueue(
      script.checked((request) => {
        expect(JSON.stringify(request.body.messages)).not.toContain('<resuming>');
        return { text: 'Shopping for what?' };
      }),
    );
    expect(await send('shopping')).toBe('Shopping for what?');
    script.rethrow();
    expect(await harness.database.prisma.pendingQuestion.findFirstOrThrow({ where: { userId } })).toMatchObject({ status: 'expired' });
  });

  it('an earlier step\'s held action is asked (YES or NO) before the question, and its link is kept', async () => {
    await harness.herald.lists.addItems(userId, 'packing', ['passport', 'charger']);
    harness.anthropic.setFallback(new RoutedScript([
      ['planner', plannerRequest, [{ toolCalls: [{ name: 'create_plan', input: { analysis: 'Two things', goal: 'Delete packing; a page; then ask', steps: [{ id: 'step_1', agent: 'list-agent', task: 'Delete the packing list', dependsOn: [] }, { id: 'step_2', agent: 'ui-agent', task: 'Make a page of the user\'s lists', dependsOn: [] }, { id: 'step_3', agent: 'memory-agent', task: 'Remember the trip; the user did not say where', dependsOn: [] }] } }] }]],
      ['list step', stepRequest('Delete the packing list'), [{ toolCalls: [{ name: 'delete_list', input: { name: 'packing' } }, { name: 'complete_step', input: { summary: 'Deleting the packing list awaits the YES' } }] }]],
      ['page step', stepRequest('Make a page'), [{ toolCalls: [{ name: 'render_page', input: { title: 'Your lists', sections: [{ kind: 'text', markdown: 'Packing: passport, charger' }] } }, { name: 'complete_step', input: { summary: 'Made a page', created: [{ description: 'Your lists page' }] } }] }]],
      ['memory step', stepRequest('Remember the trip'), [{ toolCalls: [{ name: 'complete_step', input: { summary: 'Where is the trip?', needsClarification: true, question: 'Where are you going?' } }] }]],
      ['composer', composerRequest, [{ text: 'I made a page of your lists.' }]],
    ]).answer);
    const reply = await send('delete the packing list, show my lists and remember my trip');
    expect(reply).toMatch(/^I made a page of your lists\.\nhttps:\/\/herald\.test\/p\/\S+\n\nDelete the "packing" list and its 2 items\? Reply YES or NO\.\n\nWhere are you going\?$/);
    const kinds = (await harness.database.prisma.pendingQuestion.findMany({ where: { userId, status: 'pending' } })).map((row) => row.kind).sort();
    expect(kinds).toEqual(['clarification', 'confirmation']);
    expect(await send('yes')).toBe('Deleted the "packing" list.');
    expect((await harness.herald.lists.lists(userId)).ok && (await harness.herald.lists.lists(userId))).toMatchObject({ value: [] });
  });
});
