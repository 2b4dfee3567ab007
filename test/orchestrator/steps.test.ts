/**
 * How a step's tool loop, verification and signals play out in a plan: bad tool input,
 * throwing tools, endless loops and stalls (docs/ARCHITECTURE.md "The orchestrator", step 2); claims checked against what the
 * tools did (3); needsClarification and needsReplan (4).
 */
import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { orchestrate } from '../../src/orchestrator/orchestrate.js';
import {
  callsFor,
  callTool,
  callTools,
  complete,
  createPlan,
  lastMessageText,
  makeContext,
  makeDeps,
  purposes,
  say,
  step,
  storeTrail,
  toolResultsOf,
} from './support/index.js';

const stepEvents = (deps: ReturnType<typeof makeDeps>) =>
  deps.logs.lines.filter((line) => line.event === 'step_completed' || line.event === 'step_failed').map((line) => `${String(line.event)}#${String(line.retryCount)}${line.errorKind ? `:${String(line.errorKind)}` : ''}`);

describe('the tool loop inside a step', () => {
  it('shows the agent its malformed tool input as an error; it corrects itself and the step succeeds', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'notes-agent', 'Add a note "milk"')]),
      callTool('add_note', { text: '' }),
      callTool('add_note', { text: 'milk' }),
      complete({ summary: 'Added milk', reply: 'Milk is on your notes.', created: [{ description: 'milk' }] }),
    ]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'note milk' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'Milk is on your notes.', modelCalls: 4 });
    expect(toolResultsOf(callsFor(model, 'notes-agent')[1]!)[0]).toMatchObject({ isError: true, content: expect.stringMatching(/^Invalid arguments for add_note: text: /) });
    expect(deps.world.notes.map((note) => note.text)).toEqual(['milk']);
    expect(stepEvents(deps)).toEqual(['step_completed#0']);
  });

  it('turns a throwing tool into an error result; the agent reports and nothing crashes', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'lookup-agent', 'Look up the train times')]),
      callTool('explode', {}),
      complete({ summary: 'The timetable service is broken', reply: 'I could not get the train times right now.' }),
    ]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'train times?' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'I could not get the train times right now.', modelCalls: 3 });
    expect(toolResultsOf(callsFor(model, 'lookup-agent')[1]!)[0]).toMatchObject({ isError: true, content: 'The tool failed: Error: kaboom' });
    expect(deps.logs.lines.find((line) => line.tool === 'explode')).toMatchObject({ level: 40, planId: 'plan_1', turnId: 'turn_1' });
  });

  it('fails a step whose agent never stops calling tools at the iteration cap (6 calls), with errorKind model', async () => {
    const endless = Array.from({ length: 6 }, (_, index) => callTool('lookup', { query: `attempt ${index}` }));
    const model = new ScriptedModel([createPlan([step('s1', 'lookup-agent', 'Look up the train times')]), ...endless, say('Sorry, I could not find the train times.')]);
    const deps = makeDeps({ model, limits: { stepMaxRetries: 0, maxReplans: 0 } });

    const result = await orchestrate(makeContext({ text: 'train times?' }), deps);

    expect(purposes(model)).toEqual(['planner', ...Array(6).fill('lookup-agent'), 'composer']);
    expect(result).toMatchObject({ status: 'failed', reply: 'Sorry, I could not find the train times.', modelCalls: 8 });
    expect(stepEvents(deps)).toEqual(['step_failed#0:model']);
    expect(lastMessageText(callsFor(model, 'composer')[0]!)).toContain('the agent did not finish within 6 model calls');
  });

  it('fails a stalled attempt (same call, same arguments) and retries it afresh', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'lookup-agent', 'Look up the train times')]),
      callTool('lookup', { query: 'trains' }),
      callTool('lookup', { query: 'trains' }),
      complete({ summary: 'No trains listed', reply: 'I found no train times.', isEmpty: true }),
    ]);
    const deps = makeDeps({ model, limits: { stepMaxRetries: 1 } });

    const result = await orchestrate(makeContext({ text: 'train times?' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'I found no train times.', modelCalls: 4 });
    expect(stepEvents(deps)).toEqual(['step_failed#0:stalled', 'step_completed#1']);
    expect(deps.world.journal).toEqual(['lookup:trains']);
    expect(lastMessageText(callsFor(model, 'lookup-agent')[2]!)).toContain('Attempt 1 failed: the agent repeated the same tool call with the same arguments');
  });
});

