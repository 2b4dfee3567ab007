import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { say } from '../../src/texts/texts.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { eventually } from '../helpers/eventually.js';
import { textingUser } from '../helpers/texting-user.js';

/**
 * Quiet hours (issue 21 item 8), through the webhook: set by text without a model, and
 * holding Herald's own progress message ("on it") while they last.
 */
describe('quiet hours', () => {
  const clock = new ManualClock('2026-11-24T15:00:00Z');
  // Every plan is "long": the progress message is due at once.
  const chat = textingUser({ clock, startAt: '2026-11-24T15:00:00Z', firstPhone: 7300, harness: { env: { PROGRESS_AFTER_MS: '1', QUIET_HOURS: '22:00-07:00' } } });
  const quietHours = async () => (await chat.harness.database.prisma.user.findUniqueOrThrow({ where: { id: chat.userId } })).quietHours;

  it('are set by text, without a model', async () => {
    expect(await chat.send("Don't text me after 9 pm")).toBe(say('en', 'quietSet', { start: '21:00', end: '07:00' }));
    expect(await quietHours()).toBe('21:00-07:00');
    expect(await chat.send('no messages before 8:30 am')).toBe(say('en', 'quietSet', { start: '21:00', end: '08:30' }));
    expect(await chat.send('quiet hours 23:00-06:00')).toBe(say('en', 'quietSet', { start: '23:00', end: '06:00' }));
    expect(await chat.send('No quiet hours')).toBe(say('en', 'quietOff'));
    expect(await quietHours()).toBe('off');
    expect(chat.harness.anthropic.requests).toHaveLength(0);
  });

  it('are set by the profile tool when the words are not ones the model-free answer reads', async () => {
    chat.harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'Quiet hours', goal: 'Quiet hours from 21:30', steps: [{ id: 'step_1', agent: 'memory-agent', task: 'Set quiet hours to 21:30-07:00' }] } }] },
      {
        toolCalls: [
          { name: 'update_profile', input: { quietHours: '21:30-07:00' } },
          { name: 'complete_step', input: { summary: 'Quiet hours set', reply: 'לא אשלח הודעות אחרי 21:30.', updated: [{ description: 'Quiet hours 21:30-07:00' }] } },
        ],
      },
    );
    // (This file's plans are all "long": an "on it" message comes first, by day.)
    const before = chat.harness.twilio.messages.filter((message) => message.to === chat.phone).length;
    await chat.harness.inbound({ from: chat.phone, body: 'אל תשלח לי הודעות אחרי תשע וחצי בערב' });
    expect((await chat.harness.repliesTo(chat.phone, before + 2))[before + 1]!.body).toBe('לא אשלח הודעות אחרי 21:30.');
    expect(await quietHours()).toBe('21:30-07:00');
  });

  /** The planner answers only once the turn has decided about its progress message (sent, or held). */
  function slowAnswer(decided: () => Promise<boolean>): ScriptedAnthropicResponse {
    return async () => {
      await eventually(async () => ((await decided()) ? true : undefined), 'the progress message sent or held');
      return { text: 'Here is your long answer.' };
    };
  }
  const progressSent = async () => (await chat.harness.database.prisma.message.count({ where: { userId: chat.userId, kind: 'progress' } })) > 0;

  it('hold the progress message at night; by day it is sent', async () => {
    // 23:30 in New York.
    clock.set('2026-11-25T04:30:00Z');
    const held = () => Promise.resolve(chat.harness.logs.lines.some((line) => line.event === 'progress_held' && line.userId === chat.userId));
    chat.harness.anthropic.enqueue(slowAnswer(held));
    expect(await chat.send('Plan my whole week please')).toBe('Here is your long answer.');
    expect(await progressSent()).toBe(false);

    // 10:00 the next morning.
    clock.set('2026-11-25T15:00:00Z');
    chat.harness.anthropic.enqueue(slowAnswer(progressSent));
    const before = chat.harness.twilio.messages.filter((message) => message.to === chat.phone).length;
    await chat.harness.inbound({ from: chat.phone, body: 'Plan my whole week please' });
    const sent = await chat.harness.repliesTo(chat.phone, before + 2);
    expect(sent[before + 1]!.body).toBe('Here is your long answer.');
  });
});

describe('quiet hours hold notices', () => {
  // After the real clock, so the held notice's job is not due while the test runs.
  const clock = new ManualClock('2027-02-03T04:30:00Z');
  const OWNER = '+12125550970';
  const chat = textingUser({ clock, startAt: '2027-02-03T04:30:00Z', firstPhone: 7350, harness: { env: { ACCESS_MODE: 'invite', OWNER_PHONES: OWNER, QUIET_HOURS: '22:00-07:00' } } });

  it("an invite's welcome at 23:30 waits for 07:00 in the invitee's time", async () => {
    const friend = '+12125550978';
    const before = chat.harness.twilio.messages.length;
    await chat.send(`INVITE ${friend} Hi, this is Sam's assistant`, { from: OWNER });
    await chat.harness.idle(OWNER);
    expect(chat.harness.twilio.messages.slice(before).filter((message) => message.to === friend)).toEqual([]);
    const { rows } = await chat.harness.database.pool.query<{ data: { phone: string; text: string }; start_after: Date }>(
      `SELECT data, start_after FROM pgboss.job WHERE name = 'held-notice' AND data->>'phone' = $1`,
      [friend],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.data.text).toContain("Hi, this is Sam's assistant");
    // 07:00 in New York on 3 February.
    expect(rows[0]!.start_after).toEqual(new Date('2027-02-03T12:00:00Z'));
  });
});
