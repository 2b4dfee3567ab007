/**
 * What a sub-agent sees (FR-4, FR-5, FR-7, FR-8, FR-9; CTX-1 … CTX-3, CTX-5, CTX-6): its own
 * system prompt, the user's name and time zone, its task and earlier outputs. No memory,
 * no history, no other agent's tools.
 */
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/model/model-client.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { orchestrate } from '../../src/orchestrator/orchestrate.js';
import { DATA_FRAMING } from '../../src/orchestrator/prompts/xml.js';
import {
  callsFor,
  callTool,
  complete,
  createPlan,
  lastMessageText,
  makeContext,
  makeDeps,
  purposes,
  requestText,
  say,
  SECRET_FACT,
  SECRET_FACT_2,
  SECRET_HISTORY_ASSISTANT,
  SECRET_HISTORY_USER,
  step,
  systemText,
  toolResultsOf,
} from './support/index.js';

const MESSAGE = 'Find the WALRUS-MESSAGE plumber number and note it';
const secrets = [SECRET_FACT, SECRET_FACT_2, 'KIWI-FACT', 'MARIGOLD-FACT', SECRET_HISTORY_USER, SECRET_HISTORY_ASSISTANT, 'HISTORY-PELICAN', 'HISTORY-OTTER', 'WALRUS-MESSAGE'];

function twoStepRun() {
  const model = new ScriptedModel([
    createPlan([
      step('step_1', 'lookup-agent', "Look up the plumber's phone number"),
      step('step_2', 'notes-agent', "Add a note with the plumber's number found in step_1", ['step_1']),
    ]),
    callTool('lookup', { query: 'plumber' }),
    complete({ summary: 'Plumber: 555-0100 (LOOKUP-OUTPUT-1)', data: { results: ['555-0100'] } }),
    // notes-agent tries lookup-agent's tool first (FR-4), then does its own work.
    callTool('lookup', { query: 'plumber' }),
    callTool('add_note', { text: 'Plumber 555-0100' }),
    complete({ summary: 'Noted the plumber', created: [{ description: 'Plumber 555-0100' }] }),
    say('Your plumber is 555-0100; I noted it.'),
  ]);
  const deps = makeDeps({ model });
  deps.world.lookupResults.plumber = ['555-0100'];
  return { model, deps };
}

const subAgentCalls = (model: ScriptedModel): ModelRequest[] => model.calls.filter((call) => call.purpose === 'lookup-agent' || call.purpose === 'notes-agent');

describe('sub-agent isolation', () => {
  it('never shows a sub-agent a fact, a history message or the user’s own message (FR-7, FR-8, CTX-1, CTX-2)', async () => {
    const { model, deps } = twoStepRun();

    const result = await orchestrate(makeContext({ text: MESSAGE }), deps);

    expect(result).toMatchObject({ status: 'succeeded', modelCalls: 7 });
    expect(purposes(model)).toEqual(['planner', 'lookup-agent', 'lookup-agent', 'notes-agent', 'notes-agent', 'notes-agent', 'composer']);
    const calls = subAgentCalls(model);
    expect(calls).toHaveLength(5);
    for (const call of calls) {
      const everything = JSON.stringify(call);
      for (const secret of secrets) expect(everything).not.toContain(secret);
      expect(everything).not.toContain('<user_memory>');
      expect(everything).not.toContain('<available_agents>');
    }
    // Positive control: the planner does see memory, history and the message (UT-3).
    const planner = JSON.stringify(model.calls[0]);
    for (const secret of secrets) expect(planner).toContain(secret);
  });

  it('gives every sub-agent its own prompt, model and the user’s name and time zone (FR-9, CTX-3)', async () => {
    const { model, deps } = twoStepRun();
    await orchestrate(makeContext({ text: MESSAGE }), deps);

    for (const call of subAgentCalls(model)) {
      expect(call.model).toBe('test-agent-model');
      expect(call.temperature).toBe(0);
      expect(call.system[0]).toEqual({ text: call.purpose === 'lookup-agent' ? 'LOOKUP-AGENT-PROMPT: you look things up.' : 'NOTES-AGENT-PROMPT: you keep notes.', cache: true });
      const system = systemText(call);
      expect(system).toContain('<name>Dana</name>');
      expect(system).toContain('<timezone>America/Los_Angeles</timezone>');
      expect(system).toContain('Wednesday, January 28, 2026 at 10:30 AM');
      expect(system).not.toContain(call.purpose === 'lookup-agent' ? 'NOTES-AGENT-PROMPT' : 'LOOKUP-AGENT-PROMPT');
    }
  });

  it('passes earlier steps’ outputs to later steps, and only through the orchestrator (FR-5, CTX-5)', async () => {
    const { model, deps } = twoStepRun();
    await orchestrate(makeContext({ text: MESSAGE }), deps);

    const [lookupFirst] = callsFor(model, 'lookup-agent');
    expect(lookupFirst!.messages).toEqual([{ role: 'user', content: "<task>\nLook up the plumber's phone number\n</task>" }]);
    const [notesFirst] = callsFor(model, 'notes-agent');
    expect(notesFirst!.messages).toHaveLength(1);
    const task = lastMessageText(notesFirst!);
    expect(task).toContain("<task>\nAdd a note with the plumber's number found in step_1\n</task>");
    expect(task).toContain(`<context_from_previous_steps>\n${DATA_FRAMING}\n  <step id="step_1" agent="lookup-agent">\n`);
    expect(task).toMatch(/<step id="step_1" agent="lookup-agent">\n.*LOOKUP-OUTPUT-1.*\n {2}<\/step>\n<\/context_from_previous_steps>/);
  });

  it('offers a sub-agent only its own tools; another agent’s tool is an error result (FR-4)', async () => {
    const { model, deps } = twoStepRun();
    await orchestrate(makeContext({ text: MESSAGE }), deps);

    const [lookupFirst] = callsFor(model, 'lookup-agent');
    expect(lookupFirst!.tools!.map((tool) => tool.name)).toEqual(['lookup', 'explode', 'complete_step']);
    const [notesFirst, notesSecond] = callsFor(model, 'notes-agent');
    expect(notesFirst!.tools!.map((tool) => tool.name)).toEqual(['add_note', 'touch_note', 'list_notes', 'complete_step']);
    expect(toolResultsOf(notesSecond!)).toEqual([
      { type: 'tool_result', toolUseId: expect.any(String), isError: true, content: 'The tool "lookup" is not available to you. Available: add_note, touch_note, list_notes.' },
    ]);
    // The only lookup that ran was lookup-agent's own.
    expect(deps.world.journal).toEqual(['lookup:plumber', 'add_note:start:Plumber 555-0100', 'add_note:end:Plumber 555-0100']);
  });

  it('truncates long earlier outputs to the agent’s prompt budget, with a marker (CTX-6)', async () => {
    const huge = Array.from({ length: 3 }, (_, index) => `${index}`.repeat(8_000));
    const model = new ScriptedModel([
      createPlan([step('step_1', 'lookup-agent', 'Look up everything'), step('step_2', 'notes-agent', 'Note a summary of step_1', ['step_1'])]),
      complete({ summary: 'Found a lot', data: { results: huge } }),
      complete({ summary: 'Noted nothing' }),
      say('Done.'),
    ]);
    const deps = makeDeps({ model });

    await orchestrate(makeContext({ text: 'do it' }), deps);

    const task = lastMessageText(callsFor(model, 'notes-agent')[0]!);
    expect(task).toMatch(/…\[truncated \d+ characters\]/);
    expect(task.length).toBeLessThan(4_000 * 4);
    expect(task).toContain('Note a summary of step_1');
  });
});
