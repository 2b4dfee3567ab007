import { DateTime } from 'luxon';
import { plainSmsPunctuation } from '../../src/channels/sms-encoding.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EventDraft } from '../../src/calendar/calendar-event.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness, messageSid } from '../helpers/herald-harness.js';
import { lastToolResults as toolResults, singleStepPlan } from '../helpers/model-script.js';
import { createUser } from '../reminders/support.js';

/**
 * The calendar end to end on Herald's built-in calendar: texts through the signed webhook,
 * the scripted model plans a calendar-agent step and drives its tools, the events are
 * checked in Postgres, and every test asserts its exact number of model calls.
 */

const ZONE = 'America/New_York';
const LOCAL = "yyyy-MM-dd'T'HH:mm";

const plan = (task: string): ScriptedAnthropicResponse => singleStepPlan('calendar-agent', task);

describe('calendar through the webhook (built-in calendar)', () => {
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
    phone = `+1415555${String(4100 + counter)}`;
    userId = (await createUser(harness, phone, { timezone: ZONE })).id;
  });
  afterAll(async () => {
    await harness.close();
  });

  const now = () => DateTime.now().setZone(ZONE);
  const provider = async () => (await harness.herald.calendar.calendars.calendarOf(userId)).provider;
  const add = async (draft: Omit<EventDraft, 'timezone' | 'allDay'> & { allDay?: boolean }) => (await provider()).createEvent({ allDay: false, timezone: ZONE, ...draft });
  const titles = async () => (await harness.database.prisma.calendarEvent.findMany({ where: { userId }, orderBy: { startsAt: 'asc' } })).map((row) => row.title);
  const confirmations = () => harness.database.prisma.pendingQuestion.findMany({ where: { userId } });

  async function send(body: string): Promise<string> {
    const reply = await harness.exchange(phone, body);
    harness.anthropic.rethrowScriptErrors();
    return reply;
  }

  it('"what\'s on tomorrow": one listing, three model calls', async () => {
    const tomorrow = now().plus({ days: 1 }).startOf('day');
    await add({ title: 'Standup', start: tomorrow.set({ hour: 9 }).toFormat(LOCAL), end: tomorrow.set({ hour: 9, minute: 15 }).toFormat(LOCAL) });
    await add({ title: 'Dentist', start: tomorrow.set({ hour: 15 }).toFormat(LOCAL), end: tomorrow.set({ hour: 15, minute: 45 }).toFormat(LOCAL), location: 'Main St 4' });
    await add({ title: 'Not tomorrow', start: tomorrow.plus({ days: 1, hours: 10 }).toFormat(LOCAL), end: tomorrow.plus({ days: 1, hours: 11 }).toFormat(LOCAL) });
    harness.anthropic.enqueue(
      plan(`List the events on ${tomorrow.toISODate()} (tomorrow)`),
      { toolCalls: [{ name: 'get_calendar_events', input: { from: tomorrow.toISODate() } }] },
      (request) => {
        const listing = JSON.parse(toolResults(request)[0]!.content) as { count: number; events: Array<{ title: string; when: string }> };
        expect(listing.count).toBe(2);
        const lines = listing.events.map((event) => `${event.when}: ${event.title}`);
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Two events tomorrow', reply: `Tomorrow:\n${lines.join('\n')}`, data: { events: listing.events } } }] };
      },
    );
    const reply = await send("what's on tomorrow?");
    expect(reply).toBe(plainSmsPunctuation(`Tomorrow:\n${tomorrow.toFormat('ccc d LLL')}, 9:00 AM–9:15 AM: Standup\n${tomorrow.toFormat('ccc d LLL')}, 3:00 PM–3:45 PM: Dentist`));
    expect(harness.anthropic.requests).toHaveLength(3);
    expect(harness.anthropic.requests[1]!.toolNames()).toEqual([
      'get_calendar_events',
      'create_calendar_event',
      'update_calendar_event',
      'delete_calendar_event',
      'find_free_time',
      'change_calendar_events',
      'connect_calendar',
      'disconnect_calendar',
      'calendar_feed',
      'find_contacts',
      'complete_step',
    ]);
  });

  it('"schedule lunch with Dana Friday at 1": created at once (no invitees, no question), the overlap said; three model calls', async () => {
    const friday = now().plus({ weeks: 1 }).set({ weekday: 5 }).startOf('day');
    await add({ title: 'Team sync', start: friday.set({ hour: 12, minute: 30 }).toFormat(LOCAL), end: friday.set({ hour: 13, minute: 30 }).toFormat(LOCAL) });
    harness.anthropic.enqueue(
      plan(`Create the event "Lunch with Dana" on ${friday.toISODate()} at 13:00`),
      { toolCalls: [{ name: 'create_calendar_event', input: { title: 'Lunch with Dana', start: friday.set({ hour: 13 }).toFormat(LOCAL) } }] },
      (request) => {
        const result = JSON.parse(toolResults(request)[0]!.content) as { effect: string; event: { when: string }; overlaps: Array<{ title: string; when: string }> };
        expect(result).toMatchObject({ effect: 'created', overlaps: [{ title: 'Team sync' }] });
        return {
          toolCalls: [{ name: 'complete_step', input: { summary: 'Created; overlaps Team sync', reply: `Added lunch with Dana, ${result.event.when}. Heads up: it overlaps Team sync (${result.overlaps[0]!.when}).`, created: [{ description: 'Lunch with Dana' }] } }],
        };
      },
    );
    const reply = await send('schedule lunch with Dana Friday at 1');
    // SMS sends the en dashes as plain hyphens (GSM-7).
    expect(reply).toBe(plainSmsPunctuation(`Added lunch with Dana, ${friday.toFormat('ccc d LLL')}, 1:00 PM–2:00 PM. Heads up: it overlaps Team sync (${friday.toFormat('ccc d LLL')}, 12:30 PM–1:30 PM).`));
    expect(harness.anthropic.requests).toHaveLength(3);
    expect(await titles()).toEqual(['Team sync', 'Lunch with Dana']);
    expect(await confirmations()).toEqual([]);
  });

  it('asks before deleting; YES deletes it with no model call', async () => {
    const day = now().plus({ days: 3 }).startOf('day');
    await add({ title: 'Dentist', start: day.set({ hour: 15 }).toFormat(LOCAL), end: day.set({ hour: 15, minute: 45 }).toFormat(LOCAL) });
    harness.anthropic.enqueue(plan('Delete the dentist appointment'), {
      toolCalls: [
        { name: 'delete_calendar_event', input: { match: 'dentist' } },
        { name: 'complete_step', input: { summary: 'Deleting the dentist appointment awaits confirmation', reply: 'I can remove the dentist appointment once you confirm.' } },
      ],
    });
    const question = `Delete "Dentist" on ${day.toFormat('ccc d LLL')}, 3:00 PM?`;
    expect(await send('cancel the dentist')).toBe(`I can remove the dentist appointment once you confirm.\n\n${question} Reply YES or NO.`);
    expect(await titles()).toEqual(['Dentist']);
    // The held call names the event by id and version, not by the words that found it.
    const [pending] = await confirmations();
    expect(pending!.payload).toMatchObject({ actions: [{ agent: 'calendar-agent', tool: 'delete_calendar_event', input: { eventId: expect.any(String), version: '0' } }] });
    expect(((pending!.payload as { actions: unknown[] }).actions as Array<{ input: Record<string, unknown> }>)[0]!.input).not.toHaveProperty('match');

    expect(await send('YES')).toBe(`Deleted "Dentist" on ${day.toFormat('ccc d LLL')}, 3:00 PM.`);
    expect(harness.anthropic.requests).toHaveLength(2);
    expect(await titles()).toEqual([]);
    const turn = await harness.database.prisma.turn.findFirstOrThrow({ where: { userId }, orderBy: { startedAt: 'desc' } });
    expect(turn.modelCalls).toBe(0);
  });

  it('"cancel my meeting" with two meetings: Herald numbers both, nothing deleted; "2" asks YES for that one (no model), and YES deletes only it', async () => {
    const day = now().plus({ days: 2 }).startOf('day');
    await add({ title: 'Team meeting', start: day.set({ hour: 10 }).toFormat(LOCAL), end: day.set({ hour: 11 }).toFormat(LOCAL) });
    await add({ title: 'Meeting with Sam', start: day.plus({ days: 1 }).set({ hour: 14 }).toFormat(LOCAL), end: day.plus({ days: 1 }).set({ hour: 15 }).toFormat(LOCAL) });
    harness.anthropic.enqueue(
      plan('Cancel the user\'s meeting'),
      { toolCalls: [{ name: 'delete_calendar_event', input: { match: 'meeting' } }] },
      (request) => {
        const [result] = toolResults(request);
        expect(result!.isError).toBe(true);
        expect(result!.content).toMatch(/^2 events match "meeting": 1\) "Team meeting" .*2\) "Meeting with Sam" .*Nothing was changed; Herald asks the user which one/);
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Two meetings match', needsClarification: true, question: 'Which meeting?' } }] };
      },
    );
    // (SMS carries the en dash of the time range as a plain hyphen.)
    const team = plainSmsPunctuation(`Team meeting, ${day.toFormat('ccc d LLL')}, 10:00 AM–11:00 AM`);
    const sam = plainSmsPunctuation(`Meeting with Sam, ${day.plus({ days: 1 }).toFormat('ccc d LLL')}, 2:00 PM–3:00 PM`);
    expect(await send('cancel my meeting')).toBe(`Which one?\n1) ${team}\n2) ${sam}\nReply with its number, or NO to leave it.`);
    expect(harness.anthropic.requests).toHaveLength(3);
    expect(await titles()).toEqual(['Team meeting', 'Meeting with Sam']);
    expect(await confirmations()).toMatchObject([{ kind: 'choice', status: 'pending' }]);

    // A choice that leads to a delete still asks YES, about exactly that event.
    const question = `Delete "Meeting with Sam" on ${day.plus({ days: 1 }).toFormat('ccc d LLL')}, 2:00 PM?`;
    expect(await send('2')).toBe(`${question} Reply YES or NO.`);
    expect(await titles()).toEqual(['Team meeting', 'Meeting with Sam']);
    expect(await send('yes')).toBe(`Deleted "Meeting with Sam" on ${day.plus({ days: 1 }).toFormat('ccc d LLL')}, 2:00 PM.`);
    expect(await titles()).toEqual(['Team meeting']);
    expect(harness.anthropic.requests).toHaveLength(3);
  });

  it('a local time that does not exist (the clocks jump forward) is refused and asked about; nothing saved', async () => {
    const springForward = DateTime.fromISO('2027-03-14', { zone: ZONE });
    harness.anthropic.enqueue(
      plan('Create "Call with Tokyo" on 2027-03-14 at 02:30'),
      { toolCalls: [{ name: 'create_calendar_event', input: { title: 'Call with Tokyo', start: '2027-03-14T02:30' } }] },
      (request) => {
        const [result] = toolResults(request);
        expect(result).toEqual({ isError: true, content: `02:30 does not exist on 2027-03-14 in ${ZONE}: the clocks jump forward that night (the nearest existing time is 03:30). Nothing was saved; ask the user which time they mean.` });
        return { toolCalls: [{ name: 'complete_step', input: { summary: '02:30 does not exist that night', needsClarification: true, question: 'On 14 March the clocks jump from 2:00 to 3:00, so 2:30 AM does not exist. Should I put it at 3:30 AM?' } }] };
      },
    );
    expect(springForward.isValid).toBe(true);
    expect(await send('add a call with Tokyo on March 14 2027 at 2:30am')).toBe('On 14 March the clocks jump from 2:00 to 3:00, so 2:30 AM does not exist. Should I put it at 3:30 AM?');
    expect(harness.anthropic.requests).toHaveLength(3);
    expect(await titles()).toEqual([]);
  });

  it('500 events in a month: the model sees a bounded summary and the reply stays short', async () => {
    const month = now().plus({ months: 2 }).startOf('month');
    const rows = Array.from({ length: 500 }, (_unused, index) => {
      const start = month.plus({ days: index % 28, hours: 7 + (index % 12), minutes: (index % 4) * 15 });
      return { title: `Session ${index + 1}`, start: start.toFormat(LOCAL), end: start.plus({ minutes: 15 }).toFormat(LOCAL) };
    });
    const calendar = await provider();
    for (const row of rows) await calendar.createEvent({ ...row, allDay: false, timezone: ZONE });
    let seen = '';
    harness.anthropic.enqueue(
      plan(`List the events from ${month.toISODate()} to ${month.endOf('month').toISODate()}`),
      { toolCalls: [{ name: 'get_calendar_events', input: { from: month.toISODate(), to: month.endOf('month').toISODate() } }] },
      (request) => {
        seen = toolResults(request)[0]!.content;
        const listing = JSON.parse(seen) as { count: number; shown: number; events: unknown[]; perDay: Array<{ count: number }>; note: string };
        expect(listing).toMatchObject({ count: 500, shown: 30 });
        expect(listing.events).toHaveLength(30);
        expect(listing.perDay.reduce((sum, day) => sum + day.count, 0)).toBe(500);
        expect(listing.note).toMatch(/^There are 500 events in this range; only the first 30 are listed\. Do not list them all/);
        return { toolCalls: [{ name: 'complete_step', input: { summary: '500 events', reply: `You have 500 events in ${month.toFormat('LLLL')}, about 18 a day. Want a page with all of them?` } }] };
      },
    );
    const reply = await send(`what's on in ${month.toFormat('LLLL')}?`);
    expect(reply.length).toBeLessThan(160);
    // Bounded: 30 events and a count per day, whatever the month holds.
    expect(seen.length).toBeLessThan(10_000);
    expect(harness.anthropic.requests).toHaveLength(3);
  });

  it('"remind me 30 minutes before": an ordinary reminder, delivered as reminders are', async () => {
    const start = now().plus({ minutes: 30, seconds: 4 });
    harness.anthropic.enqueue(plan(`Create "Standup" at ${start.toFormat("yyyy-MM-dd'T'HH:mm:ss")} with a reminder 30 minutes before`), {
      toolCalls: [
        { name: 'create_calendar_event', input: { title: 'Standup', start: start.toFormat("yyyy-MM-dd'T'HH:mm:ss"), durationMinutes: 15, remindMinutesBefore: 30 } },
        { name: 'complete_step', input: { summary: 'Created with a reminder', reply: "Added Standup; I'll remind you 30 minutes before.", created: [{ description: 'Standup' }] } },
      ],
    });
    expect(await send('add standup in half an hour and remind me 30 minutes before')).toBe("Added Standup; I'll remind you 30 minutes before.");
    const [reminder] = await harness.database.prisma.reminder.findMany({ where: { userId } });
    expect(reminder).toMatchObject({ text: `Standup at ${start.toFormat('h:mm a')}`, status: 'active' });
    expect(reminder!.nextDueAt!.getTime()).toBe(start.minus({ minutes: 30 }).startOf('second').toMillis());
    const fired = await harness.repliesTo(phone, 2);
    expect(fired[1]!.body).toBe(`⏰ Reminder: Standup at ${start.toFormat('h:mm a')}`);
    expect(harness.anthropic.requests).toHaveLength(2);
  });

  it('deleting an event cancels its reminder', async () => {
    const start = now().plus({ days: 2 }).startOf('hour');
    harness.anthropic.enqueue(plan('Create "Flight" with a reminder 120 minutes before'), {
      toolCalls: [
        { name: 'create_calendar_event', input: { title: 'Flight', start: start.toFormat(LOCAL), remindMinutesBefore: 120 } },
        { name: 'complete_step', input: { summary: 'Created', reply: 'Added.', created: [{ description: 'Flight' }] } },
      ],
    });
    await send('add my flight and remind me 2 hours before');
    harness.anthropic.enqueue(plan('Delete the flight'), {
      toolCalls: [
        { name: 'delete_calendar_event', input: { match: 'flight' } },
        { name: 'complete_step', input: { summary: 'Awaits confirmation', reply: 'Confirm and it goes.' } },
      ],
    });
    await send('delete the flight');
    expect(await send('yes')).toMatch(/^Deleted "Flight"/);
    expect(await titles()).toEqual([]);
    expect(await harness.database.prisma.reminder.findMany({ where: { userId } })).toMatchObject([{ status: 'cancelled' }]);
  });
  it('"am I free Friday afternoon?": free time around what is busy; three model calls', async () => {
    const friday = now().plus({ weeks: 1 }).set({ weekday: 5 }).startOf('day');
    await add({ title: 'Call with Sam', start: friday.set({ hour: 14 }).toFormat(LOCAL), end: friday.set({ hour: 15 }).toFormat(LOCAL) });
    await add({ title: 'Day off (all day)', allDay: true, start: friday.toISODate()!, end: friday.plus({ days: 1 }).toISODate()! });
    harness.anthropic.enqueue(
      plan(`Check free time on ${friday.toISODate()} from 12:00 to 18:00`),
      { toolCalls: [{ name: 'find_free_time', input: { from: friday.set({ hour: 12 }).toFormat(LOCAL), to: friday.set({ hour: 18 }).toFormat(LOCAL) } }] },
      (request) => {
        const result = JSON.parse(toolResults(request)[0]!.content) as { isFree: boolean; free: Array<{ from: string; to: string }>; busy: Array<{ title: string }>; allDay: string[] };
        expect(result).toEqual({
          isFree: false,
          free: [
            { from: friday.set({ hour: 12 }).toFormat(LOCAL), to: friday.set({ hour: 14 }).toFormat(LOCAL), minutes: 120 },
            { from: friday.set({ hour: 15 }).toFormat(LOCAL), to: friday.set({ hour: 18 }).toFormat(LOCAL), minutes: 180 },
          ],
          busy: [{ title: 'Call with Sam', when: `${friday.toFormat('ccc d LLL')}, 2:00 PM–3:00 PM` }],
          allDay: ['Day off (all day)'],
        });
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Busy 2-3', reply: 'Mostly: you have a call with Sam from 2 to 3, free 12–2 and 3–6.' } }] };
      },
    );
    expect(await send('am I free Friday afternoon?')).toBe('Mostly: you have a call with Sam from 2 to 3, free 12-2 and 3-6.');
    expect(harness.anthropic.requests).toHaveLength(3);
  });

  it('"choir every Tuesday at 6": a repeating event; moving just one Tuesday waits for YES and leaves the others', async () => {
    const tuesday = now().plus({ weeks: 1 }).set({ weekday: 2 }).startOf('day');
    harness.anthropic.enqueue(plan(`Create "Choir" every Tuesday at 18:00 starting ${tuesday.toISODate()}`), {
      toolCalls: [
        { name: 'create_calendar_event', input: { title: 'Choir', start: tuesday.set({ hour: 18 }).toFormat(LOCAL), durationMinutes: 90, recurrence: { frequency: 'weekly', weekdays: ['TU'] } } },
        { name: 'complete_step', input: { summary: 'Created', reply: 'Choir is on your calendar every Tuesday at 6.', created: [{ description: 'Choir' }] } },
      ],
    });
    expect(await send('choir every Tuesday at 6')).toBe('Choir is on your calendar every Tuesday at 6.');
    const second = tuesday.plus({ weeks: 1 });
    harness.anthropic.enqueue(plan(`Move the Choir on ${second.toISODate()} to 19:00 (only that one)`), {
      toolCalls: [
        { name: 'update_calendar_event', input: { match: 'choir', date: second.toISODate(), start: second.set({ hour: 19 }).toFormat(LOCAL), scope: 'this' } },
        { name: 'complete_step', input: { summary: 'Awaits confirmation', reply: 'Say yes and I will move that one.' } },
      ],
    });
    expect(await send('move choir on the 2nd Tuesday to 7')).toBe(`Say yes and I will move that one.\n\nMove "Choir" from ${second.toFormat('ccc d LLL')}, 6:00 PM to ${second.toFormat('ccc d LLL')}, 7:00 PM? Reply YES or NO.`);
    expect(await send('yes')).toBe(`Moved "Choir" to ${second.toFormat('ccc d LLL')}, 7:00 PM.`);
    const listed = await (await provider()).listEvents({ from: tuesday.toJSDate(), to: tuesday.plus({ weeks: 3 }).toJSDate() }, ZONE);
    expect(listed.map((event) => [event.start, event.end])).toEqual([
      [tuesday.set({ hour: 18 }).toFormat(LOCAL), tuesday.set({ hour: 19, minute: 30 }).toFormat(LOCAL)],
      [second.set({ hour: 19 }).toFormat(LOCAL), second.set({ hour: 20, minute: 30 }).toFormat(LOCAL)],
      [tuesday.plus({ weeks: 2, hours: 18 }).toFormat(LOCAL), tuesday.plus({ weeks: 2, hours: 19, minutes: 30 }).toFormat(LOCAL)],
    ]);
    expect(harness.anthropic.requests).toHaveLength(4);
  });

  it('a repeating event\'s reminder follows one moved occurrence, skips a deleted one, and goes with the series', async () => {
    const tuesday = now().plus({ weeks: 1 }).set({ weekday: 2 }).startOf('day');
    const [second, third] = [tuesday.plus({ weeks: 1 }), tuesday.plus({ weeks: 2 })];
    harness.anthropic.enqueue(plan(`Create "Choir" every Tuesday at 18:00 from ${tuesday.toISODate()}, reminder 30 minutes before`), {
      toolCalls: [
        { name: 'create_calendar_event', input: { title: 'Choir', start: tuesday.set({ hour: 18 }).toFormat(LOCAL), durationMinutes: 90, recurrence: { frequency: 'weekly', weekdays: ['TU'] }, remindMinutesBefore: 30 } },
        { name: 'complete_step', input: { summary: 'Created', reply: 'Choir every Tuesday at 6; reminders at 5:30.', created: [{ description: 'Choir' }] } },
      ],
    });
    await send('choir every Tuesday at 6, remind me 30 minutes before');
    const prisma = harness.database.prisma;
    const [series] = await prisma.reminder.findMany({ where: { userId } });
    expect(series).toMatchObject({ text: 'Choir at 6:00 PM', rrule: expect.stringContaining('BYDAY=TU') });

    const change = (input: Record<string, unknown>, task: string) =>
      harness.anthropic.enqueue(plan(task), { toolCalls: [{ name: input.start ? 'update_calendar_event' : 'delete_calendar_event', input }, { name: 'complete_step', input: { summary: 'Awaits confirmation', reply: 'Say yes.' } }] });
    change({ match: 'choir', date: second.toISODate(), start: second.set({ hour: 19 }).toFormat(LOCAL), scope: 'this' }, 'Move one choir to 19:00');
    await send('move choir on the 2nd Tuesday to 7');
    expect(await send('yes')).toBe(`Moved "Choir" to ${second.toFormat('ccc d LLL')}, 7:00 PM.`);
    change({ match: 'choir', date: third.toISODate(), scope: 'this' }, 'Delete one choir');
    await send('no choir on the 3rd Tuesday');
    expect(await send('yes')).toMatch(/^Deleted "Choir"/);

    const skipped = await prisma.reminderDelivery.findMany({ where: { reminderId: series!.id }, orderBy: { dueAt: 'asc' } });
    expect(skipped.map((row) => [row.dueAt.getTime(), row.status])).toEqual([
      [second.set({ hour: 17, minute: 30 }).toMillis(), 'skipped'],
      [third.set({ hour: 17, minute: 30 }).toMillis(), 'skipped'],
    ]);
    const own = await prisma.reminder.findMany({ where: { userId, id: { not: series!.id } } });
    expect(own).toMatchObject([{ text: 'Choir at 7:00 PM', rrule: null, status: 'active', nextDueAt: second.set({ hour: 18, minute: 30 }).toJSDate() }]);

    change({ match: 'choir', date: tuesday.toISODate(), scope: 'all' }, 'Delete every choir');
    await send('cancel choir altogether');
    expect(await send('yes')).toMatch(/^Deleted every "Choir"/);
    expect((await prisma.reminder.findMany({ where: { userId } })).map((reminder) => reminder.status)).toEqual(['cancelled', 'cancelled']);
    expect(await prisma.calendarEventReminder.count({ where: { userId } })).toBe(0);
  });

  // Last: it stops and restarts Herald's workers (the app is closed by stop).
  it('a YES racing its own Twilio retry, and a second YES, delete the event once', async () => {
    const day = now().plus({ days: 4 }).startOf('day');
    await add({ title: 'Dentist', start: day.set({ hour: 11 }).toFormat(LOCAL), end: day.set({ hour: 12 }).toFormat(LOCAL) });
    harness.anthropic.enqueue(plan('Delete the dentist appointment'), {
      toolCalls: [
        { name: 'delete_calendar_event', input: { match: 'dentist' } },
        { name: 'complete_step', input: { summary: 'Awaits confirmation', reply: 'Once you confirm, it goes.' } },
      ],
    });
    await send('delete the dentist');
    const before = harness.twilio.messages.filter((message) => message.to === phone).length;
    const sid = messageSid();
    const responses = await Promise.all([harness.inbound({ from: phone, body: 'yes', sid }), harness.inbound({ from: phone, body: 'yes', sid }), harness.inbound({ from: phone, body: 'YES', sid: messageSid() })]);
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    const done = `Deleted "Dentist" on ${day.toFormat('ccc d LLL')}, 11:00 AM.`;
    expect((await harness.repliesTo(phone, before + 1)).slice(before)[0]!.body).toBe(done);
    await harness.idle(phone);
    const all = harness.twilio.messages.filter((message) => message.to === phone).slice(before).map((message) => message.body);
    expect(all.filter((body) => body === done)).toHaveLength(1);
    expect(all.every((body) => body === done || body === 'That is already done.')).toBe(true);
    expect(await confirmations()).toMatchObject([{ status: 'done', outcome: [{ ok: true }] }]);
    expect(await titles()).toEqual([]);
    expect(harness.anthropic.requests).toHaveLength(2);
  });
});
