import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // After each test: what a scripted fake answer threw, with its own message (test/fakes/fake-failures.ts).
    setupFiles: ['test/helpers/fake-failures-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own database cloned from a migrated template, so files run in parallel.
    fileParallelism: true,
  },
});
