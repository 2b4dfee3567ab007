/** A step as the dependency graph sees it: its id and the ids of the steps it needs. */
export interface GraphStep {
  id: string;
  dependsOn: readonly string[];
}

/** Why a step's dependencies cannot run, with the step's index in the plan. */
export interface DependencyProblem {
  index: number;
  message: string;
}

/**
 * What is wrong with a plan's dependencies, for the planner to fix: a step naming an id that
 * is neither a step of this plan nor one of the `finished` steps it may build on, or steps
 * that wait for each other (a cycle, a step depending on itself included). A plan may list a
 * step before the steps it needs; only the graph matters.
 */
export function dependencyProblems(steps: readonly GraphStep[], finished: readonly string[]): DependencyProblem[] {
  const problems: DependencyProblem[] = [];
  const inPlan = new Set(steps.map((step) => step.id));
  const known = new Set([...inPlan, ...finished]);
  steps.forEach((step, index) => {
    for (const dependency of step.dependsOn) {
      if (known.has(dependency)) continue;
      const finishedNote = finished.length > 0 ? ` or a finished step (${finished.join(', ')})` : '';
      problems.push({ index, message: `"${dependency}" is not a step of this plan${finishedNote}; dependsOn names only those ids, and [] means the step needs none` });
    }
  });
  for (const cycle of cycles(steps)) {
    const index = steps.findIndex((step) => step.id === cycle[0]);
    problems.push({
      index,
      message: `${cycle.length === 2 ? `step "${cycle[0]}" depends on itself` : `steps depend on each other in a cycle (${cycle.join(' → ')})`}, so none of them could start; a step may depend only on steps that do not need its result`,
    });
  }
  return problems;
}

/** Each dependency cycle once, as the ids around it with the first repeated at the end ("a → b → a"). */
function cycles(steps: readonly GraphStep[]): string[][] {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const state = new Map<string, 'visiting' | 'done'>();
  const found: string[][] = [];
  const path: string[] = [];
  const visit = (id: string): void => {
    state.set(id, 'visiting');
    path.push(id);
    for (const dependency of byId.get(id)?.dependsOn ?? []) {
      if (!byId.has(dependency)) continue;
      const seen = state.get(dependency);
      if (seen === 'visiting') found.push([...path.slice(path.indexOf(dependency)), dependency]);
      else if (seen === undefined) visit(dependency);
    }
    path.pop();
    state.set(id, 'done');
  };
  for (const step of steps) if (!state.has(step.id)) visit(step.id);
  return found;
}

/** The ids `step` needs, directly or through the steps it needs (only ids present in `steps`). */
export function transitiveDependencies(steps: readonly GraphStep[], step: GraphStep): Set<string> {
  const byId = new Map(steps.map((candidate) => [candidate.id, candidate]));
  const needed = new Set<string>();
  const queue = [...step.dependsOn];
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (needed.has(id) || !byId.has(id)) continue;
    needed.add(id);
    queue.push(...byId.get(id)!.dependsOn);
  }
  return needed;
}

/** The steps that need `id`, directly or through other steps, in plan order. */
export function dependentsOf<Step extends GraphStep>(steps: readonly Step[], id: string): Step[] {
  return steps.filter((step) => transitiveDependencies(steps, step).has(id));
}

/**
 * The old reading of `dependsOn` (plans stored before dependencies were explicit): an empty
 * list meant "every step before me", since steps then ran one at a time, in order, each
 * seeing all earlier results. Rewrites such a plan's steps to say so explicitly.
 */
export function explicitFromOrdered<Step extends GraphStep>(steps: readonly Step[]): Step[] {
  return steps.map((step, index) => (step.dependsOn.length > 0 ? step : { ...step, dependsOn: steps.slice(0, index).map((earlier) => earlier.id) }));
}
