/**
 * Seed 000's four Gherkin scenarios, end to end through orchestrate() with a scripted model:
 * steps in order (FR-1), a failing step mid-plan (FR-3), a plan that runs out of time
 * (C-1, NFR-5), and a replan when a step comes back empty (FR-2).
 */
import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { orchestrate } from '../../src/orchestrator/orchestrate.js';
import type { PlanStep, StepResult } from '../../src/orchestrator/plan-state.js';
import { InMemoryPlanStore } from '../../src/orchestrator/plan-store.js';
import { TimeoutError } from '../../src/shared/errors.js';
import {
  callsFor,
  callTool,
  complete,
  createPlan,
  createTestWorld,
  lastMessageText,
  makeContext,
  makeDeps,
  outage,
  purposes,
  requestText,
  say,
  step,
  storeTrail,
  when,
} from './support/index.js';

/** A store that also writes step transitions into the world's journal, interleaved with tool runs. */
class JournalStore extends InMemoryPlanStore {
  constructor(private readonly journal: string[]) {
    super();
  }
  override async stepStarted(planId: string, planStep: PlanStep): Promise<void> {
    this.journal.push(`step ${planStep.id} started`);
    await super.stepStarted(planId, planStep);
  }
  override async stepFinished(planId: string, planStep: PlanStep, result: StepResult): Promise<void> {
    this.journal.push(`step ${planStep.id} ${result.success ? 'completed' : 'failed'}`);
    await super.stepFinished(planId, planStep, result);
  }
}

const threeSteps = [
  step('A', 'notes-agent', 'Add a note "alpha"'),
  step('B', 'notes-agent', 'Add a note "beta"', ['A']),
  step('C', 'notes-agent', 'Add a note "gamma"', ['B']),
];

describe('Scenario: steps execute in order (FR-1, FR-5)', () => {
  it('starts B only after A completes and C only after B completes, each seeing the earlier results', async () => {
    const world = createTestWorld();
    const model = new ScriptedModel([
      createPlan(threeSteps),
      when(() => world.journal.push('model A'), callTool('add_note', { text: 'alpha' })),
      complete({ summary: 'Added the note ALPHA-RESULT', created: [{ description: 'alpha' }] }),
      when(() => world.journal.push('model B'), callTool('add_note', { text: 'beta' })),
      complete({ summary: 'Added the note BETA-RESULT', created: [{ description: 'beta' }] }),
      when(() => world.journal.push('model C'), callTool('add_note', { text: 'gamma' })),
      complete({ summary: 'Added the note GAMMA-RESULT', created: [{ description: 'gamma' }] }),
      say('Done: alpha, beta and gamma are noted.'),
    ]);
    const deps = { ...makeDeps({ model, world }), store: new JournalStore(world.journal) };

    const result = await orchestrate(makeContext({ text: 'note alpha, beta and gamma' }), deps);

    expect(result).toMatchObject({ status: 'succeeded', path: 'plan', reply: 'Done: alpha, beta and gamma are noted.', modelCalls: 8 });
    expect(purposes(model)).toEqual(['planner', 'notes-agent', 'notes-agent', 'notes-agent', 'notes-agent', 'notes-agent', 'notes-agent', 'composer']);
    // Execution order: B's model call and tool run only after A's tool finished, C's after B's.
    expect(world.journal.filter((entry) => !entry.startsWith('step '))).toEqual([
      'model A',
      'add_note:start:alpha',
      'add_note:end:alpha',
      'model B',
      'add_note:start:beta',
      'add_note:end:beta',
      'model C',
      'add_note:start:gamma',
      'add_note:end:gamma',
    ]);
    // The plan records (written behind the plan, in order) tell the same story.
    expect(world.journal.filter((entry) => entry.startsWith('step '))).toEqual([
      'step A started',
      'step A completed',
      'step B started',
      'step B completed',
      'step C started',
      'step C completed',
    ]);
    // FR-5: each step's first request carries the earlier steps' outputs, and only those.
    const [, a, , b, , c] = model.calls;
    expect(lastMessageText(a!)).not.toContain('<context_from_previous_steps>');
    expect(lastMessageText(b!)).toContain('ALPHA-RESULT');
    expect(lastMessageText(b!)).not.toContain('BETA-RESULT');
    expect(lastMessageText(c!)).toContain('ALPHA-RESULT');
    expect(lastMessageText(c!)).toContain('BETA-RESULT');
    expect(world.notes.map((note) => note.text)).toEqual(['alpha', 'beta', 'gamma']);
  });
});

