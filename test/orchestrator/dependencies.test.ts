/**
 * Explicit dependencies (issue 25): every step says what it needs, [] meaning nothing; a plan
 * naming an unknown step or with steps waiting on each other is refused back to the planner
 * with the reason; a step may be listed before the steps it needs; and a plan kept before
 * dependencies were explicit (a pending clarification's snapshot) keeps its old meaning.
 */
import { describe, expect, it } from 'vitest';
import { clarificationPayloadSchema } from '../../src/questions/pending-question.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { orchestrate } from '../../src/orchestrator/orchestrate.js';
import { dependencyProblems } from '../../src/orchestrator/plan-graph.js';
import { resumedSteps } from '../../src/orchestrator/plan-questions.js';
import { planningInstructions } from '../../src/orchestrator/prompts/planner-prompt.js';
import { toolSpecOf } from '../../src/tools/tool-spec.js';
import { planSchema } from '../../src/orchestrator/plan-schema.js';
import type { ResumedPlan } from '../../src/context/orchestrator-context.js';
import { callsFor, complete, createPlan, forTask, makeContext, makeDeps, RoutedTurns, say, step, storeTrail, taskText, toolResultsOf } from './support/index.js';

describe('the planner is told dependencies are explicit', () => {
  it('shows dependsOn as required, and says [] needs nothing and such steps run at once', () => {
    const schema = toolSpecOf({ name: 'create_plan', description: '', inputSchema: planSchema }).inputSchema as { properties: { steps: { items: { required: string[]; properties: { dependsOn: { description: string } } } } } };
    expect(schema.properties.steps.items.required).toContain('dependsOn');
    expect(schema.properties.steps.items.properties.dependsOn.description).toContain('[] when it needs none');
    const rules = planningInstructions(10);
    expect(rules).toContain('"dependsOn" which steps\' results it needs: [] when it needs none');
    expect(rules).toContain('Steps that need none run at once');
  });
});

describe('plans whose dependencies cannot run are refused, with the reason', () => {
  it('refuses a cycle, naming it; the corrected plan runs', async () => {
    const model = new ScriptedModel([
      createPlan([step('a', 'lookup-agent', 'Look up x', ['b']), step('b', 'lookup-agent', 'Look up y', ['a'])]),
      createPlan([step('a', 'lookup-agent', 'Look up x', []), step('b', 'lookup-agent', 'Look up y', ['a'])]),
      complete({ summary: 'x done' }),
      complete({ summary: 'y done' }),
      say('Both done.'),
    ]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'do x then y' }), deps);

    const refusal = toolResultsOf(model.calls[1]!)[0]!;
    expect(refusal.isError).toBe(true);
    expect(refusal.content).toContain('steps.0.dependsOn: steps depend on each other in a cycle (a → b → a), so none of them could start');
    expect(refusal.content).toContain('Call create_plan again with corrected input');
    expect(result).toMatchObject({ status: 'succeeded', reply: 'Both done.', modelCalls: 5 });
  });

  it('refuses a step depending on itself', async () => {
    const model = new ScriptedModel([createPlan([step('a', 'lookup-agent', 'Look up x', ['a'])]), createPlan([step('a', 'lookup-agent', 'Look up x', [])]), complete({ summary: 'x', reply: 'Done.' })]);

    await orchestrate(makeContext({ text: 'do x' }), makeDeps({ model }));

    expect(toolResultsOf(model.calls[1]!)[0]!.content).toContain('steps.0.dependsOn: step "a" depends on itself');
  });

  it('refuses a dependency on an unknown step, listing none of its own ids as fine', async () => {
    const model = new ScriptedModel([
      createPlan([step('a', 'lookup-agent', 'Look up x', []), step('b', 'notes-agent', 'Note it', ['step_9'])]),
      createPlan([step('a', 'lookup-agent', 'Look up x', []), step('b', 'notes-agent', 'Note it', ['a'])]),
      complete({ summary: 'x' }),
      complete({ summary: 'noted' }),
      say('Noted x.'),
    ]);

    const result = await orchestrate(makeContext({ text: 'look up x and note it' }), makeDeps({ model }));

    expect(toolResultsOf(model.calls[1]!)[0]!.content).toContain('steps.1.dependsOn: "step_9" is not a step of this plan; dependsOn names only those ids, and [] means the step needs none');
    expect(result).toMatchObject({ status: 'succeeded', reply: 'Noted x.' });
  });

  it('gives up after two invalid plans: nothing runs, and the user gets an apology blaming the model', async () => {
    const cyclic = createPlan([step('a', 'lookup-agent', 'x', ['b']), step('b', 'lookup-agent', 'y', ['a'])]);
    const model = new ScriptedModel([cyclic, cyclic]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'x and y' }), deps);

    expect(result).toMatchObject({ status: 'failed', path: 'fallback', failure: { blame: 'model', message: expect.stringContaining('cycle (a → b → a)') } });
    expect(deps.world.journal).toEqual([]);
  });

  it('names every problem at once, a finished step being a fine dependency', () => {
    expect(
      dependencyProblems(
        [
          { id: 'x', dependsOn: ['done_1', 'y'] },
          { id: 'y', dependsOn: ['z'] },
          { id: 'z', dependsOn: ['x', 'ghost'] },
        ],
        ['done_1'],
      ),
    ).toEqual([
      { index: 2, message: '"ghost" is not a step of this plan or a finished step (done_1); dependsOn names only those ids, and [] means the step needs none' },
      { index: 0, message: 'steps depend on each other in a cycle (x → y → z → x), so none of them could start; a step may depend only on steps that do not need its result' },
    ]);
  });
});

