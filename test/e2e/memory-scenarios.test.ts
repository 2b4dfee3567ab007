import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeraldHarness } from '../helpers/herald-harness.js';

describe('memory through the orchestrator, end to end', () => {
  let harness: HeraldHarness;
  const user = '+14155550111';

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('saves two facts with one memory-agent step and confirms in one text: two model calls', async () => {
    harness.anthropic.enqueue(
      {
        toolCalls: [
          {
            name: 'create_plan',
            input: {
              analysis: 'User wants two facts remembered',
              goal: 'Remember that the user is vegetarian and their sister is Dana',
              steps: [{ id: 'step_1', agent: 'memory-agent', task: 'Save two facts: the user is vegetarian (diet); the user\'s sister is named Dana (sister).' }],
              responseHint: 'Confirm briefly',
            },
          },
        ],
      },
      {
        toolCalls: [
          { name: 'remember_fact', input: { category: 'preferences', subject: 'diet', content: 'Is vegetarian' } },
          { name: 'remember_fact', input: { category: 'relationships', subject: 'sister', content: "Sister's name is Dana" } },
          {
            name: 'complete_step',
            input: {
              summary: 'Saved two facts',
              reply: "Got it: you're vegetarian and your sister is Dana.",
              created: [{ description: 'Is vegetarian' }, { description: "Sister's name is Dana" }],
            },
          },
        ],
      },
    );
    await harness.inbound({ from: user, body: "remember that I'm vegetarian and that my sister is Dana" });
    const [reply] = await harness.replies(1);
    expect(reply?.body).toBe("Got it: you're vegetarian and your sister is Dana.");
    expect(harness.anthropic.requests).toHaveLength(2);

    const facts = await harness.database.prisma.fact.findMany({ orderBy: { createdAt: 'asc' } });
    expect(facts.map((fact) => fact.content)).toEqual(['Is vegetarian', "Sister's name is Dana"]);

    // The sub-agent saw its task, not the conversation or memory.
    const agentRequest = harness.anthropic.requests[1]!;
    expect(agentRequest.toolNames().sort()).toEqual(['complete_step', 'get_user_facts', 'remember_fact', 'remove_fact', 'update_fact']);
    expect(agentRequest.allText()).not.toContain("remember that I'm vegetarian");

    const plans = await harness.database.prisma.planRun.findMany({ include: { stepRuns: true } });
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatchObject({ status: 'completed', modelCalls: 2 });
    expect(plans[0]?.stepRuns.map((step) => step.status)).toEqual(['completed']);
  });

  it('answers "what do you know about me?" from memory in one model call', async () => {
    harness.anthropic.enqueue((request) => {
      const system = request.systemText();
      expect(system).toContain('Is vegetarian');
      expect(system).toContain("Sister&apos;s name is Dana".replace('&apos;', "'"));
      return { text: "You're vegetarian and your sister is Dana." };
    });
    await harness.inbound({ from: user, body: 'what do you know about me?' });
    const replies = await harness.replies(2);
    expect(replies[1]?.body).toBe("You're vegetarian and your sister is Dana.");
    expect(harness.anthropic.requests).toHaveLength(3);
  });
});
