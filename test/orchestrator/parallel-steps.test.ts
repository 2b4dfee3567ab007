/**
 * Steps at once (issue 25): independent steps run side by side up to PLAN_PARALLEL_STEPS, a
 * step starts when the steps it depends on have completed and sees only their outputs, the
 * reply keeps plan order, a failure (or a question) takes only its dependents, the replan is
 * asked about the failed part only, and the turn's model budget holds across steps.
 * Several steps call the model at once, so scripts answer by who asks (RoutedTurns).
 */
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/model/model-client.js';
import type { ScriptedTurn } from '../../src/model/scripted-model.js';
import { orchestrate } from '../../src/orchestrator/orchestrate.js';
import {
  callsFor,
  callTool,
  callTools,
  complete,
  createPlan,
  forTask,
  lastMessageText,
  makeContext,
  makeDeps,
  outage,
  Rendezvous,
  RoutedTurns,
  type RouteMatch,
  say,
  step,
  storeTrail,
  taskText,
} from './support/index.js';

const replanner = (request: ModelRequest) => request.purpose === 'replanner';
const trailIndex = (trail: string[], entry: string) => {
  const index = trail.indexOf(entry);
  expect(index, `${entry} in ${trail.join(', ')}`).toBeGreaterThanOrEqual(0);
  return index;
};

describe('independent steps run at once', () => {
  it('starts both at once; neither sees the other; the composer reads their outcomes in plan order', async () => {
    const together = new Rendezvous(['trains', 'note']);
    const routes = new RoutedTurns([
      ['planner', [createPlan([step('s1', 'lookup-agent', 'Look up the train times', []), step('s2', 'notes-agent', 'Add a note "milk"', [])])]],
      ['lookup-agent', [together.turn('trains', complete({ summary: 'TRAINS-RESULT first train 07:10' }))]],
      ['notes-agent', [together.turn('note', callTool('add_note', { text: 'milk' })), complete({ summary: 'NOTE-RESULT milk added', created: [{ description: 'milk' }] })]],
      ['composer', [say('The first train is at 7:10, and milk is noted.')]],
    ]);
    const model = routes.model();
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'train times? and note milk' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'The first train is at 7:10, and milk is noted.', modelCalls: 5 });
    expect(routes.unused()).toEqual([]);
    expect(taskText(callsFor(model, 'notes-agent').at(-1)!)).not.toContain('TRAINS-RESULT');
    expect(taskText(callsFor(model, 'lookup-agent')[0]!)).not.toContain('NOTE-RESULT');
    const composed = lastMessageText(callsFor(model, 'composer')[0]!);
    expect(composed.indexOf('TRAINS-RESULT')).toBeLessThan(composed.indexOf('NOTE-RESULT'));
    expect(deps.world.notes.map((note) => note.text)).toEqual(['milk']);
  });

  it('starts a dependent step only once its dependency completed, and gives it that output and no other', async () => {
    const together = new Rendezvous(['a', 'b']);
    const routes = new RoutedTurns([
      ['planner', [createPlan([step('a', 'lookup-agent', 'Look up ALPHA', []), step('b', 'lookup-agent', 'Look up BETA', []), step('c', 'notes-agent', 'Note what ALPHA found', ['a'])])]],
      [forTask('lookup-agent', 'ALPHA'), [together.turn('a', complete({ summary: 'ALPHA-OUTPUT' }))]],
      [forTask('lookup-agent', 'BETA'), [together.turn('b', complete({ summary: 'BETA-OUTPUT' }))]],
      ['notes-agent', [complete({ summary: 'Noted alpha' })]],
      ['composer', [say('Done.')]],
    ]);
    const model = routes.model();
    const deps = makeDeps({ model });

    await orchestrate(makeContext({ text: 'look up alpha and beta, note alpha' }), deps);

    const trail = storeTrail(deps.store);
    expect(trailIndex(trail, 'step_finished a#0 completed')).toBeLessThan(trailIndex(trail, 'step_started c#0'));
    const task = taskText(callsFor(model, 'notes-agent')[0]!);
    expect(task).toContain('ALPHA-OUTPUT');
    expect(task).not.toContain('BETA-OUTPUT');
  });

  it('with PLAN_PARALLEL_STEPS=1 runs the steps one at a time, in plan order', async () => {
    const routes = new RoutedTurns([
      ['planner', [createPlan([step('s1', 'lookup-agent', 'Look up ALPHA', []), step('s2', 'lookup-agent', 'Look up BETA', [])])]],
      ['lookup-agent', [complete({ summary: 'alpha' }), complete({ summary: 'beta' })]],
      ['composer', [say('Both looked up.')]],
    ]);
    const model = routes.model();
    const deps = makeDeps({ model, limits: { parallelSteps: 1 } });

    await orchestrate(makeContext({ text: 'alpha and beta' }), deps);

    expect(storeTrail(deps.store).filter((entry) => entry.startsWith('step_'))).toEqual(['step_started s1#0', 'step_finished s1#0 completed', 'step_started s2#0', 'step_finished s2#0 completed']);
    expect(callsFor(model, 'lookup-agent').map(taskText)).toEqual([expect.stringContaining('ALPHA'), expect.stringContaining('BETA')]);
  });

  it('runs at most PLAN_PARALLEL_STEPS at once: a fourth independent step starts when one of three has finished', async () => {
    const together = new Rendezvous(['1', '2', '3']);
    const steps = [1, 2, 3, 4].map((n) => step(`s${n}`, 'lookup-agent', `Look up item ${n}`, []));
    const routes = new RoutedTurns([
      ['planner', [createPlan(steps)]],
      ...[1, 2, 3].map((n): [RouteMatch, ScriptedTurn[]] => [forTask('lookup-agent', `item ${n}`), [together.turn(String(n), complete({ summary: `found ${n}` }))]]),
      [forTask('lookup-agent', 'item 4'), [complete({ summary: 'found 4' })]],
      ['composer', [say('All four found.')]],
    ]);
    const deps = makeDeps({ model: routes.model(), limits: { parallelSteps: 3 } });

    const result = await orchestrate(makeContext({ text: 'look up four things' }), deps);

    expect(result.status).toBe('succeeded');
    const trail = storeTrail(deps.store);
    const firstFinished = Math.min(...['s1', 's2', 's3'].map((id) => trailIndex(trail, `step_finished ${id}#0 completed`)));
    expect(trailIndex(trail, 'step_started s4#0')).toBeGreaterThan(firstFinished);
  });
});

