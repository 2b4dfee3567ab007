import { DateTime } from 'luxon';
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import type { RecordedAnthropicRequest, ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import type { HeraldHarness } from '../helpers/herald-harness.js';
import { composerRequest, plannerRequest, RoutedScript, stepRequest, type RequestMatch } from '../helpers/model-script.js';
import { textingUser } from '../helpers/texting-user.js';

/**
 * Steps at once through the webhook (issue 25), with Herald's real agents and tools: two
 * independent steps are in flight together and their own words are the reply (no composer);
 * a step that asks while another makes a reminder gives one question and one reminder, told;
 * held actions from steps that ran at once are asked once, in plan order, and one YES runs them.
 */

const ZONE = 'America/New_York';
const LOCAL = "yyyy-MM-dd'T'HH:mm";

const plan = (goal: string, steps: Array<{ id: string; agent: string; task: string; dependsOn: string[] }>): ScriptedAnthropicResponse => ({
  toolCalls: [{ name: 'create_plan', input: { analysis: 'Independent things', goal, steps } }],
});

describe('steps that run at once, through the webhook', () => {
  const clock = new ManualClock('2030-03-04T13:00:00Z');
  const user = textingUser({ clock, startAt: '2030-03-04T13:00:00Z', firstPhone: 5200, timezone: ZONE });
  let harness: HeraldHarness;
  let userId: string;
  beforeEach(() => ({ harness, userId } = user));

  const five = () => DateTime.fromJSDate(clock.now(), { zone: ZONE }).set({ hour: 17, minute: 0 }).toFormat(LOCAL);
  const reminders = () => harness.database.prisma.reminder.findMany({ where: { userId } });

  /** Answers `answer` once a request `other` matches has arrived too: the two steps were in flight together. */
  function alongWith(other: RequestMatch, answer: ScriptedAnthropicResponse): ScriptedAnthropicResponse {
    return async () => {
      while (!harness.anthropic.requests.some(other)) await harness.anthropic.waitForRequests(harness.anthropic.requests.length + 1, 5000);
      return answer;
    };
  }

  it('runs a reminder and a list step together, and sends their own words in plan order without a composer call', async () => {
    const remind = stepRequest('Go shopping');
    const list = stepRequest('Add milk');
    const routes = new RoutedScript([
      ['planner', plannerRequest, [plan('Reminder at 5 and milk on the list', [
        { id: 'step_1', agent: 'scheduler-agent', task: `Create a reminder "Go shopping" at ${five()}`, dependsOn: [] },
        { id: 'step_2', agent: 'list-agent', task: 'Add milk to the shopping list', dependsOn: [] },
      ])]],
      ['reminder step', remind, [alongWith(list, { toolCalls: [{ name: 'create_scheduled_job', input: { text: 'Go shopping', at: five() } }, { name: 'complete_step', input: { summary: 'Reminder set', reply: "I'll remind you to go shopping at 5 PM.", created: [{ description: 'Go shopping' }] } }] })]],
      ['list step', list, [alongWith(remind, { toolCalls: [{ name: 'add_list_items', input: { list: 'shopping', items: ['milk'] } }, { name: 'complete_step', input: { summary: 'Milk added', reply: 'Milk is on your shopping list.', created: [{ description: 'milk' }] } }] })]],
    ]);
    harness.anthropic.setFallback(routes.answer);

    expect(await user.send('remind me at 5 to go shopping and add milk to my shopping list')).toBe("I'll remind you to go shopping at 5 PM.\nMilk is on your shopping list.");
    expect(routes.unused()).toEqual([]);
    expect(harness.anthropic.requests.filter(composerRequest)).toHaveLength(0);
    expect(harness.anthropic.requests).toHaveLength(3);
    expect(await reminders()).toHaveLength(1);
    // Each step was asked for its own part of the answer.
    expect(harness.anthropic.requests.find(list)!.lastUserText()).toContain('Your result is one part of the answer to the user');
    // The plan's record says what each step depended on.
    const planRun = await harness.database.prisma.planRun.findFirstOrThrow({ where: { userId } });
    expect(planRun.steps).toEqual([expect.objectContaining({ id: 'step_1', dependsOn: [], status: 'completed' }), expect.objectContaining({ id: 'step_2', dependsOn: [], status: 'completed' })]);
  });

  it('a step asking a question while another makes a reminder: one reminder, told, and one question', async () => {
    const question = 'Which list should the milk go on?';
    const remind = stepRequest('Go shopping');
    const list = stepRequest('Add milk');
    harness.anthropic.setFallback(new RoutedScript([
      ['planner', plannerRequest, [plan('Reminder at 5 and milk on a list', [
        { id: 'step_1', agent: 'scheduler-agent', task: `Create a reminder "Go shopping" at ${five()}`, dependsOn: [] },
        { id: 'step_2', agent: 'list-agent', task: "Add milk to the user's list", dependsOn: [] },
      ])]],
      ['reminder step', remind, [alongWith(list, { toolCalls: [{ name: 'create_scheduled_job', input: { text: 'Go shopping', at: five() } }, { name: 'complete_step', input: { summary: 'Reminder "Go shopping" set for 5 PM', created: [{ description: 'Go shopping at 5 PM' }] } }] })]],
      ['list step', list, [alongWith(remind, { toolCalls: [{ name: 'complete_step', input: { summary: 'The user did not say which list', needsClarification: true, question } }] })]],
      ['composer', composerRequest, [(request: RecordedAnthropicRequest) => {
        expect(request.allText()).toContain('Reminder &quot;Go shopping&quot; set for 5 PM');
        return { text: "I'll remind you to go shopping at 5 PM." };
      }]],
    ]).answer);

    expect(await user.send('remind me at 5 to go shopping and add milk to my list')).toBe(`I'll remind you to go shopping at 5 PM.\n\n${question}`);
    expect(await reminders()).toHaveLength(1);
    const pending = await harness.database.prisma.pendingQuestion.findMany({ where: { userId, status: 'pending' } });
    expect(pending).toEqual([expect.objectContaining({ kind: 'clarification', question })]);
  });

  it('held actions from two steps that ran at once are asked once, in plan order, and one YES does both', async () => {
    await harness.herald.lists.addItems(userId, 'packing', ['passport']);
    const calendar = (await harness.herald.calendar.calendars.calendarOf(userId)).provider;
    const tomorrow = DateTime.fromJSDate(clock.now(), { zone: ZONE }).plus({ days: 1 }).set({ hour: 15, minute: 0 });
    await calendar.createEvent({ title: 'Dentist', allDay: false, start: tomorrow.toFormat(LOCAL), end: tomorrow.plus({ minutes: 45 }).toFormat(LOCAL), timezone: ZONE, attendees: [] });
    const lists = stepRequest('packing list');
    const dentist = stepRequest('Dentist');
    harness.anthropic.setFallback(new RoutedScript([
      ['planner', plannerRequest, [plan('Delete the packing list and the dentist', [
        { id: 'step_1', agent: 'list-agent', task: 'Delete the packing list', dependsOn: [] },
        { id: 'step_2', agent: 'calendar-agent', task: 'Delete the "Dentist" appointment tomorrow', dependsOn: [] },
      ])]],
      // The calendar step (second in the plan) holds its action first.
      ['list step', lists, [async () => {
        while (!harness.anthropic.requests.some((request) => dentist(request) && request.allText().includes('pending_confirmation'))) await harness.anthropic.waitForRequests(harness.anthropic.requests.length + 1, 5000);
        return { toolCalls: [{ name: 'delete_list', input: { name: 'packing' } }] };
      }, { toolCalls: [{ name: 'complete_step', input: { summary: 'Deleting the packing list awaits the YES', reply: 'The packing list waits for your YES.' } }] }]],
      ['calendar step', dentist, [{ toolCalls: [{ name: 'delete_calendar_event', input: { match: 'Dentist' } }] }, { toolCalls: [{ name: 'complete_step', input: { summary: 'Deleting the dentist awaits the YES', reply: 'The dentist waits for your YES.' } }] }]],
    ]).answer);

    const reply = await user.send('delete the packing list and my dentist appointment tomorrow');
    // The calendar step held its action first; the question asks in plan order all the same.
    expect(reply).toBe('The packing list waits for your YES.\nThe dentist waits for your YES.\n\nDelete the "packing" list and its 1 item? Delete "Dentist" on Tue 5 Mar, 3:00 PM? Reply YES or NO.');
    const pending = await harness.database.prisma.pendingQuestion.findMany({ where: { userId, status: 'pending' } });
    expect(pending.map((row) => row.kind)).toEqual(['confirmation']);

    await user.send('yes');
    expect((await harness.herald.lists.lists(userId)).ok && (await harness.herald.lists.lists(userId))).toMatchObject({ value: [] });
    expect(await calendar.listEvents({ from: tomorrow.startOf('day').toJSDate(), to: tomorrow.endOf('day').toJSDate() }, ZONE)).toEqual([]);
  });
});
