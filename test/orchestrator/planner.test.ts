/**
 * Routing and planning (docs/ARCHITECTURE.md "The orchestrator" 1): plain text is the direct reply,
 * utility tools resolve dates before the plan (UT-1, UT-5), the plan is validated against
 * the registry and corrected once, and the system prompt is composed from parts (CTX-4).
 */
import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { fallbackReply } from '../../src/texts/fallback-replies.js';
import { orchestrate } from '../../src/orchestrator/orchestrate.js';
import { DATA_FRAMING } from '../../src/orchestrator/prompts/xml.js';
import { ManualClock } from '../../src/shared/clock.js';
import {
  callTool,
  complete,
  createPlan,
  lastMessageText,
  makeContext,
  makeDeps,
  outage,
  purposes,
  say,
  SECRET_FACT,
  SECRET_FACT_2,
  SECRET_HISTORY_ASSISTANT,
  SECRET_HISTORY_USER,
  step,
  storeTrail,
  TEST_AGENT_NAMES,
  toolResultsOf,
} from './support/index.js';

describe('direct replies', () => {
  it('answers a greeting with plain text in exactly one planner call, at temperature 0', async () => {
    const model = new ScriptedModel([say('Hi Dana! What can I do for you?')]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'hi!' }), deps);

    expect(result).toMatchObject({ reply: 'Hi Dana! What can I do for you?', status: 'succeeded', path: 'direct', modelCalls: 1, planId: 'plan_1' });
    expect(model.calls).toHaveLength(1);
    expect(model.calls[0]).toMatchObject({ purpose: 'planner', model: 'test-planner-model', temperature: 0 });
    expect(model.calls[0]!.tools!.map((tool) => tool.name).sort()).toEqual(['create_plan', 'get_current_time', 'resolve_date', 'resolve_time_range']);
    expect(storeTrail(deps.store)).toEqual(['plan_started', 'plan_finished answered_directly']);
    expect(deps.logs.lines.find((line) => line.event === 'plan_answered_directly')).toMatchObject({ planId: 'plan_1', status: 'answered_directly', modelCalls: 1 });
  });
});

describe('utility tools before the plan (UT-1, UT-2, UT-5)', () => {
  it('resolves "friday" in the user’s time zone before answering: two planner calls, the date in the tool result', async () => {
    const model = new ScriptedModel([callTool('resolve_date', { expression: 'friday' }), say('Friday is January 30.')]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'what date is friday?' }), deps);

    expect(result).toMatchObject({ path: 'direct', reply: 'Friday is January 30.', modelCalls: 2 });
    expect(purposes(model)).toEqual(['planner', 'planner']);
    const [resolved] = toolResultsOf(model.calls[1]!);
    expect(resolved!.isError).toBeFalsy();
    // Wednesday 2026-01-28 10:30 in Los Angeles (18:30 UTC): "friday" is 2026-01-30.
    expect(JSON.parse(resolved!.content)).toMatchObject({ expression: 'friday', date: '2026-01-30', weekday: 'Friday', isToday: false });
  });

  it('resolves dates in the user’s zone, not UTC: late Thursday evening in Los Angeles is already Friday in UTC', async () => {
    const model = new ScriptedModel([callTool('resolve_date', { expression: 'tomorrow' }), say('ok')]);
    const deps = makeDeps({ model, clock: new ManualClock('2026-01-30T06:30:00Z') });

    await orchestrate(makeContext({ text: 'tomorrow?' }), deps);

    expect(JSON.parse(toolResultsOf(model.calls[1]!)[0]!.content)).toMatchObject({ date: '2026-01-30', weekday: 'Friday' });
  });

  it('puts the resolved date in the task the agent receives (3 calls, no composer for a single step with a reply)', async () => {
    const model = new ScriptedModel([
      callTool('resolve_date', { expression: 'friday' }),
      (request) => {
        const date = (JSON.parse(toolResultsOf(request)[0]!.content) as { date: string }).date;
        return createPlan([step('step_1', 'notes-agent', `Add a note "call the bank on ${date} (Friday)"`)]);
      },
      callTool('add_note', { text: 'call the bank on 2026-01-30 (Friday)' }),
      complete({ summary: 'Added the note', reply: 'Noted: call the bank on Friday.', created: [{ description: 'call the bank' }] }),
    ]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'note to call the bank on friday' }), deps);

    expect(purposes(model)).toEqual(['planner', 'planner', 'notes-agent', 'notes-agent']);
    expect(result).toMatchObject({ status: 'succeeded', reply: 'Noted: call the bank on Friday.', modelCalls: 4 });
    expect(lastMessageText(model.calls[2]!)).toContain('<task>\nAdd a note "call the bank on 2026-01-30 (Friday)"\n</task>');
  });

  it('hands a utility tool’s error to the planner, which carries on (UT-6)', async () => {
    const model = new ScriptedModel([callTool('resolve_date', { expression: 'the blorpday after never' }), say('Which day do you mean?')]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'remind me on the blorpday after never' }), deps);

    expect(result).toMatchObject({ path: 'direct', reply: 'Which day do you mean?', modelCalls: 2 });
    expect(toolResultsOf(model.calls[1]!)[0]).toMatchObject({ isError: true });
  });
});