describe('the reply from steps that ran at once', () => {
  it('joins the parts two independent steps wrote, in plan order whichever finished first: no composer call', async () => {
    let noteDone!: () => void;
    const noteFinished = new Promise<void>((resolve) => (noteDone = resolve));
    const routes = new RoutedTurns([
      ['planner', [createPlan([step('s1', 'lookup-agent', 'Look up the train times', []), step('s2', 'notes-agent', 'Add a note "milk"', [])])]],
      // The lookup answers only after the note step has finished: the later step in plan order finishes first.
      [
        'lookup-agent',
        [
          async () => {
            await noteFinished;
            await new Promise((resolve) => setImmediate(resolve));
            return complete({ summary: 'First train 07:10', reply: 'The first train is at 7:10.' });
          },
        ],
      ],
      [
        'notes-agent',
        [
          () => {
            noteDone();
            return callTools(['add_note', { text: 'milk' }], ['complete_step', { summary: 'Added milk', reply: 'Milk is on your notes.', created: [{ description: 'milk' }] }]);
          },
        ],
      ],
    ]);
    const model = routes.model();
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'train times? and note milk' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', reply: 'The first train is at 7:10.\nMilk is on your notes.', modelCalls: 3 });
    expect(callsFor(model, 'composer')).toHaveLength(0);
    const trail = storeTrail(deps.store);
    expect(trailIndex(trail, 'step_finished s2#0 completed')).toBeLessThan(trailIndex(trail, 'step_finished s1#0 completed'));
    // Each was asked for its own part of the answer, not the whole.
    expect(lastMessageText(callsFor(model, 'lookup-agent')[0]!)).toMatch(/<reply>\nYour result is one part of the answer to the user/);
  });

  it('composes when one of them wrote no part', async () => {
    const routes = new RoutedTurns([
      ['planner', [createPlan([step('s1', 'lookup-agent', 'Look up ALPHA', []), step('s2', 'lookup-agent', 'Look up BETA', [])])]],
      [forTask('lookup-agent', 'ALPHA'), [complete({ summary: 'alpha found', reply: 'Alpha is here.' })]],
      [forTask('lookup-agent', 'BETA'), [complete({ summary: 'beta found' })]],
      ['composer', [say('Alpha and beta are both here.')]],
    ]);
    const result = await orchestrate(makeContext({ text: 'alpha and beta?' }), makeDeps({ model: routes.model() }));
    expect(result).toMatchObject({ reply: 'Alpha and beta are both here.', modelCalls: 4 });
  });
});

