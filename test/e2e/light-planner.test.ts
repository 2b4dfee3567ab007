import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedAnthropicRequest, ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { parseScrape, sampleValue } from '../observability/scrape.js';

/**
 * The light planner on the default settings, through the real SDK and the strict fake: an
 * everyday request (memory, lists) is planned by claude-haiku-5-5, which may hand it to the
 * claude-sonnet-5-5 planner; a request for any other agent goes to the planner directly. The
 * user sees the same reply either way; the turn records what each model cost.
 */

const isPlannerRequest = (request: RecordedAnthropicRequest) => request.toolNames().includes('create_plan');

/**
 * Answers for steps that run at once, which reach the fake in no fixed order: each queue slot
 * answers whichever step its request's task names.
 */
function perTask(answers: Record<string, ScriptedAnthropicResponse>): ScriptedAnthropicResponse[] {
  const left = new Map(Object.entries(answers));
  return [...left.keys()].map(() => (request: RecordedAnthropicRequest) => {
    const words = [...left.keys()].find((key) => request.lastUserText().includes(key));
    if (words === undefined) throw new Error(`no answer for the step "${request.lastUserText().slice(0, 80)}"`);
    const answer = left.get(words)!;
    left.delete(words);
    return answer;
  });
}

function plan(steps: Array<{ agent: string; task: string }>): ScriptedAnthropicResponse {
  return { toolCalls: [{ name: 'create_plan', input: { analysis: 'Everyday request', goal: 'Do what the user asked', steps: steps.map((step, index) => ({ id: `step_${index + 1}`, dependsOn: [], ...step })) } }] };
}