describe('Scenario: a step fails mid-plan (FR-3, FR-6)', () => {
  it('returns A’s results and explains that B failed and C was skipped (no replans allowed)', async () => {
    const model = new ScriptedModel([
      createPlan(threeSteps),
      complete({ summary: 'ALPHA-RESULT: nothing to add, the task is done' }),
      outage('B attempt 1'),
      outage('B attempt 2'),
      outage('B attempt 3'),
      say('I noted alpha, but beta could not be saved, so gamma was not done either.'),
    ]);
    const deps = makeDeps({ model, limits: { stepMaxRetries: 2, maxReplans: 0 } });

    const result = await orchestrate(makeContext({ text: 'note alpha, beta and gamma' }), deps);

    expect(result).toMatchObject({
      status: 'failed',
      path: 'plan',
      reply: 'I noted alpha, but beta could not be saved, so gamma was not done either.',
      failure: { blame: 'partial' },
      modelCalls: 6,
    });
    expect(purposes(model)).toEqual(['planner', 'notes-agent', 'notes-agent', 'notes-agent', 'notes-agent', 'composer']);
    // What the composer was shown: A completed with its result, B failed, C not done.
    const composer = callsFor(model, 'composer')[0]!;
    const shown = lastMessageText(composer);
    expect(shown).toMatch(/<outcome status="completed">Add a note &quot;alpha&quot;\n\s+Result: ALPHA-RESULT/);
    expect(shown).toMatch(/<outcome status="failed">Add a note &quot;beta&quot;\n\s+Failed: .*B attempt 3/);
    expect(shown).toMatch(/<outcome status="skipped">Add a note &quot;gamma&quot;\n\s+Not done\./);
    expect(shown).toContain('<user_message>\nnote alpha, beta and gamma\n</user_message>');
    expect(storeTrail(deps.store)).toEqual([
      'plan_started',
      'plan_updated executing',
      'step_started A#0',
      'step_finished A#0 completed',
      'step_started B#0',
      'step_finished B#0 failed',
      'step_started B#1',
      'step_finished B#1 failed',
      'step_started B#2',
      'step_finished B#2 failed',
      'step_skipped C',
      'plan_finished failed',
    ]);
  });

  it('with replans allowed, the replanner sees the plan state and may stop with a reply that keeps A’s result', async () => {
    const model = new ScriptedModel([
      createPlan(threeSteps),
      complete({ summary: 'ALPHA-RESULT saved' }),
      outage(),
      outage(),
      outage(),
      say('Alpha is noted; beta failed to save and I did not get to gamma.'),
    ]);
    const deps = makeDeps({ model });

    const result = await orchestrate(makeContext({ text: 'note alpha, beta and gamma' }), deps);

    expect(purposes(model)).toEqual(['planner', 'notes-agent', 'notes-agent', 'notes-agent', 'notes-agent', 'replanner']);
    expect(result).toMatchObject({ status: 'failed', failure: { blame: 'partial' }, reply: 'Alpha is noted; beta failed to save and I did not get to gamma.', modelCalls: 6 });
    const state = lastMessageText(callsFor(model, 'replanner')[0]!);
    expect(state).toContain('<plan_state>');
    expect(state).toMatch(/<step id="A" agent="notes-agent" status="completed">[^<]*\n\s+Result: ALPHA-RESULT saved/);
    expect(state).toMatch(/<step id="B" agent="notes-agent" status="failed">/);
    expect(state).toMatch(/<step id="C" agent="notes-agent" status="not run">/);
    expect(state).toContain('failed after 3 attempt(s)');
    // The replanner stopping after a failure is a failed plan, not a completed one.
    expect(storeTrail(deps.store).slice(-3)).toEqual(['step_skipped C', 'plan_updated executing', 'plan_finished failed']);
  });
});

