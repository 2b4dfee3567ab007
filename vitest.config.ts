import { defineConfig } from 'vitest/config';

/**
 * Under CI (CI=true), or with TEST_SEED set, the suite runs in random order (files, and the
 * tests in each file): a test that leans on another's leftovers fails there. The seed is
 * printed first; `TEST_SEED=<seed> npm test` replays the same order.
 */
const seed = process.env.TEST_SEED ? Number(process.env.TEST_SEED) : process.env.CI === 'true' ? Math.floor(Math.random() * 2 ** 31) : undefined;
if (seed !== undefined) {
  if (!Number.isSafeInteger(seed)) throw new Error(`TEST_SEED must be an integer, got ${process.env.TEST_SEED}`);
  console.log(`tests in random order, seed ${seed} (replay: TEST_SEED=${seed} npm test)`);
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // After each test: what a scripted fake answer threw, with its own message (test/fakes/fake-failures.ts).
    setupFiles: ['test/helpers/fake-failures-setup.ts'],
    pool: 'forks',
    // Two files at a time even on two cores (Vitest's default is one fewer than the cores): most
    // of a test's time is spent waiting on Postgres, the fakes and timers, not on the CPU.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own database cloned from a migrated template, so files run in parallel.
    fileParallelism: true,
    ...(seed !== undefined ? { sequence: { shuffle: true, seed } } : {}),
  },
});
