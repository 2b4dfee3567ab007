import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { say } from '../../src/texts/texts.js';
import { textingUser } from '../helpers/texting-user.js';

/**
 * Travel (issue 21 item 8), through the webhook: the turn that moves the user to another
 * time zone asks once whether their repeating reminders follow (YES: 9:00 stays 9:00 where
 * they are) or stay on home time (NO); a one-off reminder is an instant and never moves.
 */
describe('travel', () => {
  // Far enough ahead of the real clock that no reminder job fires during the test.
  const clock = new ManualClock('2027-01-11T15:00:00Z');
  const chat = textingUser({ clock, startAt: '2027-01-11T15:00:00Z', firstPhone: 7400 });
  const prisma = () => chat.harness.database.prisma;

  async function withReminders() {
    const daily = await chat.harness.herald.reminders.create(chat.userId, 'America/New_York', { text: 'Take vitamins', at: '2027-01-12T09:00', recurrence: { frequency: 'daily' } });
    const once = await chat.harness.herald.reminders.create(chat.userId, 'America/New_York', { text: 'Call Ben', at: '2027-01-13T15:00' });
    if (!daily.ok || !once.ok) throw new Error('reminders not created');
    return { daily: daily.value.id, once: once.value.id };
  }
  function movesToTokyo() {
    chat.harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'Travel', goal: 'Set the time zone to Tokyo', steps: [{ id: 'step_1', agent: 'memory-agent', task: 'Set the time zone to Asia/Tokyo' }] } }] },
      {
        toolCalls: [
          { name: 'update_profile', input: { timezone: 'Asia/Tokyo' } },
          { name: 'complete_step', input: { summary: 'Time zone set', reply: "You're on Tokyo time now.", updated: [{ description: 'Time zone: Asia/Tokyo' }] } },
        ],
      },
    );
  }
  const question = say('en', 'travelQuestion', { zone: 'Tokyo', home: 'New York' });

  it('asks once; YES moves the repeating reminder to 9:00 Tokyo time and leaves the one-off where it was', async () => {
    const { daily, once } = await withReminders();
    const onceBefore = await prisma().reminder.findUniqueOrThrow({ where: { id: once } });
    movesToTokyo();
    expect(await chat.send("I'm in Tokyo until Friday")).toBe(`You're on Tokyo time now.\n\n${question}`);
    expect(await chat.send('YES')).toBe(say('en', 'travelMoved', { zone: 'Tokyo' }));

    const moved = await prisma().reminder.findUniqueOrThrow({ where: { id: daily } });
    expect(moved.timezone).toBe('Asia/Tokyo');
    // 09:00 on 12 January in Tokyo (UTC+9).
    expect(moved.nextDueAt).toEqual(new Date('2027-01-12T00:00:00Z'));
    const oneOff = await prisma().reminder.findUniqueOrThrow({ where: { id: once } });
    expect([oneOff.timezone, oneOff.nextDueAt]).toEqual([onceBefore.timezone, onceBefore.nextDueAt]);
  });

  it('a routine moves with the reminders: asked about even when it is the only thing on home time, 07:00 stays 07:00', async () => {
    const created = await chat.harness.herald.routines.create(chat.userId, 'America/New_York', { name: 'morning brief', instruction: 'a short brief of my day', at: '2027-01-12T07:00', recurrence: { frequency: 'daily' } });
    if (!created.ok) throw new Error(created.error);
    movesToTokyo();
    expect(await chat.send("I'm in Tokyo until Friday")).toBe(`You're on Tokyo time now.\n\n${question}`);
    expect(await chat.send('YES')).toBe(say('en', 'travelMoved', { zone: 'Tokyo' }));
    const routine = await prisma().routine.findUniqueOrThrow({ where: { id: created.value.id } });
    expect(routine.timezone).toBe('Asia/Tokyo');
    // 07:00 on 12 January in Tokyo (UTC+9), with its job.
    expect(routine.nextDueAt).toEqual(new Date('2027-01-11T22:00:00Z'));
    const { rows } = await chat.harness.database.pool.query<{ due: string }>(`SELECT data->>'dueAt' AS due FROM pgboss.job WHERE name = 'routine' AND data->>'routineId' = $1`, [routine.id]);
    expect(rows.map((row) => row.due)).toContain('2027-01-11T22:00:00.000Z');
  });

  it('NO keeps them on home time, and the next message asks nothing', async () => {
    const { daily } = await withReminders();
    const before = await prisma().reminder.findUniqueOrThrow({ where: { id: daily } });
    movesToTokyo();
    expect(await chat.send("I'm in Tokyo for the week")).toContain(question);
    await chat.send('NO');
    const after = await prisma().reminder.findUniqueOrThrow({ where: { id: daily } });
    expect([after.timezone, after.nextDueAt]).toEqual([before.timezone, before.nextDueAt]);

    chat.harness.anthropic.enqueue({ text: 'Konnichiwa!' });
    expect(await chat.send('hello')).toBe('Konnichiwa!');
  });
});

describe('travel, changed on the profile page', () => {
  const clock = new ManualClock('2027-01-11T15:00:00Z');
  const chat = textingUser({ clock, startAt: '2027-01-11T15:00:00Z', firstPhone: 7450 });

  it('asks at the next message, once', async () => {
    const daily = await chat.harness.herald.reminders.create(chat.userId, 'America/New_York', { text: 'Stretch', at: '2027-01-12T09:00', recurrence: { frequency: 'daily' } });
    expect(daily.ok).toBe(true);
    chat.harness.anthropic.enqueue({ text: 'Hi!' });
    expect(await chat.send('hi')).toBe('Hi!');
    // The profile page's form saves through UserService, outside any turn.
    await chat.harness.herald.users.updateProfile(chat.userId, { timezone: 'Europe/Lisbon' });
    chat.harness.anthropic.enqueue({ text: 'Bom dia!' }, { text: 'Olá!' });
    expect(await chat.send('morning')).toBe(`Bom dia!\n\n${say('en', 'travelQuestion', { zone: 'Lisbon', home: 'New York' })}`);
    expect(await chat.send('and hello')).toBe('Olá!');
  });
});
