/**
 * Which planner plans a message (src/orchestrator/planner-choice.ts): the light planner takes
 * everyday wording (no agent, or only the agents it is given) and may hand the message to the
 * planner with `hand_to_planner`; anything else, attachments, answers to Herald's questions and
 * replans go to the planner.
 */
import { describe, expect, it } from 'vitest';
import { createAgentRegistry } from '../../src/agents/agent-registry.js';
import type { ModelRoles } from '../../src/model/model-roles.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { orchestrate } from '../../src/orchestrator/orchestrate.js';
import { checkLightPlannerAgents } from '../../src/orchestrator/planner-choice.js';
import { ConfigurationError } from '../../src/shared/errors.js';
import { callTool, callTools, complete, createPlan, makeContext, makeDeps, say, step, testAgents, createTestWorld } from './support/index.js';

const models: ModelRoles = {
  planner: { name: 'big-planner', fallbacks: [] },
  plannerLight: { name: 'small-planner', fallbacks: [], agents: ['notes-agent'] },
  agent: { name: 'test-agent-model', fallbacks: [] },
  composer: { name: 'test-composer-model', fallbacks: [] },
};

const plannerModels = (model: ScriptedModel) => model.calls.filter((call) => call.purpose === 'planner' || call.purpose === 'replanner').map((call) => `${call.purpose}:${call.model}`);
const toolNames = (call: { tools?: Array<{ name: string }> | undefined }) => (call.tools ?? []).map((tool) => tool.name).sort();

