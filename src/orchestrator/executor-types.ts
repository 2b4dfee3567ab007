import type { AgentRegistry } from '../agents/agent-registry.js';
import type { Logger } from '../logging/logger.js';
import type { Tracing } from '../observability/tracing.js';
import type { Clock } from '../shared/clock.js';
import type { ExecutionPlan } from './plan-state.js';
import type { PlanStore, PlanTotals } from './plan-store.js';
import type { PlanningOutcome, PlanningRequest } from './planner.js';
import type { StepRunnerDependencies } from './step-runner.js';

/*
 * The executor's contract, apart from executor.ts so that replan.ts (which the executor calls)
 * can name it without importing the executor back.
 */

/** The limits the executor enforces (C-2 … C-5), and how many steps may run at once. */
interface ExecutionLimits {
  stepTimeoutMs: number;
  stepMaxRetries: number;
  maxReplans: number;
  maxPlanSteps: number;
  /** Steps of one turn running at once (PLAN_PARALLEL_STEPS); default 3 (executor.ts DEFAULT_PARALLEL_STEPS). */
  parallelSteps?: number;
}

/** What executing a plan needs. */
export interface ExecutorDependencies {
  registry: AgentRegistry;
  stepRunner: StepRunnerDependencies;
  store: PlanStore;
  clock: Clock;
  logger: Logger;
  limits: ExecutionLimits;
  /** A replanning round (the planner with the plan's state appended). */
  replan: (request: Omit<PlanningRequest, 'signal' | 'turnSections'>) => Promise<PlanningOutcome>;
  totals: () => PlanTotals;
  /** A span per step attempt; absent: none. */
  tracing?: Tracing;
  /** True once the turn's model budget allows no more work calls: no step starts after that. */
  budgetExhausted?: () => boolean;
}

/** How execution ended. */
export interface ExecutionOutcome {
  plan: ExecutionPlan;
  /** The question(s) to ask, in plan order, when steps need the user to clarify. */
  question?: string;
  /** The replanner's plain-text answer, when it chose to stop. */
  replannerReply?: string;
  /** Why execution stopped early, for the composer. */
  note?: string;
}
