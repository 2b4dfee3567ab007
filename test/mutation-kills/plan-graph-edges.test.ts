import { describe, expect, it } from 'vitest';
import { dependencyProblems, dependentsOf, explicitFromOrdered, transitiveDependencies, type GraphStep } from '../../src/orchestrator/plan-graph.js';

/**
 * The plan's dependency graph, exactly (issue 32 item 8): which steps a failed step takes with
 * it, which ids a step may name, and every cycle told once with where it starts.
 */
const step = (id: string, ...dependsOn: string[]): GraphStep => ({ id, dependsOn });

describe('dependency problems', () => {
  it('a plan whose steps all name known steps, finished ones included, has none', () => {
    expect(dependencyProblems([step('b', 'a'), step('a'), step('c', 'a', 'b', 'done_1')], ['done_1'])).toEqual([]);
    expect(dependencyProblems([], [])).toEqual([]);
  });

  it('an unknown id is reported at its step’s index, naming the finished steps only when there are some', () => {
    expect(dependencyProblems([step('a'), step('b', 'x')], [])).toEqual([
      { index: 1, message: '"x" is not a step of this plan; dependsOn names only those ids, and [] means the step needs none' },
    ]);
    expect(dependencyProblems([step('a', 'y'), step('b')], ['s1', 's2'])).toEqual([
      { index: 0, message: '"y" is not a step of this plan or a finished step (s1, s2); dependsOn names only those ids, and [] means the step needs none' },
    ]);
  });

  it('a step depending on itself, and a cycle through three steps, each reported once where it starts', () => {
    const problems = dependencyProblems([step('x'), step('a', 'a'), step('b', 'c'), step('c', 'd'), step('d', 'b')], []);
    expect(problems).toEqual([
      { index: 1, message: 'step "a" depends on itself, so none of them could start; a step may depend only on steps that do not need its result' },
      { index: 2, message: 'steps depend on each other in a cycle (b → c → d → b), so none of them could start; a step may depend only on steps that do not need its result' },
    ]);
  });

  it('a diamond is no cycle (a step reached twice is not waiting on itself), and an unknown id inside a cycle check is ignored', () => {
    expect(dependencyProblems([step('a'), step('b', 'a'), step('c', 'a'), step('d', 'b', 'c')], [])).toEqual([]);
    const problems = dependencyProblems([step('a', 'ghost', 'b'), step('b', 'a')], []);
    expect(problems.map((problem) => problem.index)).toEqual([0, 0]);
    expect(problems[1]!.message).toContain('(a → b → a)');
  });
});

describe('cycles, each told once, as the ids around it', () => {
  const cycleNames = (steps: GraphStep[]) => dependencyProblems(steps, []).map((problem) => [problem.index, /\(([^)]*)\)/.exec(problem.message)?.[1] ?? problem.message.slice(0, 30)]);

  it('a step leading into a cycle is not part of it', () => {
    expect(cycleNames([step('x', 'a'), step('a', 'b'), step('b', 'a')])).toEqual([[1, 'a → b → a']]);
  });

  it('a finished branch visited on the way is not part of the cycle found after it', () => {
    expect(cycleNames([step('c', 'x', 'd'), step('x'), step('d', 'c')])).toEqual([[0, 'c → d → c']]);
  });

  it('a cycle reached again from another step is told once', () => {
    expect(cycleNames([step('p', 'q'), step('q', 'p'), step('r', 'q')])).toEqual([[0, 'p → q → p']]);
    expect(dependencyProblems([step('b', 'a'), step('a', 'a')], [])).toEqual([
      { index: 1, message: 'step "a" depends on itself, so none of them could start; a step may depend only on steps that do not need its result' },
    ]);
  });
});

describe('what a step needs and what needs it', () => {
  const plan = [step('a'), step('b', 'a'), step('c', 'b'), step('d'), step('e', 'c', 'd', 'outside')];

  it('transitive dependencies go through every step, once, and leave out ids not in the plan', () => {
    expect([...transitiveDependencies(plan, plan[4]!)].sort()).toEqual(['a', 'b', 'c', 'd']);
    expect([...transitiveDependencies(plan, plan[2]!)].sort()).toEqual(['a', 'b']);
    expect(transitiveDependencies(plan, plan[0]!).size).toBe(0);
    // A cycle does not loop forever.
    const cyclic = [step('p', 'q'), step('q', 'p')];
    expect([...transitiveDependencies(cyclic, cyclic[0]!)].sort()).toEqual(['p', 'q']);
  });

  it('dependents are every step that needs the id, directly or not, in plan order; a step is not its own dependent', () => {
    expect(dependentsOf(plan, 'a').map((candidate) => candidate.id)).toEqual(['b', 'c', 'e']);
    expect(dependentsOf(plan, 'd').map((candidate) => candidate.id)).toEqual(['e']);
    expect(dependentsOf(plan, 'e')).toEqual([]);
  });

  it('an old plan’s empty dependsOn means every step before it; a stated one stays', () => {
    expect(explicitFromOrdered([step('a'), step('b'), step('c', 'a')])).toEqual([step('a'), step('b', 'a'), step('c', 'a')]);
  });
});