describe('what dependsOn means when the plan runs', () => {
  it('runs a step listed before the step it needs after that step, with its output', async () => {
    const routes = new RoutedTurns([
      ['planner', [createPlan([step('note', 'notes-agent', 'Note what the lookup found', ['find']), step('find', 'lookup-agent', 'Look up the train', [])])]],
      ['lookup-agent', [complete({ summary: 'TRAIN-0710' })]],
      ['notes-agent', [complete({ summary: 'Noted the train' })]],
      ['composer', [say('Noted: the train is at 7:10.')]],
    ]);
    const model = routes.model();
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'note the train time' }), deps);

    expect(result.status).toBe('succeeded');
    expect(storeTrail(deps.store).filter((entry) => entry.startsWith('step_started'))).toEqual(['step_started find#0', 'step_started note#0']);
    expect(taskText(callsFor(model, 'notes-agent')[0]!)).toContain('TRAIN-0710');
  });

  it('reads a step without dependsOn (a model ignoring "required") as needing nothing, not every step before it', async () => {
    const routes = new RoutedTurns([
      ['planner', [createPlan([step('a', 'lookup-agent', 'Look up ALPHA'), step('b', 'lookup-agent', 'Look up BETA')])]],
      [forTask('lookup-agent', 'ALPHA'), [complete({ summary: 'ALPHA-OUTPUT' })]],
      [forTask('lookup-agent', 'BETA'), [complete({ summary: 'BETA-OUTPUT' })]],
      ['composer', [say('Both.')]],
    ]);
    const model = routes.model();

    await orchestrate(makeContext({ text: 'alpha and beta' }), makeDeps({ model }));

    expect(taskText(callsFor(model, 'lookup-agent').find((call) => taskText(call).includes('BETA'))!)).not.toContain('ALPHA-OUTPUT');
  });
});

describe('a clarification kept before dependencies were explicit keeps its meaning', () => {
  const keptSteps = [
    { id: 'step_1', agent: 'lookup-agent', task: 'Find the Lisbon notes', dependsOn: [], status: 'completed' as const, version: 1, output: { summary: 'LISBON-NOTES' } },
    { id: 'step_2', agent: 'lookup-agent', task: 'Find the hotel', dependsOn: [], status: 'completed' as const, version: 1, output: { summary: 'HOTEL-FOUND' } },
    { id: 'step_3', agent: 'notes-agent', task: 'Note which trip', dependsOn: [], status: 'completed' as const, version: 1, output: { summary: 'Which trip?', needsClarification: true, question: 'Which trip?' } },
  ];
  const oldPayload = { planId: 'plan_0', goal: 'Plan the trip', analysis: 'a', version: 1, request: 'plan my trip', steps: keptSteps };
  const resume = (payload: object): ResumedPlan => ({ ...clarificationPayloadSchema.parse(payload), question: 'Which trip?' });

  it('reads an empty dependsOn in an old snapshot as every step before it, and in a new one as nothing', () => {
    expect(resumedSteps(resume(oldPayload)).map((kept) => [kept.id, kept.dependsOn, kept.status])).toEqual([
      ['step_1', [], 'completed'],
      ['step_2', ['step_1'], 'completed'],
      ['step_3', ['step_1', 'step_2'], 'skipped'],
    ]);
    expect(resumedSteps(resume({ ...oldPayload, dependencies: 'explicit' })).map((kept) => kept.dependsOn)).toEqual([[], [], []]);
  });

  it('resumes an old snapshot: a new step depending on a kept step sees what that step saw it depend on', async () => {
    const routes = new RoutedTurns([
      ['replanner', [createPlan([step('step_4', 'notes-agent', 'Note the Lisbon hotel', ['step_2'])])]],
      ['notes-agent', [complete({ summary: 'Noted' })]],
      ['composer', [say('Noted the Lisbon hotel.')]],
    ]);
    const model = routes.model();
    const context = { ...makeContext({ text: 'Lisbon' }), resume: resume(oldPayload) };

    const result = await orchestrate(context, makeDeps({ model }));

    expect(result, JSON.stringify(result.failure)).toMatchObject({ reply: 'Noted the Lisbon hotel.' });
    const task = taskText(callsFor(model, 'notes-agent')[0]!);
    expect(task).toContain('HOTEL-FOUND');
    expect(task).toContain('LISBON-NOTES');
  });

  it('keeps new snapshots explicit', async () => {
    const model = new ScriptedModel([createPlan([step('s1', 'lookup-agent', 'Find the dentist', [])]), complete({ summary: 'Two', needsClarification: true, question: 'Which one?' })]);

    const result = await orchestrate(makeContext({ text: 'dentist' }), makeDeps({ model }));

    expect(result.questions?.[0]).toMatchObject({ kind: 'clarification', payload: { dependencies: 'explicit', steps: [expect.objectContaining({ id: 's1', dependsOn: [] })] } });
  });
});