describe('a failure takes only its dependents', () => {
  it('runs and reports the independent step; the replanner is asked about the failed step and its dependent only', async () => {
    const routes = new RoutedTurns([
      ['planner', [createPlan([step('a', 'notes-agent', 'Add a note "milk"', []), step('b', 'lookup-agent', 'Look up the train', []), step('c', 'notes-agent', 'Note the train time', ['b'])])]],
      [forTask('notes-agent', 'milk'), [callTools(['add_note', { text: 'milk' }], ['complete_step', { summary: 'MILK-ADDED', created: [{ description: 'milk' }] }])]],
      ['lookup-agent', [outage('timetable service down')]],
      [replanner, [say('Milk is noted, but I could not get the train time right now.')]],
    ]);
    const model = routes.model();
    const deps = makeDeps({ model, limits: { stepMaxRetries: 0 } });

    const result = await orchestrate(makeContext({ text: 'note milk, and note the train time' }), deps);

    expect(result).toMatchObject({ status: 'failed', reply: 'Milk is noted, but I could not get the train time right now.' });
    expect(routes.unused()).toEqual([]);
    expect(deps.world.notes.map((note) => note.text)).toEqual(['milk']);
    expect(callsFor(model, 'notes-agent').every((call) => taskText(call).includes('milk'))).toBe(true); // c never ran
    const state = lastMessageText(callsFor(model, 'replanner')[0]!);
    expect(state).toMatch(/<step id="a" agent="notes-agent" status="completed">Add a note &quot;milk&quot;\n\s+Result: MILK-ADDED/);
    expect(state).toMatch(/<step id="b" agent="lookup-agent" status="failed">/);
    expect(state).toMatch(/<step id="c" agent="notes-agent" status="not run">/);
    expect(state).toContain('step b failed after 1 attempt(s)');
    expect(storeTrail(deps.store)).toContain('step_skipped c');
  });

  it('three at once: one succeeds, one fails, one times out; without a replan the composer is told each (the success kept)', async () => {
    const routes = new RoutedTurns([
      ['planner', [createPlan([step('s1', 'notes-agent', 'Add a note "milk"', []), step('s2', 'lookup-agent', 'Look up the train', []), step('s3', 'lookup-agent', 'Look up the STUCK bus', [])])]],
      ['notes-agent', [callTools(['add_note', { text: 'milk' }], ['complete_step', { summary: 'Added milk', created: [{ description: 'milk' }] }])]],
      [forTask('lookup-agent', 'train'), [outage('timetable service down')]],
      [forTask('lookup-agent', 'bus'), [callTool('lookup', { query: 'STUCK' })]],
      ['composer', [say('Milk is noted. I could not get the train (the service is down) or the bus (it took too long).')]],
    ]);
    const model = routes.model();
    const deps = makeDeps({ model, limits: { stepMaxRetries: 0, maxReplans: 0, stepTimeoutMs: 100 } });

    const result = await orchestrate(makeContext({ text: 'note milk; train? bus?' }), deps);

    expect(result).toMatchObject({ status: 'failed', failure: { blame: 'partial' }, reply: 'Milk is noted. I could not get the train (the service is down) or the bus (it took too long).' });
    const composed = lastMessageText(callsFor(model, 'composer')[0]!);
    expect(composed).toMatch(/<outcome status="completed">Add a note &quot;milk&quot;\n\s+Result: Added milk/);
    expect(composed).toMatch(/<outcome status="failed">Look up the train\n\s+Failed: ModelError: timetable service down/);
    expect(composed).toMatch(/<outcome status="failed">Look up the STUCK bus\n\s+Failed: TimeoutError: step s3 took longer than 100 ms/);
    expect(deps.world.notes.map((note) => note.text)).toEqual(['milk']);
  });

  it('three at once, then a replan of the two that went wrong: nothing done before is done twice, even by a step that repeats it', async () => {
    const routes = new RoutedTurns([
      ['planner', [createPlan([step('s1', 'notes-agent', 'Add a note "milk"', []), step('s2', 'lookup-agent', 'Look up the train', []), step('s3', 'lookup-agent', 'Look up the STUCK bus', [])])]],
      [forTask('notes-agent', 'Add a note "milk"'), [callTools(['add_note', { text: 'milk' }], ['complete_step', { summary: 'Added milk', created: [{ description: 'milk' }] }])]],
      [forTask('lookup-agent', 'Look up the train'), [outage('timetable service down')]],
      [forTask('lookup-agent', 'Look up the STUCK bus'), [callTool('lookup', { query: 'STUCK' })]],
      [
        replanner,
        [
          createPlan([
            step('r1', 'lookup-agent', 'Find train and bus times with the backup service', []),
            // A revision that (wrongly) asks for the milk note again, with the times.
            step('r2', 'notes-agent', 'Note milk and the times', ['r1']),
          ]),
        ],
      ],
      [forTask('lookup-agent', 'backup service'), [complete({ summary: 'Train 07:10, bus 07:25' })]],
      [forTask('notes-agent', 'Note milk and the times'), [callTools(['add_note', { text: 'milk' }], ['add_note', { text: 'train 07:10, bus 07:25' }], ['complete_step', { summary: 'Noted both', created: [{ description: 'milk' }, { description: 'times' }] }])]],
      ['composer', [say('Milk is noted; the train is at 7:10 and the bus at 7:25.')]],
    ]);
    const model = routes.model();
    const deps = makeDeps({ model, limits: { stepMaxRetries: 0, stepTimeoutMs: 100 } });

    const result = await orchestrate(makeContext({ text: 'note milk; train? bus?' }), deps);

    expect(result, JSON.stringify(result.failure)).toMatchObject({ status: 'succeeded', reply: 'Milk is noted; the train is at 7:10 and the bus at 7:25.' });
    expect(routes.unused()).toEqual([]);
    // The replanner was asked about s2 and s3; s1 is kept, not offered for replanning.
    const state = lastMessageText(callsFor(model, 'replanner')[0]!);
    expect(state).toMatch(/<step id="s1" agent="notes-agent" status="completed">/);
    expect(state).toMatch(/<step id="s2" agent="lookup-agent" status="failed">[^<]*Error: ModelError: timetable service down/);
    expect(state).toMatch(/<step id="s3" agent="lookup-agent" status="failed">[^<]*Error: TimeoutError: step s3 took longer than 100 ms/);
    // The note made by s1 is not made again: the repeated call is answered with its first result.
    expect(deps.world.notes.map((note) => note.text)).toEqual(['milk', 'train 07:10, bus 07:25']);
    expect(deps.world.journal.filter((entry) => entry === 'add_note:start:milk')).toHaveLength(1);
    expect(deps.logs.lines.filter((line) => line.event === 'tool_call_replayed')).toEqual([expect.objectContaining({ tool: 'add_note', stepId: 'r2_v2' })]);
  });
});

