import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HeraldHarness } from '../helpers/herald-harness.js';

describe('the user tells Herald their name and time zone', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  // Each test scripts its own model calls and counts its own requests.
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('sets the profile through memory-agent, and the next turn knows them by it', async () => {
    const phone = '+14155550188';
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'profile', goal: 'Set name and time zone', steps: [{ id: 'step_1', agent: 'memory-agent', task: 'Set the user\'s name to Ana and time zone to Europe/Berlin.' }] } }] },
      {
        toolCalls: [
          { name: 'update_profile', input: { name: 'Ana', timezone: 'Europe/Berlin' } },
          { name: 'complete_step', input: { summary: 'Profile set', reply: "Nice to meet you, Ana! I've set you to Berlin time.", updated: [{ description: 'name and time zone' }] } },
        ],
      },
      (request) => {
        expect(request.systemText()).toContain('<name>Ana</name>');
        expect(request.systemText()).toContain('Europe/Berlin');
        return { text: 'Hi Ana!' };
      },
    );
    expect(await harness.exchange(phone, "I'm Ana, and I live in Berlin")).toBe("Nice to meet you, Ana! I've set you to Berlin time.");
    expect(await harness.database.prisma.user.findUniqueOrThrow({ where: { phone } })).toMatchObject({ name: 'Ana', timezone: 'Europe/Berlin' });
    expect(harness.anthropic.requests[1]?.toolNames()).toContain('update_profile');

    expect(await harness.exchange(phone, 'hello again')).toBe('Hi Ana!');
  });

  it('refuses a time zone that does not exist, with an error result the agent can act on', async () => {
    // A user who already lives in Berlin, of this test's own making.
    const phone = '+14155550189';
    await harness.database.prisma.user.create({ data: { phone, name: 'Ana', timezone: 'Europe/Berlin', updatedAt: new Date() } });
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'profile', goal: 'Set time zone', steps: [{ id: 'step_1', agent: 'memory-agent', task: 'Set the time zone to Mars/Olympus.' }] } }] },
      (request) => {
        expect(request.toolNames()).toContain('update_profile');
        return { toolCalls: [{ name: 'update_profile', input: { timezone: 'Mars/Olympus' } }] };
      },
      (request) => {
        const results = JSON.stringify(request.body.messages);
        expect(results).toContain('must be an IANA time zone');
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Unknown zone', needsClarification: true, question: 'Which city are you in, so I can set your time zone?' } }] };
      },
    );
    expect(await harness.exchange(phone, 'set my timezone to Mars/Olympus')).toBe('Which city are you in, so I can set your time zone?');
    expect((await harness.database.prisma.user.findUniqueOrThrow({ where: { phone } })).timezone).toBe('Europe/Berlin');
  });
});