describe('verification: claims must match what the tools did', () => {
  it('fails a report claiming 2 created when only 1 add succeeded, and retries; the retry does not redo the change', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'notes-agent', 'Add notes "milk" and "eggs FAIL"')]),
      callTools(['add_note', { text: 'milk' }], ['add_note', { text: 'eggs FAIL' }]),
      complete({ summary: 'Added both', created: [{ description: 'milk' }, { description: 'eggs' }] }),
      complete({ summary: 'Milk was added; eggs were refused', reply: 'Milk is noted; the eggs note was refused.', created: [] }),
    ]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'note milk and eggs' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'Milk is noted; the eggs note was refused.', modelCalls: 4 });
    expect(stepEvents(deps)).toEqual(['step_failed#0:verification', 'step_completed#1']);
    const retry = lastMessageText(callsFor(model, 'notes-agent')[2]!);
    expect(retry).toContain('claimed 2 created but 1 tool call(s) actually created something');
    expect(retry).toContain('Tool calls made: add_note(ok), add_note(error)');
    expect(deps.world.notes.map((note) => note.text)).toEqual(['milk']);
  });

  it('passes a report whose claims match the effects', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'notes-agent', 'Add notes "milk" and "eggs"')]),
      callTools(['add_note', { text: 'milk' }], ['add_note', { text: 'eggs' }]),
      complete({ summary: 'Added both', reply: 'Milk and eggs are noted.', created: [{ description: 'milk' }, { description: 'eggs' }] }),
    ]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'note milk and eggs' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'Milk and eggs are noted.', modelCalls: 3 });
    expect(stepEvents(deps)).toEqual(['step_completed#0']);
  });

  it('does not accept an "unchanged" effect claimed as created', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'notes-agent', 'Save the note "milk"')]),
      callTool('touch_note', { text: 'milk' }),
      complete({ summary: 'Created milk', created: [{ description: 'milk' }] }),
      say('Sorry, I could not save that note.'),
    ]);
    const deps = makeDeps({ model, limits: { stepMaxRetries: 0, maxReplans: 0 } });

    const result = await orchestrate(makeContext({ text: 'note milk' }), deps);

    expect(result).toMatchObject({ status: 'failed', modelCalls: 4 });
    expect(stepEvents(deps)).toEqual(['step_failed#0:verification']);
    expect(lastMessageText(callsFor(model, 'composer')[0]!)).toContain('claimed 1 created but 0 tool call(s) actually created something');
  });
});

describe('signals from a step', () => {
  it('ends the plan on needsClarification: the reply is exactly the question, later steps skipped, no composer', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'lookup-agent', 'Find the dentist appointment'), step('s2', 'notes-agent', 'Note the appointment', ['s1'])]),
      complete({ summary: 'Two dentists found', needsClarification: true, question: 'Do you mean Dr. Cohen or Dr. Levi?' }),
    ]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'note my dentist appointment' }), deps);

    expect(result).toEqual(expect.objectContaining({ reply: 'Do you mean Dr. Cohen or Dr. Levi?', status: 'succeeded', path: 'clarification', modelCalls: 2 }));
    expect(purposes(model)).toEqual(['planner', 'lookup-agent']);
    expect(storeTrail(deps.store).slice(-3)).toEqual(['step_finished s1#0 completed', 'step_skipped s2', 'plan_finished needs_clarification']);
    expect(deps.logs.lines.find((line) => line.event === 'plan_needs_clarification')).toMatchObject({ status: 'needs_clarification' });
  });

  it('replans on needsReplan, giving the replanner the agent’s reason', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'lookup-agent', 'Find the dentist in the calendar')]),
      complete({ summary: 'The calendar is not connected', needsReplan: true, replanReason: 'CALENDAR-NOT-CONNECTED' }),
      say('Your calendar is not connected yet, so I could not check.'),
    ]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'when is my dentist?' }), deps);

    expect(purposes(model)).toEqual(['planner', 'lookup-agent', 'replanner']);
    expect(result).toMatchObject({ reply: 'Your calendar is not connected yet, so I could not check.', modelCalls: 3 });
    expect(lastMessageText(callsFor(model, 'replanner')[0]!)).toContain('step s1 reported the plan cannot work: CALENDAR-NOT-CONNECTED');
  });

  it('does not replan on an empty result when no later step needs it', async () => {
    const model = new ScriptedModel([
      createPlan([step('s1', 'lookup-agent', 'Find notes about Rome')]),
      complete({ summary: 'Nothing about Rome', isEmpty: true, reply: 'You have no notes about Rome.' }),
    ]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'any Rome notes?' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'You have no notes about Rome.', modelCalls: 2 });
  });
});
