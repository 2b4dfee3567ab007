import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { say } from '../../src/texts/texts.js';
import { textingUser } from '../helpers/texting-user.js';

/**
 * A trip's return date (issue 21 item 8), through the webhook: "I'm in Tokyo until Friday" sets
 * the zone to Tokyo until the end of Friday there; then the trip's job (run here by hand under
 * the fake clock, as pg-boss would run it at that instant) sets the zone back to New York, moves
 * the repeating reminders and routines back when the user's YES moved them for the trip, and
 * sends one notice. Monday 11 January 2027; "Friday" is the 15th, so the return is Saturday 16
 * January 00:00 in Tokyo, 15:00 UTC on the 15th (10:00 in New York).
 */
describe('travel: the return date', () => {
  const clock = new ManualClock('2027-01-11T15:00:00Z');
  const chat = textingUser({ clock, startAt: '2027-01-11T15:00:00Z', firstPhone: 7500 });
  const prisma = () => chat.harness.database.prisma;
  const herald = () => chat.harness.herald;
  const RETURN = '2027-01-15T15:00:00Z';
  const question = say('en', 'travelQuestion', { zone: 'Tokyo', home: 'New York' });

  async function dailyReminder() {
    const daily = await herald().reminders.create(chat.userId, 'America/New_York', { text: 'Take vitamins', at: '2027-01-12T09:00', recurrence: { frequency: 'daily' } });
    if (!daily.ok) throw new Error(daily.error);
    return daily.value.id;
  }
  /** The plan and memory-agent's step for one update_profile call, replying `reply` when it works. */
  function profileStep(input: Record<string, unknown>, reply: string) {
    chat.harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'Travel', goal: 'Set the trip', steps: [{ id: 'step_1', agent: 'memory-agent', task: 'Set the time zone and trip' }] } }] },
      { toolCalls: [{ name: 'update_profile', input }, { name: 'complete_step', input: { summary: 'Trip set', reply, updated: [{ description: 'Time zone' }] } }] },
    );
  }
  /** The trip; `answer` to the travel question (none: nothing repeats, so nothing is asked). */
  async function toTokyoUntilFriday(answer?: 'YES' | 'NO') {
    profileStep({ timezone: 'Asia/Tokyo', returnOn: '2027-01-15' }, "You're on Tokyo time until Friday.");
    expect(await chat.send("I'm in Tokyo until Friday")).toBe(answer ? `You're on Tokyo time until Friday.\n\n${question}` : "You're on Tokyo time until Friday.");
    if (answer) await chat.send(answer);
    return prisma().trip.findUniqueOrThrow({ where: { userId: chat.userId } });
  }
  const zone = async () => (await prisma().user.findUniqueOrThrow({ where: { id: chat.userId } })).timezone;
  const sentTo = () => chat.harness.twilio.messages.filter((message) => message.to === chat.phone).length;

  it('YES for the trip: at the return instant the zone, the reminders and the routines are home again at the same local hour, with one notice', async () => {
    const daily = await dailyReminder();
    const routine = await herald().routines.create(chat.userId, 'America/New_York', { name: 'morning brief', instruction: 'a short brief of my day', at: '2027-01-12T07:00', recurrence: { frequency: 'daily' } });
    if (!routine.ok) throw new Error(routine.error);
    const trip = await toTokyoUntilFriday('YES');
    expect(trip).toMatchObject({ homeTimezone: 'America/New_York', timezone: 'Asia/Tokyo', returnOn: '2027-01-15', returnAt: new Date(RETURN), movesReminders: true });
    expect(await zone()).toBe('Asia/Tokyo');
    expect((await prisma().reminder.findUniqueOrThrow({ where: { id: daily } })).timezone).toBe('Asia/Tokyo');
    // Its job waits in pg-boss for the return instant.
    const { rows } = await chat.harness.database.pool.query<{ start: Date }>(`SELECT start_after AS start FROM pgboss.job WHERE name = 'travel-return' AND data->>'tripId' = $1`, [trip.id]);
    expect(rows.map((row) => row.start.toISOString())).toEqual(['2027-01-15T15:00:00.000Z']);

    // Friday evening in Tokyo is still the trip: a job run early changes nothing.
    clock.set('2027-01-15T14:59:00Z');
    expect(await herald().travelReturn.run({ tripId: trip.id, userId: chat.userId })).toEqual({ kind: 'early', at: new Date(RETURN) });
    expect(await zone()).toBe('Asia/Tokyo');

    clock.set(RETURN);
    const before = sentTo();
    expect(await herald().travelReturn.run({ tripId: trip.id, userId: chat.userId })).toEqual({ kind: 'returned', moved: 2, notified: true });
    expect(await zone()).toBe('America/New_York');
    const reminder = await prisma().reminder.findUniqueOrThrow({ where: { id: daily } });
    // 09:00 on Saturday 16 January in New York (UTC-5).
    expect([reminder.timezone, reminder.nextDueAt]).toEqual(['America/New_York', new Date('2027-01-16T14:00:00Z')]);
    const brief = await prisma().routine.findUniqueOrThrow({ where: { id: routine.value.id } });
    expect([brief.timezone, brief.nextDueAt]).toEqual(['America/New_York', new Date('2027-01-16T12:00:00Z')]);
    const notice = (await chat.harness.repliesTo(chat.phone, before + 1))[before]!.body;
    expect(notice).toBe(say('en', 'travelReturnedMoved', { home: 'New York' }));

    // Exactly once: the job again (a retry, a second instance) finds no trip; nothing more is sent.
    expect(await herald().travelReturn.run({ tripId: trip.id, userId: chat.userId })).toEqual({ kind: 'gone' });
    expect(await prisma().trip.count({ where: { userId: chat.userId } })).toBe(0);
    // The return is not a zone change to ask about.
    chat.harness.anthropic.enqueue({ text: 'Welcome home!' });
    expect(await chat.send("hi, I'm home")).toBe('Welcome home!');
    expect(sentTo()).toBe(before + 2);
  });

  it('NO for the trip: the zone comes home, nothing moves, and the notice says only the zone', async () => {
    const daily = await dailyReminder();
    const before = await prisma().reminder.findUniqueOrThrow({ where: { id: daily } });
    const trip = await toTokyoUntilFriday('NO');
    expect(trip.movesReminders).toBe(false);
    clock.set(RETURN);
    const sent = sentTo();
    expect(await herald().travelReturn.run({ tripId: trip.id, userId: chat.userId })).toEqual({ kind: 'returned', moved: 0, notified: true });
    expect(await zone()).toBe('America/New_York');
    const after = await prisma().reminder.findUniqueOrThrow({ where: { id: daily } });
    expect([after.timezone, after.nextDueAt, after.updatedAt]).toEqual([before.timezone, before.nextDueAt, before.updatedAt]);
    expect((await chat.harness.repliesTo(chat.phone, sent + 1))[sent]!.body).toBe(say('en', 'travelReturned', { home: 'New York' }));
  });

  it('extended before it ends ("staying until next Wednesday"): the old return does nothing, the new date returns, and the YES still holds', async () => {
    const daily = await dailyReminder();
    const first = await toTokyoUntilFriday('YES');
    chat.harness.anthropic.reset();
    profileStep({ returnOn: '2027-01-20' }, "OK, Tokyo time until Wednesday.");
    expect(await chat.send("I'm staying in Tokyo until next Wednesday")).toBe('OK, Tokyo time until Wednesday.');
    // The planner and memory-agent both see the trip, so "until next Wednesday" and "I'm back" have something to change.
    expect(chat.harness.anthropic.requests).toHaveLength(2);
    for (const request of chat.harness.anthropic.requests) expect(request.systemText()).toContain('<trip>travelling until 2027-01-15 inclusive; then back to their home time zone, America/New_York</trip>');
    const second = await prisma().trip.findUniqueOrThrow({ where: { userId: chat.userId } });
    expect(second.id).not.toBe(first.id);
    expect(second).toMatchObject({ homeTimezone: 'America/New_York', timezone: 'Asia/Tokyo', returnOn: '2027-01-20', returnAt: new Date('2027-01-20T15:00:00Z'), movesReminders: true });

    // The first trip's job still runs at Friday's return: outdated, it finds nothing.
    clock.set(RETURN);
    expect(await herald().travelReturn.run({ tripId: first.id, userId: chat.userId })).toEqual({ kind: 'gone' });
    expect(await zone()).toBe('Asia/Tokyo');
    expect((await prisma().reminder.findUniqueOrThrow({ where: { id: daily } })).timezone).toBe('Asia/Tokyo');

    clock.set('2027-01-20T15:00:00Z');
    const sent = sentTo();
    // A job lost with its process: the sweep enqueues it again from the trip's due time.
    clock.advance(120_000);
    expect(await herald().travelReturn.recoverOverdue()).toBe(1);
    expect(await herald().travelReturn.run({ tripId: second.id, userId: chat.userId })).toEqual({ kind: 'returned', moved: 1, notified: true });
    expect(await zone()).toBe('America/New_York');
    expect((await prisma().reminder.findUniqueOrThrow({ where: { id: daily } })).nextDueAt).toEqual(new Date('2027-01-21T14:00:00Z'));
    expect((await chat.harness.repliesTo(chat.phone, sent + 1))[sent]!.body).toBe(say('en', 'travelReturnedMoved', { home: 'New York' }));
  });

  it('back early ("I\'m back home"): home now, what moved moves back, no question and no notice', async () => {
    const daily = await dailyReminder();
    const trip = await toTokyoUntilFriday('YES');
    clock.set('2027-01-13T03:00:00Z');
    profileStep({ backHome: true }, "Welcome back, you're on New York time.");
    expect(await chat.send("I'm back home")).toBe("Welcome back, you're on New York time.");
    expect(await zone()).toBe('America/New_York');
    expect((await prisma().reminder.findUniqueOrThrow({ where: { id: daily } })).timezone).toBe('America/New_York');
    expect(await prisma().trip.count({ where: { userId: chat.userId } })).toBe(0);
    expect(await herald().travelReturn.run({ tripId: trip.id, userId: chat.userId })).toEqual({ kind: 'gone' });
  });

  it('another zone without a return date ends the trip: its return changes nothing back', async () => {
    const trip = await toTokyoUntilFriday();
    profileStep({ timezone: 'Europe/Lisbon' }, "You're on Lisbon time now.");
    expect(await chat.send('Actually I moved to Lisbon')).toBe("You're on Lisbon time now.");
    expect(await prisma().trip.count({ where: { userId: chat.userId } })).toBe(0);
    clock.set(RETURN);
    expect(await herald().travelReturn.run({ tripId: trip.id, userId: chat.userId })).toEqual({ kind: 'gone' });
    expect(await zone()).toBe('Europe/Lisbon');
  });

  it('never asked (nothing repeats) and quiet hours at the return: the zone is home at once, the notice waits for them to end', async () => {
    await toTokyoUntilFriday();
    const trip = await prisma().trip.findUniqueOrThrow({ where: { userId: chat.userId } });
    // 10:00 in New York at the return: inside these quiet hours, which end at 12:00 (17:00 UTC).
    await prisma().user.update({ where: { id: chat.userId }, data: { quietHours: '09:00-12:00' } });
    clock.set(RETURN);
    const sent = sentTo();
    expect(await herald().travelReturn.run({ tripId: trip.id, userId: chat.userId })).toEqual({ kind: 'held', until: new Date('2027-01-15T17:00:00Z') });
    expect(await zone()).toBe('America/New_York');
    clock.set('2027-01-15T17:00:00Z');
    expect(await herald().travelReturn.run({ tripId: trip.id, userId: chat.userId })).toEqual({ kind: 'returned', moved: 0, notified: true });
    expect((await chat.harness.repliesTo(chat.phone, sent + 1))[sent]!.body).toBe(say('en', 'travelReturned', { home: 'New York' }));
  });

  it.each([
    ['a past date', '2027-01-08', 'is in the past: today is 2027-01-12 in Asia/Tokyo'],
    ['a date more than a year away', '2028-03-01', 'more than a year away'],
    ['a date that does not exist', '2027-02-30', 'must be a real date'],
  ])('refuses %s with a clear tool error, and changes nothing', async (_name, returnOn, error) => {
    chat.harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'Travel', goal: 'Set the trip', steps: [{ id: 'step_1', agent: 'memory-agent', task: 'Set the time zone and trip' }] } }] },
      { toolCalls: [{ name: 'update_profile', input: { timezone: 'Asia/Tokyo', returnOn } }] },
      { toolCalls: [{ name: 'complete_step', input: { summary: 'Refused', reply: 'Until when are you away?' } }] },
    );
    expect(await chat.send("I'm in Tokyo until last Friday")).toBe('Until when are you away?');
    const shown = chat.harness.anthropic.requests.at(-1)!.allText();
    expect(shown).toContain(error);
    expect(await zone()).toBe('America/New_York');
    expect(await prisma().trip.count({ where: { userId: chat.userId } })).toBe(0);
  });
});