describe('plan validation: one correction round, then a graceful failure', () => {
  it('returns a plan naming an unknown agent with the allowed agents, and takes the corrected plan', async () => {
    const model = new ScriptedModel([
      createPlan([step('step_1', 'weather-agent', 'Get the weather')]),
      createPlan([step('step_1', 'lookup-agent', 'Look up the weather')]),
      complete({ summary: 'Sunny', reply: 'Sunny all day.' }),
    ]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'weather?' }), deps);

    expect(purposes(model)).toEqual(['planner', 'planner', 'lookup-agent']);
    expect(result).toMatchObject({ status: 'succeeded', reply: 'Sunny all day.', modelCalls: 3 });
    const [rejection] = toolResultsOf(model.calls[1]!);
    expect(rejection).toMatchObject({ isError: true });
    expect(rejection!.content).toContain(`unknown agent "weather-agent"; use one of: ${TEST_AGENT_NAMES.join(', ')}`);
    expect(rejection!.content).toContain('Call create_plan again with corrected input');
  });

  it.each([
    ['two different invalid plans', [createPlan([step('step_1', 'weather-agent', 'x')]), createPlan([step('step_1', 'forecast-agent', 'x')])]],
    ['the same invalid plan twice', [createPlan([step('step_1', 'weather-agent', 'x')]), createPlan([step('step_1', 'weather-agent', 'x')])]],
    ['create_plan without steps, twice', [callTool('create_plan', { analysis: 'a', goal: 'g' }), callTool('create_plan', { analysis: 'a', goal: 'g', steps: [] })]],
  ])('fails gracefully after %s: apology, status failed, blame model, no step run', async (_name, turns) => {
    const model = new ScriptedModel(turns);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'weather?' }), deps);

    expect(result).toMatchObject({ status: 'failed', path: 'fallback', reply: fallbackReply('apology', 'en'), failure: { blame: 'model' }, modelCalls: 2 });
    expect(purposes(model)).toEqual(['planner', 'planner']);
    expect(storeTrail(deps.store)).toEqual(['plan_started', 'plan_finished failed']);
    expect(deps.world.journal).toEqual([]);
  });

  it('accepts a malformed plan (missing steps) once corrected', async () => {
    const model = new ScriptedModel([
      callTool('create_plan', { analysis: 'a', goal: 'g' }),
      createPlan([step('step_1', 'lookup-agent', 'Look up the weather')]),
      complete({ summary: 'Sunny', reply: 'Sunny.' }),
    ]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'weather?' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'Sunny.', modelCalls: 3 });
    expect(toolResultsOf(model.calls[1]!)[0]!.content).toMatch(/steps: /);
  });

  it('apologises, blaming the model, when the planning call itself fails', async () => {
    const model = new ScriptedModel([outage('overloaded')]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'weather?' }), deps);

    expect(result).toMatchObject({ status: 'failed', path: 'fallback', reply: fallbackReply('apology', 'en'), failure: { blame: 'model', message: 'ModelError: overloaded' }, modelCalls: 1 });
    expect(storeTrail(deps.store)).toEqual(['plan_started', 'plan_finished failed']);
  });

  it('apologises in Hebrew to a Hebrew speaker', async () => {
    const model = new ScriptedModel([outage()]);
    const result = await orchestrate(makeContext({ text: 'מה מזג האוויר?', user: { language: null } }), makeDeps({ model }));
    expect(result.reply).toBe(fallbackReply('apology', 'he'));
  });

  it('gives up when the planner never finishes within its iteration cap', async () => {
    const model = new ScriptedModel(['monday', 'tuesday', 'wednesday', 'thursday', 'friday'].map((day) => callTool('resolve_date', { expression: day })));
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'hmm' }), deps);

    expect(result).toMatchObject({ status: 'failed', path: 'fallback', failure: { blame: 'model' }, modelCalls: 4 });
    expect(model.remaining).toBe(1);
  });
});