describe('Scenario: plan exceeds its timeout (C-1, NFR-5)', () => {
  it('stops when the plan time elapses, aborts the step in flight, returns partial results and blames the timeout', async () => {
    const model = new ScriptedModel([
      createPlan(threeSteps),
      complete({ summary: 'ALPHA-RESULT saved' }),
      // B would take 30 s; the plan has 150 ms.
      { delayMs: 30_000, then: complete({ summary: 'too late' }) },
      say('I noted alpha but ran out of time for beta and gamma.'),
    ]);
    const deps = makeDeps({ model, limits: { planTimeoutMs: 150, stepTimeoutMs: 20_000 } });

    const result = await orchestrate(makeContext({ text: 'note alpha, beta and gamma' }), deps);

    // Cut by the plan's 150 ms, not by the step's 20 s nor B's 30 s: the abort reason below says which.
    expect(result).toMatchObject({ status: 'failed', path: 'plan', failure: { blame: 'timeout' }, reply: 'I noted alpha but ran out of time for beta and gamma.', modelCalls: 4 });
    expect(purposes(model)).toEqual(['planner', 'notes-agent', 'notes-agent', 'composer']);
    // The in-flight call was aborted by the plan timeout, and B was not retried.
    const inFlight = model.calls[2]!;
    expect(inFlight.signal?.aborted).toBe(true);
    expect(inFlight.signal?.reason).toBeInstanceOf(TimeoutError);
    expect((inFlight.signal?.reason as Error).message).toContain('the plan took longer than 150 ms');
    const shown = lastMessageText(callsFor(model, 'composer')[0]!);
    expect(shown).toMatch(/status="completed">Add a note &quot;alpha&quot;\n\s+Result: ALPHA-RESULT saved/);
    expect(shown).toMatch(/status="failed">Add a note &quot;beta&quot;\n\s+Failed: TimeoutError/);
    expect(shown).toMatch(/status="skipped">Add a note &quot;gamma&quot;/);
    expect(shown).toContain('<note>Time ran out before everything was done.</note>');
    expect(storeTrail(deps.store).slice(-4)).toEqual(['step_started B#0', 'step_finished B#0 failed', 'step_skipped C', 'plan_finished timed_out']);
    const timeoutEvent = deps.logs.lines.find((line) => line.event === 'step_failed');
    expect(timeoutEvent).toMatchObject({ stepId: 'B', errorKind: 'timeout' });
  });
});

describe('Scenario: a step returns empty results (FR-2)', () => {
  it('replans with the plan state; the revision runs with fresh ids and the empty step is not re-run', async () => {
    const world = createTestWorld();
    const model = new ScriptedModel([
      createPlan([step('step_1', 'lookup-agent', 'Find notes about the Lisbon trip'), step('step_2', 'notes-agent', 'Summarise the Lisbon notes from step_1 into a new note', ['step_1'])]),
      callTool('lookup', { query: 'lisbon trip' }),
      complete({ summary: 'No notes about the Lisbon trip', isEmpty: true, data: { results: [] } }),
      createPlan([step('step_2', 'notes-agent', 'Add a note "Start a Lisbon trip list" since none exists', ['step_1'])]),
      callTool('add_note', { text: 'Start a Lisbon trip list' }),
      complete({ summary: 'Added a starter note', created: [{ description: 'Start a Lisbon trip list' }] }),
      say('I found no Lisbon notes, so I started a list for the trip.'),
    ]);
    const deps = makeDeps({ model, world });

    const result = await orchestrate(makeContext({ text: 'find my Lisbon trip notes and summarise them in a note' }), deps);

    // (result.status: see limits.test.ts, "a plan recovered by a replan" — orchestrate.ts counts the superseded step.)
    expect(result).toMatchObject({ path: 'plan', reply: 'I found no Lisbon notes, so I started a list for the trip.', modelCalls: 7 });
    expect(purposes(model)).toEqual(['planner', 'lookup-agent', 'lookup-agent', 'replanner', 'notes-agent', 'notes-agent', 'composer']);
    const replanner = callsFor(model, 'replanner')[0]!;
    expect(replanner.temperature).toBe(0);
    const state = lastMessageText(replanner);
    expect(state).toContain('step step_1 found nothing, and later steps needed its result');
    expect(state).toMatch(/<step id="step_1" agent="lookup-agent" status="completed">Find notes about the Lisbon trip\n\s+Result: No notes about the Lisbon trip/);
    expect(state).toMatch(/<step id="step_2" agent="notes-agent" status="not run">/);
    // The revision ran under a fresh id; step_1 ran once and was kept.
    expect(world.journal).toEqual(['lookup:lisbon trip', 'add_note:start:Start a Lisbon trip list', 'add_note:end:Start a Lisbon trip list']);
    expect(storeTrail(deps.store)).toEqual([
      'plan_started',
      'plan_updated executing',
      'step_started step_1#0',
      'step_finished step_1#0 completed',
      'step_skipped step_2',
      'plan_updated executing',
      'step_started step_2_v2#0',
      'step_finished step_2_v2#0 completed',
      'plan_finished completed',
    ]);
    // The revised step depends on the kept step_1, and sees its (empty) output.
    expect(lastMessageText(callsFor(model, 'notes-agent')[0]!)).toContain('No notes about the Lisbon trip');
    expect(requestText(callsFor(model, 'notes-agent')[0]!)).toContain('since none exists');
  });
});
