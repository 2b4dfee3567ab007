#!/usr/bin/env node
// `npm run test:shuffle`: the whole suite once in random order (files, and the tests in
// each file), to prove no test depends on another having run before it. The seed is
// printed first; TEST_SEED=<seed> npm run test:shuffle replays the same order. Any other
// arguments go to vitest (a file, -t "<name>"…).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const seed = process.env.TEST_SEED ? Number(process.env.TEST_SEED) : Math.floor(Math.random() * 2 ** 31);
if (!Number.isSafeInteger(seed)) {
  console.error(`TEST_SEED must be an integer, got ${process.env.TEST_SEED}`);
  process.exit(2);
}
console.log(`test:shuffle: seed ${seed} (replay: TEST_SEED=${seed} npm run test:shuffle)`);
// The CLI's own entry (the package does not export it by name).
const cli = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const result = spawnSync(process.execPath, [cli, 'run', '--sequence.shuffle', `--sequence.seed=${seed}`, ...process.argv.slice(2)], { stdio: 'inherit' });
console.log(`test:shuffle: seed ${seed} ${result.status === 0 ? 'passed' : 'FAILED'} (replay: TEST_SEED=${seed} npm run test:shuffle)`);
process.exit(result.status ?? 1);
