/**
 * Plan records written behind the plan: in order, never waited for by the plan (not even
 * for the query's own CPU: an idle queue starts a write on the next turn of the event
 * loop), snapshotted when queued, all done by flush(), and a failed write only reported.
 */
import { describe, expect, it } from 'vitest';
import type { PlanStep } from '../../src/orchestrator/plan-state.js';
import { InMemoryPlanStore, WriteBehindPlanStore } from '../../src/orchestrator/plan-store.js';

const step = (): PlanStep => ({ id: 'step_1', agent: 'memory-agent', task: 'Save it', dependsOn: [], status: 'running', retryCount: 0, version: 1 });

describe('WriteBehindPlanStore', () => {
  it('starts an idle write only after the caller has moved on, and writes in order', async () => {
    const inner = new InMemoryPlanStore();
    const store = new WriteBehindPlanStore(inner, (error) => {
      throw error;
    });
    await store.planStarted({ planId: 'plan_1', turnId: 'turn', userId: 'user', startedAt: new Date() });
    await store.stepStarted('plan_1', step(), 1, new Date());
    // The caller's own continuation (and any microtasks it queues) ran before any write.
    await Promise.resolve();
    expect(inner.events).toEqual([]);

    await store.flush();
    expect(inner.events.map((event) => event.kind)).toEqual(['plan_started', 'step_started']);
  });

  it('writes what was queued, not what the plan became later', async () => {
    const inner = new InMemoryPlanStore();
    const store = new WriteBehindPlanStore(inner, () => {});
    const running = step();
    await store.stepStarted('plan_1', running, 1, new Date());
    running.retryCount = 1;
    await store.flush();
    expect(inner.events).toEqual([{ kind: 'step_started', planId: 'plan_1', stepId: 'step_1', attempt: 0 }]);
  });

  it('reports a failed write and goes on with the next', async () => {
    const inner = new InMemoryPlanStore();
    const failing = Object.assign(Object.create(inner) as InMemoryPlanStore, {
      planStarted: async () => {
        throw new Error('database down');
      },
    });
    const errors: unknown[] = [];
    const store = new WriteBehindPlanStore(failing, (error) => errors.push(error));
    await store.planStarted({ planId: 'plan_1', turnId: 'turn', userId: 'user', startedAt: new Date() });
    await store.stepStarted('plan_1', step(), 1, new Date());
    await store.flush();
    expect(errors).toEqual([new Error('database down')]);
    expect(inner.events.map((event) => event.kind)).toEqual(['step_started']);
  });
});
