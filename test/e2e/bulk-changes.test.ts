import { DateTime } from 'luxon';
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import type { HeraldHarness } from '../helpers/herald-harness.js';
import { textingUser } from '../helpers/texting-user.js';
import { CheckedScript, lastToolResults } from '../helpers/model-script.js';

/**
 * Bulk changes, one question (issue 19, item 7), through the webhook on the built-in
 * calendar: one tool call changes a whole window (or every matching reminder, or list
 * item), held for ONE YES that lists what changes (the count, the first ten, a page link
 * when there are more) and pinned to exactly those items; the YES reply says how many
 * changed; over 500 is refused.
 */

const ZONE = 'America/New_York';
const LOCAL = "yyyy-MM-dd'T'HH:mm";

describe('bulk changes', () => {
  const clock = new ManualClock('2030-03-04T13:00:00Z'); // Monday 08:00 in New York
  const user = textingUser({ clock, startAt: '2030-03-04T13:00:00Z', firstPhone: 4800, timezone: ZONE });
  const script = new CheckedScript();
  let harness: HeraldHarness;
  let userId: string;
  beforeEach(() => ({ harness, userId } = user));
  const send = (body: string) => user.send(body);
  const plan = (agent: string, task: string) => ({ toolCalls: [{ name: 'create_plan', input: { analysis: 'Bulk', goal: task, steps: [{ id: 'step_1', agent, task }] } }] });
  const calendar = async () => (await harness.herald.calendar.calendars.calendarOf(userId)).provider;
  const titles = async () => (await (await calendar()).listEvents({ from: new Date('2030-03-01T00:00:00Z'), to: new Date('2030-03-20T00:00:00Z') }, ZONE)).map((event) => event.title).sort();

  it('"clear my calendar this week except the ultrasound": one question (count, first ten, a page with all), YES deletes exactly those', async () => {
    const monday = DateTime.fromISO('2030-03-04T09:00', { zone: ZONE });
    const provider = await calendar();
    for (let index = 0; index < 12; index += 1) {
      const start = monday.plus({ days: index % 5, hours: index % 3 });
      await provider.createEvent({ title: `Meeting ${index + 1}`, allDay: false, start: start.toFormat(LOCAL), end: start.plus({ minutes: 30 }).toFormat(LOCAL), timezone: ZONE });
    }
    await provider.createEvent({ title: 'Ultrasound', allDay: false, start: monday.plus({ days: 2, hours: 5 }).toFormat(LOCAL), end: monday.plus({ days: 2, hours: 6 }).toFormat(LOCAL), timezone: ZONE });
    harness.anthropic.enqueue(
      plan('calendar-agent', 'Delete every event from 2030-03-04 (Monday) to 2030-03-10 (Sunday) except the ultrasound'),
      { toolCalls: [{ name: 'change_calendar_events', input: { action: 'delete', from: '2030-03-04', to: '2030-03-10', except: ['ultrasound'] } }] },
      script.checked((request) => {
        expect(JSON.parse(lastToolResults(request)[0]!.content)).toMatchObject({ effect: 'pending_confirmation' });
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Clearing the week awaits the YES', reply: "I'll clear your week once you confirm." } }] };
      }),
    );
    const reply = await send('clear my calendar this week except the ultrasound');
    script.rethrow();
    const lines = reply.split('\n');
    expect(lines[0]).toBe("I'll clear your week once you confirm.");
    expect(lines[2]).toBe('Delete 12 events (Mon 4 Mar - Sun 10 Mar), keeping "ultrasound"?');
    // (SMS carries bullets as hyphens and the ellipsis as three dots.)
    expect(lines.slice(3, 13).every((line) => /^- Meeting \d+, /.test(line))).toBe(true);
    expect(lines[13]).toMatch(/^\.\.\.and 2 more: https:\/\/herald\.test\/p\/\S+$/);
    expect(lines[14]).toBe('Reply YES or NO.');
    expect(harness.anthropic.requests).toHaveLength(3); // one call for the whole week, not one per event
    const [pending] = await harness.database.prisma.pendingQuestion.findMany({ where: { userId } });
    expect((pending!.payload as { actions: Array<{ input: { events: unknown[] } }> }).actions[0]!.input.events).toHaveLength(12);

    // Another device adds a meeting this week after the question: the YES does not touch it.
    await provider.createEvent({ title: 'Added later', allDay: false, start: monday.plus({ days: 1, hours: 7 }).toFormat(LOCAL), end: monday.plus({ days: 1, hours: 8 }).toFormat(LOCAL), timezone: ZONE });
    expect(await send('yes')).toBe('Deleted 12 events.');
    expect(await titles()).toEqual(['Added later', 'Ultrasound']);
    expect(harness.anthropic.requests).toHaveLength(3);
  });

  it('"push everything on Monday an hour later": one question, YES moves each of them by the hour', async () => {
    const monday = DateTime.fromISO('2030-03-04T09:00', { zone: ZONE });
    const provider = await calendar();
    for (const [title, hours] of [['Standup', 0], ['Review', 3], ['Gym', 8]] as const) {
      const start = monday.plus({ hours });
      await provider.createEvent({ title, allDay: false, start: start.toFormat(LOCAL), end: start.plus({ minutes: 45 }).toFormat(LOCAL), timezone: ZONE });
    }
    harness.anthropic.enqueue(plan('calendar-agent', 'Move every event on 2030-03-04 (Monday) one hour later'), {
      toolCalls: [
        { name: 'change_calendar_events', input: { action: 'move', from: '2030-03-04', shiftMinutes: 60 } },
        { name: 'complete_step', input: { summary: 'Awaiting the YES', reply: 'Say yes and I will move them.' } },
      ],
    });
    expect(await send('push everything on monday an hour later')).toMatch(/^Say yes and I will move them\.\n\nMove 3 events \(Mon 4 Mar\) by \+1 hour\?\n- Standup, .+\n- Review, .+\n- Gym, .+\nReply YES or NO\.$/);
    expect(await send('yes')).toBe('Moved 3 events.');
    const events = await provider.listEvents({ from: new Date('2030-03-04T00:00:00Z'), to: new Date('2030-03-06T00:00:00Z') }, ZONE);
    expect(events.map((event) => [event.title, event.start])).toEqual([
      ['Standup', '2030-03-04T10:00'],
      ['Review', '2030-03-04T13:00'],
      ['Gym', '2030-03-04T18:00'],
    ]);
  });

  it('"cancel all my gym reminders": one YES for all of them; the reply says how many', async () => {
    const at = (hours: number) => DateTime.fromJSDate(clock.now(), { zone: ZONE }).plus({ hours }).toFormat(LOCAL);
    for (const [text, hours] of [['Gym: legs', 2], ['Gym: arms', 26], ['Gym class', 50], ['Call mom', 3]] as const) {
      const created = await harness.herald.reminders.create(userId, ZONE, { text, at: at(hours) });
      if (!created.ok) throw new Error(created.error);
    }
    harness.anthropic.enqueue(plan('scheduler-agent', 'Cancel every reminder about the gym'), {
      toolCalls: [
        { name: 'cancel_scheduled_jobs', input: { match: 'gym' } },
        { name: 'complete_step', input: { summary: 'Awaiting the YES', reply: 'Those go once you confirm.' } },
      ],
    });
    const reply = await send('cancel all my gym reminders');
    expect(reply).toMatch(/^Those go once you confirm\.\n\nCancel 3 reminders\?\n- Gym: legs, .+\n- Gym: arms, .+\n- Gym class, .+\nReply YES or NO\.$/);
    expect(await send('YES')).toBe('Cancelled 3 reminders.');
    const rows = await harness.database.prisma.reminder.findMany({ where: { userId }, orderBy: { text: 'asc' } });
    expect(rows.map((row) => [row.text, row.status])).toEqual([
      ['Call mom', 'active'],
      ['Gym class', 'cancelled'],
      ['Gym: arms', 'cancelled'],
      ['Gym: legs', 'cancelled'],
    ]);
  });

  it('"remove everything checked" from a list: one YES, only the ticked items go', async () => {
    await harness.herald.lists.addItems(userId, 'shopping', ['milk', 'eggs', 'bread', 'tea']);
    await harness.herald.lists.checkItems(userId, 'shopping', ['milk', 'bread'], true);
    harness.anthropic.enqueue(plan('list-agent', 'Remove every ticked item from the shopping list'), {
      toolCalls: [
        { name: 'change_list_items', input: { list: 'shopping', action: 'remove', checkedOnly: true } },
        { name: 'complete_step', input: { summary: 'Awaiting the YES', reply: 'Say yes and they go.' } },
      ],
    });
    expect(await send('remove everything checked from my shopping list')).toBe('Say yes and they go.\n\nRemove 2 items from the shopping list?\n- milk\n- bread\nReply YES or NO.');
    expect(await send('yes')).toBe('Removed 2 items.');
    const lists = await harness.herald.lists.lists(userId, 'shopping');
    expect(lists.ok && lists.value[0]!.items.map((item) => item.text)).toEqual(['eggs', 'tea']);
  });

  it('over 500 is refused with a clear reply, and nothing changes', async () => {
    const due = new Date(clock.now().getTime() + 86_400_000);
    await harness.database.prisma.reminder.createMany({
      data: Array.from({ length: 501 }, (_unused, index) => ({ userId, text: `Drink water ${index + 1}`, timezone: ZONE, startLocal: '2030-03-05T08:00', nextDueAt: due, updatedAt: clock.now() })),
    });
    harness.anthropic.enqueue(
      plan('scheduler-agent', 'Cancel every reminder about water'),
      { toolCalls: [{ name: 'cancel_scheduled_jobs', input: { match: 'water' } }] },
      script.checked((request) => {
        expect(lastToolResults(request)).toEqual([{ isError: true, content: 'That would change 501 items; I change at most 500 at once. Nothing was changed: narrow it down (a shorter period, or more specific words).' }]);
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Refused: 501 reminders', reply: 'That is 501 reminders, more than I change at once. Could you narrow it down?' } }] };
      }),
    );
    expect(await send('cancel all my water reminders')).toBe('That is 501 reminders, more than I change at once. Could you narrow it down?');
    script.rethrow();
    expect(await harness.database.prisma.reminder.count({ where: { userId, status: 'active' } })).toBe(501);
    expect(await harness.database.prisma.pendingQuestion.count({ where: { userId } })).toBe(0);
  });
});