describe('the light planner plans everyday messages', () => {
  it('plans a request for one of its agents itself, offered the hand-off, and the step runs', async () => {
    const model = new ScriptedModel([
      createPlan([step('step_1', 'notes-agent', 'Add the note "plumber at 5"')]),
      callTools(['add_note', { text: 'plumber at 5' }], ['complete_step', { summary: 'Added', reply: 'Noted: plumber at 5.', created: [{ description: 'plumber at 5' }] }]),
    ]);
    const deps = { ...makeDeps({ model }), models };

    const result = await orchestrate(makeContext({ text: 'note that the plumber comes at 5' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'Noted: plumber at 5.', modelCalls: 2 });
    expect(plannerModels(model)).toEqual(['planner:small-planner']);
    expect(toolNames(model.calls[0]!)).toEqual(['create_plan', 'get_current_time', 'hand_to_planner', 'resolve_date', 'resolve_time_range']);
    expect(deps.world.notes.map((note) => note.text)).toEqual(['plumber at 5']);
  });

  it('answers a greeting (no agent in the wording) in one small call', async () => {
    const model = new ScriptedModel([say('Hi Dana!')]);
    const result = await orchestrate(makeContext({ text: 'hi!' }), { ...makeDeps({ model }), models });

    expect(result).toMatchObject({ path: 'direct', reply: 'Hi Dana!', modelCalls: 1 });
    expect(plannerModels(model)).toEqual(['planner:small-planner']);
  });

  it('sends wording that points as much to another agent to the planner, which is not offered the hand-off', async () => {
    const model = new ScriptedModel([say('Nothing found.')]);
    // "note" for notes-agent, "look up" for lookup-agent: as much one as the other.
    await orchestrate(makeContext({ text: 'note this and look up the plumber' }), { ...makeDeps({ model }), models });

    expect(plannerModels(model)).toEqual(['planner:big-planner']);
    expect(toolNames(model.calls[0]!)).not.toContain('hand_to_planner');
  });

  it('keeps wording that points more strongly to its agents than to another', async () => {
    const model = new ScriptedModel([say('Which plumber?')]);
    // "note" and "jot down" for notes-agent against "find" for lookup-agent.
    await orchestrate(makeContext({ text: 'note this, jot down what you find about the plumber' }), { ...makeDeps({ model }), models });

    expect(plannerModels(model)).toEqual(['planner:small-planner']);
  });

  it('sends a reply to a reminder just delivered to the planner, whatever its wording', async () => {
    const model = new ScriptedModel([say('Done.')]);
    const subject = { kind: 'reminder' as const, reminderId: 'rem_1', dueAt: new Date('2026-01-28T18:00:00Z'), text: 'Call mom', message: 'Reminder: call mom', sentAt: new Date('2026-01-28T18:00:00Z'), quoted: false };
    await orchestrate({ ...makeContext({ text: 'note that, write down the plumber' }), subject }, { ...makeDeps({ model }), models });

    expect(plannerModels(model)).toEqual(['planner:big-planner']);
  });

  it('sends a message with a photo (to be read) to the planner', async () => {
    const photo = new ScriptedModel([say('A nice photo.')]);
    const withPhoto = makeContext({ text: 'hi' });
    withPhoto.message.media = [{ id: 'a1', kind: 'photo', mediaType: 'image/jpeg', data: Buffer.from('x').toString('base64'), label: 'photo' }];
    await orchestrate(withPhoto, { ...makeDeps({ model: photo }), models });
    expect(plannerModels(photo)).toEqual(['planner:big-planner']);
  });

  it('with no agents of its own (MODEL_PLANNER_LIGHT_AGENTS=none) takes only wording that points to no agent', async () => {
    const model = new ScriptedModel([say('Which note?')]);
    await orchestrate(makeContext({ text: 'note that' }), { ...makeDeps({ model }), models: { ...models, plannerLight: { ...models.plannerLight!, agents: [] } } });
    expect(plannerModels(model)).toEqual(['planner:big-planner']);
  });
});

describe('the hand-off', () => {
  it('gives the message to the planner, which plans it from the start with the same prompt; both calls are counted', async () => {
    const model = new ScriptedModel([
      callTool('hand_to_planner', { reason: 'two notes that depend on each other' }),
      createPlan([step('step_1', 'notes-agent', 'Add the note "call the plumber"')]),
      callTools(['add_note', { text: 'call the plumber' }], ['complete_step', { summary: 'Added', reply: 'Noted.', created: [{ description: 'call the plumber' }] }]),
    ]);
    const deps = { ...makeDeps({ model }), models };

    const result = await orchestrate(makeContext({ text: 'note to call the plumber once the first note is done' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'Noted.', modelCalls: 3 });
    expect(plannerModels(model)).toEqual(['planner:small-planner', 'planner:big-planner']);
    // Same system prompt and conversation: the planner sees the message as the light planner did.
    expect(model.calls[1]!.system).toEqual(model.calls[0]!.system);
    expect(model.calls[1]!.messages).toEqual(model.calls[0]!.messages);
    expect(toolNames(model.calls[1]!)).not.toContain('hand_to_planner');
    expect(deps.world.notes.map((note) => note.text)).toEqual(['call the plumber']);
    const handedOff = deps.logs.lines.find((line) => line.event === 'plan_handed_off');
    expect(handedOff).toMatchObject({ level: 30, planId: 'plan_1', from: 'small-planner', to: 'big-planner' });
    // The model's reason quotes the message: it stays out of info-level logs.
    expect(JSON.stringify(deps.logs.lines.filter((line) => (line.level as number) >= 30))).not.toContain('depend on each other');
  });

  it('goes back to the light planner as an error when its reason is missing, and its corrected call hands off', async () => {
    const model = new ScriptedModel([callTool('hand_to_planner', {}), callTool('hand_to_planner', { reason: 'unclear' }), say('Done thinking: which plumber?')]);
    const result = await orchestrate(makeContext({ text: 'hi' }), { ...makeDeps({ model }), models });

    expect(result).toMatchObject({ path: 'direct', reply: 'Done thinking: which plumber?', modelCalls: 3 });
    expect(plannerModels(model)).toEqual(['planner:small-planner', 'planner:small-planner', 'planner:big-planner']);
    const refusal = model.calls[1]!.messages.at(-1)!.content;
    expect(JSON.stringify(refusal)).toContain('Invalid input');
  });

  it('ends the light round at once: a plan in the same response as the hand-off is not run', async () => {
    const model = new ScriptedModel([
      callTools(['create_plan', { analysis: 'a', goal: 'g', steps: [step('step_1', 'notes-agent', 'Add the note "x"')] }], ['hand_to_planner', { reason: 'unsure' }]),
      say('Which note do you mean?'),
    ]);
    const deps = { ...makeDeps({ model }), models };
    const result = await orchestrate(makeContext({ text: 'note it' }), deps);

    expect(result).toMatchObject({ path: 'direct', reply: 'Which note do you mean?', modelCalls: 2 });
    expect(deps.world.notes).toEqual([]);
  });

  it('a failed step of a light plan is replanned by the planner', async () => {
    const falseClaim = complete({ summary: 'Saved', created: [{ description: 'plumber' }] });
    const model = new ScriptedModel([
      createPlan([step('step_1', 'notes-agent', 'Add the note "plumber"')]),
      falseClaim,
      falseClaim,
      falseClaim,
      say('I could not save that note.'),
    ]);
    const result = await orchestrate(makeContext({ text: 'note: plumber' }), { ...makeDeps({ model }), models });

    expect(result.status).toBe('failed');
    expect(plannerModels(model)).toEqual(['planner:small-planner', 'replanner:big-planner']);
  });
});

describe('MODEL_PLANNER_LIGHT_AGENTS at start-up', () => {
  const registry = createAgentRegistry(testAgents(createTestWorld()));

  it('accepts agents Herald has, and none', () => {
    expect(() => checkLightPlannerAgents(models, registry)).not.toThrow();
    expect(() => checkLightPlannerAgents({ plannerLight: undefined }, registry)).not.toThrow();
  });

  it('refuses a name Herald has no agent for, naming the ones it has', () => {
    const error = (() => {
      try {
        checkLightPlannerAgents({ plannerLight: { ...models.plannerLight!, agents: ['notes-agent', 'list-agnet'] } }, registry);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('"list-agnet"');
    expect((error as Error).message).toContain('notes-agent, lookup-agent');
  });
});
