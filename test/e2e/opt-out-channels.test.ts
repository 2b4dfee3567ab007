import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import type { HeraldHarness } from '../helpers/herald-harness.js';
import { textingUser } from '../helpers/texting-user.js';

/**
 * Opt-out words by channel (issue 19, item 6), through the webhook. SMS keeps the carrier
 * rules (Twilio enforces them anyway): CANCEL unsubscribes, and drops a pending question.
 * On WhatsApp only STOP, UNSUBSCRIBE and הסר opt out: CANCEL declines a pending question,
 * END and QUIT are ordinary words.
 */
describe('opt-out words by channel', () => {
  const clock = new ManualClock('2030-03-04T13:00:00Z');
  const user = textingUser({ clock, startAt: '2030-03-04T13:00:00Z', firstPhone: 4700 });
  let harness: HeraldHarness;
  let phone: string;
  let userId: string;
  beforeEach(async () => {
    ({ harness, phone, userId } = user);
    await harness.herald.lists.addItems(userId, 'packing', ['passport', 'charger']);
  });

  const deletePacking: ScriptedAnthropicResponse[] = [
    { toolCalls: [{ name: 'create_plan', input: { analysis: 'Delete a list', goal: 'Delete the packing list', steps: [{ id: 'step_1', agent: 'list-agent', task: 'Delete the packing list' }] } }] },
    { toolCalls: [{ name: 'delete_list', input: { name: 'packing' } }, { name: 'complete_step', input: { summary: 'Awaits the YES', reply: 'Your packing list will go once you confirm.' } }] },
  ];

  const send = (from: string, body: string) => user.send(body, { from });
  const stored = () => harness.database.prisma.user.findUniqueOrThrow({ where: { id: userId } });
  const questions = () => harness.database.prisma.pendingQuestion.findMany({ where: { userId } });
  const listNames = async () => (await harness.database.prisma.list.findMany({ where: { userId } })).map((list) => list.name);

  it('WhatsApp: CANCEL declines a pending confirmation; the user stays subscribed; the question never suggested CANCEL or STOP', async () => {
    const whatsapp = `whatsapp:${phone}`;
    harness.anthropic.enqueue(...deletePacking);
    const asked = await send(whatsapp, 'delete my packing list');
    expect(asked).toBe('Your packing list will go once you confirm.\n\nDelete the "packing" list and its 2 items? Reply YES or NO.');
    expect(asked).not.toMatch(/CANCEL|STOP/);
    expect(await send(whatsapp, 'cancel')).toBe("OK, I won't do that.");
    expect(await stored()).toMatchObject({ optedOut: false });
    expect(await questions()).toMatchObject([{ status: 'cancelled' }]);
    expect(await listNames()).toEqual(['packing']);
    expect(harness.anthropic.requests).toHaveLength(2);
  });

  it.each(['END', 'quit'])('WhatsApp: "%s" is an ordinary message for the model', async (word) => {
    harness.anthropic.enqueue({ text: 'Anything else I can do?' });
    expect(await send(`whatsapp:${phone}`, word)).toBe('Anything else I can do?');
    expect(await stored()).toMatchObject({ optedOut: false });
    expect(harness.anthropic.requests).toHaveLength(1);
  });

  it.each(['STOP', 'unsubscribe', 'הסר'])('WhatsApp: "%s" opts out, with no model call', async (word) => {
    const reply = await send(`whatsapp:${phone}`, word);
    expect(reply).toMatch(/^(You're unsubscribed|הוסרתם מהרשימה)/);
    expect(await stored()).toMatchObject({ optedOut: true });
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it('SMS: CANCEL while a confirmation is pending unsubscribes (as Twilio does) and drops the confirmation', async () => {
    harness.anthropic.enqueue(...deletePacking);
    await send(phone, 'delete my packing list');
    expect(await send(phone, 'CANCEL')).toMatch(/^You're unsubscribed/);
    expect(await stored()).toMatchObject({ optedOut: true });
    expect(await questions()).toMatchObject([{ status: 'cancelled' }]);
    // A YES after START finds nothing to confirm.
    expect(await send(phone, 'START')).toMatch(/^Welcome back/);
    harness.anthropic.enqueue({ text: 'Yes to what?' });
    expect(await send(phone, 'yes')).toBe('Yes to what?');
    expect(await listNames()).toEqual(['packing']);
  });
});
