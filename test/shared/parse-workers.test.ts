import { afterAll, describe, expect, it } from 'vitest';
import { ParseBudgetError, ParseWorkerError, ParseWorkers } from '../../src/shared/parse-workers.js';

const tasks = new URL('../fixtures/parse-tasks.ts', import.meta.url);

/**
 * The parse workers (issue 32): work runs off the event loop, a parse past its budget is
 * stopped with a ParseBudgetError (and the pool carries on with a fresh worker), a heap that
 * grows past its cap is stopped the same way, and a parse's own error comes back by name.
 */
describe('parse workers', () => {
  const workers = new ParseWorkers({ size: 2, budgetMs: 2_000 });
  afterAll(async () => {
    await workers.close();
  });

  it('copies arguments and results across, Dates and bytes included', async () => {
    const value = { text: 'héllo', when: new Date('2026-03-01T12:00:00Z'), bytes: new Uint8Array([1, 2, 3]), list: [1, 'two', null] };
    expect(await workers.run(tasks, 'echo', [value])).toEqual(value);
  });

  it('a long parse leaves the event loop free: timers keep firing while it runs', async () => {
    await workers.run(tasks, 'echo', [0]); // the worker is up
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 5);
    const elapsed = await workers.run<number>(tasks, 'spin', [300]);
    clearInterval(ticker);
    expect(elapsed).toBeGreaterThanOrEqual(300);
    // On the event loop, a 300 ms spin would have let no tick through.
    expect(ticks).toBeGreaterThan(10);
  });

  it('a parse past its budget is stopped with a ParseBudgetError, and the next task runs on a fresh worker', async () => {
    const stopped = await workers.run(tasks, 'forever', [], { budgetMs: 200 }).catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(ParseBudgetError);
    expect((stopped as ParseBudgetError).limit).toBe('time');
    expect(await workers.run(tasks, 'echo', ['after'])).toBe('after');
  });

  it('a parse that outgrows the heap cap is stopped as over budget (memory), not the process', async () => {
    const small = new ParseWorkers({ size: 1, budgetMs: 60_000, heapMb: 32 });
    try {
      const stopped = await small.run(tasks, 'exhaust', []).catch((error: unknown) => error);
      expect(stopped).toBeInstanceOf(ParseBudgetError);
      expect((stopped as ParseBudgetError).limit).toBe('memory');
      expect(await small.run(tasks, 'echo', [1])).toBe(1);
    } finally {
      await small.close();
    }
  });

  it("a parse's own error comes back by its name and message", async () => {
    const failed = await workers.run(tasks, 'fail', ['bad input']).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ParseWorkerError);
    expect(failed).toMatchObject({ errorName: 'RangeError', message: 'bad input' });
  });

  it('more tasks than workers wait their turn; the budget counts only their own parse', async () => {
    const results = await Promise.all([150, 150, 150, 150].map((ms) => workers.run<number>(tasks, 'spin', [ms], { budgetMs: 1_000 })));
    expect(results.every((ms) => ms >= 150)).toBe(true);
  });
});
