/** mergeSteps (seed 000): a revision's steps join the plan with fresh ids; completed work is never redone. */
import { describe, expect, it } from 'vitest';
import { mergeSteps } from '../../src/orchestrator/replan.js';
import type { ExecutionPlan, PlanStep } from '../../src/orchestrator/plan-state.js';

function planWith(steps: Array<Partial<PlanStep> & Pick<PlanStep, 'id' | 'status'>>, version = 2): ExecutionPlan {
  return {
    id: 'plan_1',
    goal: 'g',
    analysis: 'a',
    steps: steps.map((entry) => ({ agent: 'notes-agent', task: `task ${entry.id}`, dependsOn: [], retryCount: 0, version: 1, ...entry })),
    status: 'replanning',
    version,
    errors: [],
    createdAt: new Date(0),
  };
}

describe('mergeSteps', () => {
  it('appends the revision after the kept steps with ids <id>_v<version>, pending, of that version', () => {
    const plan = planWith([
      { id: 'step_1', status: 'completed' },
      { id: 'step_2', status: 'failed' },
      { id: 'step_3', status: 'skipped' },
    ]);
    const added = mergeSteps(plan, [
      { id: 'step_2', agent: 'lookup-agent', task: 'Try another way' },
      { id: 'step_3', agent: 'notes-agent', task: 'Note it', dependsOn: ['step_2', 'step_1'] },
    ]);
    expect(added).toBe(2);
    expect(plan.steps.map((entry) => [entry.id, entry.status, entry.version])).toEqual([
      ['step_1', 'completed', 1],
      ['step_2', 'failed', 1],
      ['step_3', 'skipped', 1],
      ['step_2_v2', 'pending', 2],
      ['step_3_v2', 'pending', 2],
    ]);
    // Dependencies on revision steps follow the rename; on kept steps they stay.
    expect(plan.steps[4]!.dependsOn).toEqual(['step_2_v2', 'step_1']);
    expect(plan.steps[3]).toMatchObject({ agent: 'lookup-agent', task: 'Try another way', retryCount: 0, dependsOn: [] });
  });

  it('drops a step that repeats a completed one (same agent and task), and points its dependents at the completed step', () => {
    const plan = planWith([{ id: 'step_1', status: 'completed', agent: 'lookup-agent', task: 'Find the notes' }]);
    const added = mergeSteps(plan, [
      { id: 'again', agent: 'lookup-agent', task: '  Find the notes ' },
      { id: 'note', agent: 'notes-agent', task: 'Note what was found', dependsOn: ['again'] },
    ]);
    expect(added).toBe(1);
    expect(plan.steps.map((entry) => entry.id)).toEqual(['step_1', 'note_v2']);
    expect(plan.steps[1]!.dependsOn).toEqual(['step_1']);
  });

  it('keeps a step with the same task for another agent, or a repeat of a failed step', () => {
    const plan = planWith([
      { id: 'a', status: 'completed', agent: 'lookup-agent', task: 'Same task' },
      { id: 'b', status: 'failed', agent: 'lookup-agent', task: 'Failed task' },
    ]);
    expect(mergeSteps(plan, [
      { id: 'x', agent: 'notes-agent', task: 'Same task' },
      { id: 'y', agent: 'lookup-agent', task: 'Failed task' },
    ])).toBe(2);
  });

  it('never reuses an id already in the plan', () => {
    const plan = planWith([
      { id: 'step_1', status: 'completed' },
      { id: 'retry_v3', status: 'failed' },
      { id: 'retry_v3_', status: 'skipped' },
    ], 3);
    mergeSteps(plan, [{ id: 'retry', agent: 'notes-agent', task: 'Retry' }]);
    expect(plan.steps.at(-1)!.id).toBe('retry_v3__');
    expect(new Set(plan.steps.map((entry) => entry.id)).size).toBe(plan.steps.length);
  });

  it('adds nothing for an empty revision', () => {
    const plan = planWith([{ id: 'step_1', status: 'completed' }]);
    expect(mergeSteps(plan, [])).toBe(0);
    expect(plan.steps).toHaveLength(1);
  });
});