describe('questions from steps that ran at once', () => {
  it('a step asking while another adds a note: the note is made and reported, and one question is asked', async () => {
    const routes = new RoutedTurns([
      ['planner', [createPlan([step('s1', 'notes-agent', 'Add a note "milk"', []), step('s2', 'lookup-agent', 'Find the dentist appointment', []), step('s3', 'notes-agent', 'Note the appointment', ['s2'])])]],
      [forTask('notes-agent', 'milk'), [callTools(['add_note', { text: 'milk' }], ['complete_step', { summary: 'Added milk', created: [{ description: 'milk' }] }])]],
      ['lookup-agent', [complete({ summary: 'Two dentists', needsClarification: true, question: 'Dr. Cohen or Dr. Levi?' })]],
      ['composer', [say('Milk is noted.')]],
    ]);
    const model = routes.model();
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'note milk and note my dentist appointment' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', path: 'clarification', reply: 'Milk is noted.\n\nDr. Cohen or Dr. Levi?' });
    expect(result.questions).toEqual([expect.objectContaining({ kind: 'clarification', question: 'Dr. Cohen or Dr. Levi?' })]);
    expect(deps.world.notes.map((note) => note.text)).toEqual(['milk']);
    expect(storeTrail(deps.store)).toContain('step_skipped s3');
  });

  it('two steps asking at once: one message asks both, in plan order, kept as one clarification', async () => {
    const routes = new RoutedTurns([
      ['planner', [createPlan([step('s1', 'lookup-agent', 'Find the dentist', []), step('s2', 'lookup-agent', 'Find the gym class', [])])]],
      // The second in plan order asks first.
      [forTask('lookup-agent', 'gym'), [complete({ summary: 'Two classes', needsClarification: true, question: 'Yoga or spin?' })]],
      [forTask('lookup-agent', 'dentist'), [complete({ summary: 'Two dentists', needsClarification: true, question: 'Dr. Cohen or Dr. Levi?' })]],
    ]);
    const result = await orchestrate(makeContext({ text: 'book the dentist and the gym' }), makeDeps({ model: routes.model() }));

    expect(result).toMatchObject({ path: 'clarification', reply: 'Dr. Cohen or Dr. Levi?\n\nYoga or spin?' });
    expect(result.questions).toEqual([expect.objectContaining({ kind: 'clarification', question: 'Dr. Cohen or Dr. Levi?\n\nYoga or spin?' })]);
  });
});

