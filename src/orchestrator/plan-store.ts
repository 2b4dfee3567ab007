import type { Prisma, PlanRunStatus } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { TokenUsage } from '../model/model-client.js';
import type { ExecutionPlan, PlanStep, StepResult } from './plan-state.js';

/** Totals for a plan run so far. */
export interface PlanTotals {
  modelCalls: number;
  usage: TokenUsage;
}

/**
 * Where plan and step transitions are recorded for debugging (PlanRun / StepRun rows).
 * Injected: tests use the in-memory store, production the Prisma one.
 */
export interface PlanStore {
  planStarted(record: { planId: string; turnId: string; userId: string; startedAt: Date }): Promise<void>;
  planUpdated(plan: ExecutionPlan, status: PlanRunStatus, totals: PlanTotals): Promise<void>;
  planFinished(planId: string, status: PlanRunStatus, totals: PlanTotals, finishedAt: Date, error?: string, plan?: ExecutionPlan): Promise<void>;
  stepStarted(planId: string, step: PlanStep, planVersion: number, startedAt: Date): Promise<void>;
  stepFinished(planId: string, step: PlanStep, result: StepResult, finishedAt: Date): Promise<void>;
  stepSkipped(planId: string, step: PlanStep, planVersion: number, at: Date): Promise<void>;
}

const stepRunId = (planId: string, step: PlanStep) => `${planId}:${step.id}:${step.retryCount}`;

/**
 * The plan's steps as stored JSON: ids, agents, tasks, statuses and what each depended on
 * (explicit: [] needed nothing). Rows stored before dependencies were explicit have no
 * `dependsOn`: their steps ran one at a time, in order.
 */
function stepsJson(plan: ExecutionPlan): Prisma.InputJsonValue {
  return plan.steps.map((step) => ({ id: step.id, agent: step.agent, task: step.task, dependsOn: step.dependsOn, status: step.status, retryCount: step.retryCount, version: step.version }));
}

/** Writes PlanRun / StepRun rows as the plan runs. */
export class PrismaPlanStore implements PlanStore {
  constructor(private readonly prisma: PrismaClient) {}

  async planStarted(record: { planId: string; turnId: string; userId: string; startedAt: Date }): Promise<void> {
    await this.prisma.planRun.create({ data: { id: record.planId, turnId: record.turnId, userId: record.userId, startedAt: record.startedAt } });
  }

  async planUpdated(plan: ExecutionPlan, status: PlanRunStatus, totals: PlanTotals): Promise<void> {
    await this.prisma.planRun.update({
      where: { id: plan.id },
      data: {
        status,
        version: plan.version,
        replans: plan.version - 1,
        goal: plan.goal,
        analysis: plan.analysis,
        responseHint: plan.responseHint ?? null,
        steps: stepsJson(plan),
        ...totalsData(totals),
      },
    });
  }

  async planFinished(planId: string, status: PlanRunStatus, totals: PlanTotals, finishedAt: Date, error?: string, plan?: ExecutionPlan): Promise<void> {
    await this.prisma.planRun.update({
      where: { id: planId },
      data: {
        status,
        finishedAt,
        error: error?.slice(0, 2000) ?? null,
        ...totalsData(totals),
        ...(plan ? { steps: stepsJson(plan), version: plan.version, replans: plan.version - 1 } : {}),
      },
    });
  }

  async stepStarted(planId: string, step: PlanStep, planVersion: number, startedAt: Date): Promise<void> {
    await this.prisma.stepRun.create({
      data: { id: stepRunId(planId, step), planRunId: planId, stepId: step.id, agent: step.agent, task: step.task, planVersion, attempt: step.retryCount, startedAt },
    });
  }

  async stepFinished(planId: string, step: PlanStep, result: StepResult, finishedAt: Date): Promise<void> {
    await this.prisma.stepRun.update({
      where: { id: stepRunId(planId, step) },
      data: {
        status: result.success ? 'completed' : 'failed',
        output: (result.output ?? undefined) as Prisma.InputJsonValue | undefined,
        error: result.error?.slice(0, 2000) ?? null,
        errorKind: result.errorKind ?? null,
        toolCalls: result.toolCalls.map((call) => ({ name: call.name, isError: call.isError, mutates: call.mutates, input: call.input, result: call.result })) as Prisma.InputJsonValue,
        modelCalls: result.modelCalls,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        finishedAt,
        durationMs: result.durationMs,
      },
    });
  }

  async stepSkipped(planId: string, step: PlanStep, planVersion: number, at: Date): Promise<void> {
    await this.prisma.stepRun.create({
      data: { id: stepRunId(planId, step), planRunId: planId, stepId: step.id, agent: step.agent, task: step.task, planVersion, attempt: step.retryCount, status: 'skipped', startedAt: at, finishedAt: at },
    });
  }
}

