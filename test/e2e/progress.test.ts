import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { plainSmsPunctuation } from '../../src/channels/sms-encoding.js';
import { progressMessage } from '../../src/texts/fallback-replies.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';

/**
 * docs/ARCHITECTURE.md "The orchestrator", step 7: a plan still running after PROGRESS_AFTER_MS sends one "on it"
 * text (outbound kind "progress"), delivered at once, before the reply. A fast turn sends
 * none. Here the limit is 400 ms (a warm direct turn takes well under 200 ms on this
 * harness) and the slow sub-agent answers after 1 s.
 */
describe('progress messages', () => {
  let harness: HeraldHarness;
  let phoneCounter = 0;
  const nextPhone = () => `+1415555${String(3000 + (phoneCounter += 1))}`;
  // Sent on SMS: its dash goes out as a plain hyphen (GSM-7).
  const onIt = plainSmsPunctuation(progressMessage(null));

  const memoryPlan: ScriptedAnthropicResponse = {
    toolCalls: [
      {
        name: 'create_plan',
        input: {
          analysis: 'A fact to save',
          goal: 'Remember where the car is parked',
          steps: [{ id: 'step_1', agent: 'memory-agent', task: 'Save this fact: the user parked on level 3 (category routine, subject parking).' }],
        },
      },
    ],
  };
  const saveParking = (reply: string): ScriptedAnthropicResponse => ({
    toolCalls: [
      { name: 'remember_fact', input: { category: 'routine', subject: 'parking', content: 'Parked on level 3' } },
      { name: 'complete_step', input: { summary: 'Saved 1 fact', reply, created: [{ description: 'Parked on level 3' }] } },
    ],
  });

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { PROGRESS_AFTER_MS: '400' } });
  });
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  async function outbound(phone: string) {
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });
    return harness.database.prisma.outboundMessage.findMany({ where: { userId: user.id }, orderBy: { createdAt: 'asc' } });
  }

  it('a slow sub-agent: "on it" first, then the reply — exactly two texts (2 calls)', async () => {
    const phone = nextPhone();
    harness.anthropic.enqueue(memoryPlan, { delayMs: 1000, then: saveParking('Saved: you parked on level 3.') });
    await harness.inbound({ from: phone, body: 'remember I parked on level 3' });
    const texts = await harness.replies(2);

    expect(texts.map((text) => [text.to, text.body])).toEqual([
      [phone, onIt],
      [phone, 'Saved: you parked on level 3.'],
    ]);
    expect(harness.anthropic.requests).toHaveLength(2);
    const rows = await outbound(phone);
    expect(rows.map((row) => row.kind)).toEqual(['progress', 'reply']);
    // Both belong to the same turn.
    expect(new Set(rows.map((row) => row.turnId)).size).toBe(1);
    expect(harness.twilio.messages).toHaveLength(2);
  });

  it('a plan running four times the limit still sends only one "on it" (3 calls)', async () => {
    const phone = nextPhone();
    harness.anthropic.enqueue(
      memoryPlan,
      { delayMs: 900, then: { toolCalls: [{ name: 'get_user_facts', input: {} }] } },
      { delayMs: 900, then: saveParking('Saved: level 3.') },
    );
    await harness.inbound({ from: phone, body: 'remember I parked on level 3' });
    const texts = await harness.replies(2);

    expect(texts.map((text) => text.body)).toEqual([onIt, 'Saved: level 3.']);
    expect(harness.anthropic.requests).toHaveLength(3);
    expect((await outbound(phone)).map((row) => row.kind)).toEqual(['progress', 'reply']);
  });

  // Runs last: by now the harness is warm, so the turn is fast for real.
  it('a fast turn sends no progress message (1 call)', async () => {
    const phone = nextPhone();
    harness.anthropic.enqueue({ text: 'Hello! How can I help?' });
    await harness.inbound({ from: phone, body: 'hi' });
    const texts = await harness.replies(1);

    expect(texts.map((text) => text.body)).toEqual(['Hello! How can I help?']);
    expect(harness.anthropic.requests).toHaveLength(1);
    // The turn is over (its reply was delivered), and the progress timer stops with it.
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });
    const turn = await harness.database.prisma.turn.findFirstOrThrow({ where: { userId: user.id } });
    expect(turn.finishedAt).not.toBeNull();
    expect((await outbound(phone)).map((row) => row.kind)).toEqual(['reply']);
    expect(harness.twilio.messages).toHaveLength(1);
  });
});