describe('the turn budget across steps running at once', () => {
  it('reached while two steps run: no further step starts, both stop, the reply says what was done', async () => {
    // Endless distinct calls, so only the budget stops them.
    const notes = Array.from({ length: 8 }, (_, index) => callTool('add_note', { text: `milk ${index + 1}` }));
    const lookups = Array.from({ length: 8 }, (_, index) => callTool('lookup', { query: `train ${index + 1}` }));
    const routes = new RoutedTurns([
      ['planner', [createPlan([step('s1', 'notes-agent', 'Add milk notes', []), step('s2', 'lookup-agent', 'Look up every train', []), step('s3', 'lookup-agent', 'Look up the weather', [])])]],
      [forTask('notes-agent', 'milk'), notes],
      [forTask('lookup-agent', 'train'), lookups],
      [forTask('lookup-agent', 'weather'), [complete({ summary: 'never asked' })]],
      ['composer', [say('I added a few milk notes, but stopped before the trains and the weather.')]],
    ]);
    const model = routes.model();
    const deps = makeDeps({ model, limits: { turnMaxModelCalls: 6, parallelSteps: 2 } });

    const result = await orchestrate(makeContext({ text: 'milk notes, every train, the weather' }), deps);

    expect(result).toMatchObject({ modelCalls: 6, status: 'failed', failure: { blame: 'budget' }, reply: 'I added a few milk notes, but stopped before the trains and the weather.' });
    expect(callsFor(model, 'notes-agent').length + callsFor(model, 'lookup-agent').length).toBe(4);
    expect(callsFor(model, 'lookup-agent').some((call) => taskText(call).includes('weather'))).toBe(false);
    expect(storeTrail(deps.store)).toContain('step_skipped s3');
    expect(deps.logs.lines.filter((line) => line.event === 'step_failed').map((line) => line.errorKind)).toEqual(['budget', 'budget']);
    expect(lastMessageText(callsFor(model, 'composer')[0]!)).toContain('the turn reached its limit of 6 model calls');
    expect(deps.logs.lines.some((line) => line.event === 'plan_replanned')).toBe(false);
  });
});