describe('the planner’s system prompt (CTX-4, FR-10, UT-3, NFR-4)', () => {
  async function plannerRequest(text: string) {
    const model = new ScriptedModel([say('ok')]);
    await orchestrate(makeContext({ text }), makeDeps({ model }));
    return model.calls[0]!;
  }

  it('has a cached stable block (base, planning rules, agents) and a per-turn block (time, user, memory)', async () => {
    const request = await plannerRequest('hello');
    expect(request.temperature).toBe(0);
    expect(request.system).toHaveLength(2);
    const [stable, perTurn] = request.system;
    expect(stable!.cache).toBe(true);
    expect(perTurn!.cache).toBeFalsy();
    expect(stable!.text).toContain('You are Herald');
    expect(stable!.text).toContain('<planning>');
    expect(stable!.text).toMatch(/<available_agents>[\s\S]*<agent name="general-agent">[\s\S]*<agent name="notes-agent">\nKeeps the user notes\.[\s\S]*<agent name="lookup-agent">[\s\S]*<\/available_agents>/);
    for (const secret of [SECRET_FACT, 'Dana', 'America/Los_Angeles', '2026-01-28', 'Wednesday, January 28']) expect(stable!.text).not.toContain(secret);

    expect(perTurn!.text).toContain(
      '<current_time>Wednesday, January 28, 2026 at 10:30 AM (2026-01-28T10:30:00-08:00), weekday Wednesday (3), time zone America/Los_Angeles, UTC-08:00</current_time>',
    );
    expect(perTurn!.text).toContain('<name>Dana</name>');
    expect(perTurn!.text).toContain(
      ['<user_memory>', DATA_FRAMING, '  <fact id="fact_1" category="health">Allergic to KIWI-FACT-7731</fact>', '  <fact id="fact_2" category="people">Sister is called MARIGOLD-FACT-2208</fact>', '</user_memory>'].join('\n'),
    );
    expect(perTurn!.text).toContain(SECRET_FACT_2);
    expect(perTurn!.text).not.toContain('<routing_hints>');
  });

  it('sends the history window and then the message', async () => {
    const request = await plannerRequest('hello');
    expect(request.messages).toEqual([
      { role: 'user', content: SECRET_HISTORY_USER },
      { role: 'assistant', content: SECRET_HISTORY_ASSISTANT },
      { role: 'user', content: 'hello' },
    ]);
  });

  it('adds routing hints when the message matches an agent’s English triggers', async () => {
    const request = await plannerRequest('Please jot down: buy milk');
    expect(request.system[1]!.text).toContain('<routing_hints>\nThe wording suggests these agents (a hint, not a rule):\n  <hint agent="notes-agent" matched="jot down"/>\n</routing_hints>');
    expect(request.system[0]!.text).not.toContain('<routing_hints>');
  });

  it('adds routing hints for Hebrew triggers', async () => {
    const request = await plannerRequest('תרשום לי פתק לקנות חלב');
    expect(request.system[1]!.text).toContain('<hint agent="notes-agent" matched="פתק, תרשום"/>');
  });

  it('keeps the cached block identical across users, messages and hints', async () => {
    const one = await plannerRequest('hello');
    const two = await plannerRequest('תרשום לי פתק');
    expect(two.system[0]).toEqual(one.system[0]);
  });
});