function totalsData(totals: PlanTotals) {
  return {
    modelCalls: totals.modelCalls,
    inputTokens: totals.usage.inputTokens,
    outputTokens: totals.usage.outputTokens,
    cacheReadTokens: totals.usage.cacheReadTokens,
  };
}

/** Records transitions in memory (unit tests, benchmarks). */
export class InMemoryPlanStore implements PlanStore {
  readonly events: Array<{ kind: string; planId: string; stepId?: string; status?: string; attempt?: number }> = [];

  async planStarted(record: { planId: string }): Promise<void> {
    this.events.push({ kind: 'plan_started', planId: record.planId });
  }
  async planUpdated(plan: ExecutionPlan, status: PlanRunStatus): Promise<void> {
    this.events.push({ kind: 'plan_updated', planId: plan.id, status });
  }
  async planFinished(planId: string, status: PlanRunStatus): Promise<void> {
    this.events.push({ kind: 'plan_finished', planId, status });
  }
  async stepStarted(planId: string, step: PlanStep): Promise<void> {
    this.events.push({ kind: 'step_started', planId, stepId: step.id, attempt: step.retryCount });
  }
  async stepFinished(planId: string, step: PlanStep, result: StepResult): Promise<void> {
    this.events.push({ kind: 'step_finished', planId, stepId: step.id, status: result.success ? 'completed' : 'failed', attempt: step.retryCount });
  }
  async stepSkipped(planId: string, step: PlanStep): Promise<void> {
    this.events.push({ kind: 'step_skipped', planId, stepId: step.id });
  }
}

/**
 * Keeps plan records off the critical path: each write is queued behind the previous one
 * (so rows still appear in order, as the plan runs) and the plan does not wait for it.
 * `flush()` waits for everything queued. A failed write is logged, never fails the turn:
 * these rows are for debugging.
 *
 * Not even for its CPU: a Prisma query spends about half a millisecond building and
 * compiling itself before it reaches the socket, all in microtasks that would run before
 * the plan's own continuation. So a write that finds the queue idle starts on the next
 * turn of the event loop, once the plan has moved on to its next wait (usually the model).
 */
export class WriteBehindPlanStore implements PlanStore {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly inner: PlanStore,
    private readonly onError: (error: unknown) => void,
  ) {}

  planStarted(...args: Parameters<PlanStore['planStarted']>): Promise<void> {
    return this.enqueue(() => this.inner.planStarted(...args));
  }
  planUpdated(plan: ExecutionPlan, status: PlanRunStatus, totals: PlanTotals): Promise<void> {
    // Snapshot now: the plan object keeps changing while the write waits its turn.
    const snapshot = structuredClone(plan);
    const totalsNow = structuredClone(totals);
    return this.enqueue(() => this.inner.planUpdated(snapshot, status, totalsNow));
  }
  planFinished(planId: string, status: PlanRunStatus, totals: PlanTotals, finishedAt: Date, error?: string, plan?: ExecutionPlan): Promise<void> {
    const snapshot = plan ? structuredClone(plan) : undefined;
    const totalsNow = structuredClone(totals);
    return this.enqueue(() => this.inner.planFinished(planId, status, totalsNow, finishedAt, error, snapshot));
  }
  stepStarted(planId: string, step: PlanStep, planVersion: number, startedAt: Date): Promise<void> {
    const snapshot = structuredClone(step);
    return this.enqueue(() => this.inner.stepStarted(planId, snapshot, planVersion, startedAt));
  }
  stepFinished(planId: string, step: PlanStep, result: StepResult, finishedAt: Date): Promise<void> {
    const [stepNow, resultNow] = [structuredClone(step), structuredClone(result)];
    return this.enqueue(() => this.inner.stepFinished(planId, stepNow, resultNow, finishedAt));
  }
  stepSkipped(planId: string, step: PlanStep, planVersion: number, at: Date): Promise<void> {
    const snapshot = structuredClone(step);
    return this.enqueue(() => this.inner.stepSkipped(planId, snapshot, planVersion, at));
  }

  /** Waits until every queued write is done. */
  flush(): Promise<void> {
    return this.chain;
  }

  private enqueue(write: () => Promise<void>): Promise<void> {
    // Idle: start the write once the plan has reached its next wait; busy: queue it behind.
    const started = (this.pending === 0 ? nextTurnOfEventLoop() : this.chain).then(write);
    this.pending += 1;
    this.chain = started.catch(this.onError).finally(() => {
      this.pending -= 1;
    });
    return Promise.resolve();
  }

  private pending = 0;
}

/** Resolves after the current synchronous work and its microtasks, and pending I/O callbacks. */
function nextTurnOfEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