describe('the light planner on the default models', () => {
  let harness: HeraldHarness;
  let phoneCounter = 0;
  const nextPhone = () => `+1415555${String(7100 + (phoneCounter += 1)).padStart(4, '0')}`;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { METRICS_TOKEN: 'light-planner-metrics-token' } });
  });
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  /** herald_plans_total by planner, from a scrape. */
  async function plansBy(): Promise<Record<string, number>> {
    const samples = parseScrape((await harness.herald.metrics.scrape()).body);
    return Object.fromEntries(['light', 'handed_off', 'planner'].map((planner) => [planner, sampleValue(samples, 'herald_plans_total', { planner })]));
  }

  async function exchange(phone: string, body: string) {
    expect((await harness.inbound({ from: phone, body })).statusCode).toBe(200);
    const [reply] = await harness.repliesTo(phone, 1);
    const { prisma } = harness.database;
    const user = await prisma.user.findUniqueOrThrow({ where: { phone } });
    const turn = await prisma.turn.findFirstOrThrow({ where: { userId: user.id }, orderBy: { startedAt: 'desc' } });
    return { reply: reply!.body ?? '', turn, user };
  }

  it('plans "remember … and add … to my shopping list" with claude-haiku-5-5: both steps run, nothing on Sonnet', async () => {
    const before = await plansBy();
    harness.anthropic.enqueue(
      plan([
        { agent: 'memory-agent', task: 'Save: the user is vegetarian (subject "diet").' },
        { agent: 'list-agent', task: 'Add "tofu" to the shopping list.' },
      ]),
      ...perTask({
        vegetarian: {
          toolCalls: [
            { name: 'remember_fact', input: { category: 'preferences', subject: 'diet', content: 'Is vegetarian' } },
            { name: 'complete_step', input: { summary: 'Saved', reply: 'Noted: vegetarian.', created: [{ description: 'Is vegetarian' }] } },
          ],
        },
        tofu: {
          toolCalls: [
            { name: 'add_list_items', input: { list: 'shopping', items: ['tofu'] } },
            { name: 'complete_step', input: { summary: 'Added tofu', reply: 'Tofu is on your shopping list.', created: [{ description: 'tofu' }] } },
          ],
        },
      }),
    );
    const phone = nextPhone();
    const { reply, turn, user } = await exchange(phone, "remember I'm vegetarian and add tofu to my shopping list");

    expect(reply).toContain('vegetarian');
    expect(reply).toContain('Tofu');
    const planners = harness.anthropic.requests.filter(isPlannerRequest);
    expect(planners.map((request) => request.body.model)).toEqual(['claude-haiku-5-5']);
    expect(planners[0]!.toolNames()).toContain('hand_to_planner');
    expect(harness.anthropic.requests.map((request) => request.body.model)).not.toContain('claude-sonnet-5-5');
    const { prisma } = harness.database;
    expect((await prisma.fact.findMany({ where: { userId: user.id } })).map((fact) => fact.content)).toEqual(['Is vegetarian']);
    expect((await prisma.listItem.findMany({ where: { list: { userId: user.id } } })).map((item) => item.text)).toEqual(['tofu']);
    expect(turn).toMatchObject({ status: 'succeeded' });
    expect((turn.models as Array<{ model: string }>).map((line) => line.model)).toEqual(['claude-haiku-5-5']);
    expect((await plansBy()).light).toBe((before.light ?? 0) + 1);
  });

  it('sends "remind me …" to the claude-sonnet-5-5 planner, with no hand-off offered', async () => {
    const before = await plansBy();
    harness.anthropic.enqueue({ text: 'What time tomorrow?' });
    const { reply } = await exchange(nextPhone(), 'remind me tomorrow to call mom');

    expect(reply).toBe('What time tomorrow?');
    const [planner] = harness.anthropic.requests;
    expect(planner!.body.model).toBe('claude-sonnet-5-5');
    expect(planner!.toolNames()).not.toContain('hand_to_planner');
    expect((await plansBy()).planner).toBe((before.planner ?? 0) + 1);
  });

  it('a hand-off: Haiku gives the message to Sonnet, which plans it with the same prompt; the turn records both models', async () => {
    const before = await plansBy();
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'hand_to_planner', input: { reason: 'a date to work out from another one' } }] },
      plan([{ agent: 'memory-agent', task: 'Save: the sister\'s wedding anniversary is on March 15 (subject "sister anniversary").' }]),
      {
        toolCalls: [
          { name: 'remember_fact', input: { category: 'relationships', subject: 'sister anniversary', content: "Sister's wedding anniversary is March 15" } },
          { name: 'complete_step', input: { summary: 'Saved', reply: "Noted: your sister's anniversary is March 15.", created: [{ description: "Sister's anniversary" }] } },
        ],
      },
    );
    const { reply, turn, user } = await exchange(nextPhone(), "remember that my sister's wedding anniversary is the day after mom's");

    expect(reply).toBe("Noted: your sister's anniversary is March 15.");
    const [light, planner] = harness.anthropic.requests.filter(isPlannerRequest);
    expect([light!.body.model, planner!.body.model]).toEqual(['claude-haiku-5-5', 'claude-sonnet-5-5']);
    expect(JSON.stringify(planner!.body.messages)).toBe(JSON.stringify(light!.body.messages));
    expect(planner!.toolNames()).not.toContain('hand_to_planner');
    expect(await harness.database.prisma.fact.count({ where: { userId: user.id } })).toBe(1);
    expect(turn).toMatchObject({ status: 'succeeded', modelCalls: 3 });
    const models = (turn.models as Array<{ model: string; calls: number }>).map((line) => [line.model, line.calls]);
    expect(models).toEqual(expect.arrayContaining([['claude-haiku-5-5', 2], ['claude-sonnet-5-5', 1]]));
    const handedOff = harness.logs.lines.find((line) => line.event === 'plan_handed_off');
    expect(handedOff).toMatchObject({ from: 'claude-haiku-5-5', to: 'claude-sonnet-5-5' });
    expect(await plansBy()).toMatchObject({ handed_off: (before.handed_off ?? 0) + 1 });
  });

  it('refuses to start when MODEL_PLANNER_LIGHT_AGENTS names an agent Herald does not have', async () => {
    await expect(HeraldHarness.start({ env: { MODEL_PLANNER_LIGHT_AGENTS: 'memory-agent,list-agnet' } })).rejects.toThrow(/MODEL_PLANNER_LIGHT_AGENTS names "list-agnet"/);
  });
});
