#!/usr/bin/env node
// `npm run test:alone -- [--count N] [--seed S] [vitest file filters…]`: picks N tests at
// random (50 by default; the seed is printed, and --seed or TEST_SEED replays the pick) and
// runs each one alone, as `npx vitest run <file> -t "<its full name>"` would: a test that
// passes only after others ran before it fails here. Prints each outcome and the count that
// passed alone; exits non-zero when any did not.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import path from 'node:path';

// The CLI's own entry (the package does not export it by name).
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));

const args = process.argv.slice(2);
const option = (name) => {
  const index = args.indexOf(name);
  if (index < 0) return undefined;
  const [, value] = args.splice(index, 2);
  return value;
};
const count = Number(option('--count') ?? 50);
const seed = Number(option('--seed') ?? process.env.TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
const filters = args;
if (!Number.isSafeInteger(count) || count < 1 || !Number.isSafeInteger(seed)) {
  console.error('usage: npm run test:alone -- [--count N] [--seed S] [file filters…]');
  process.exit(2);
}

const work = mkdtempSync(path.join(tmpdir(), 'herald-tests-alone-'));
try {
  const listed = path.join(work, 'list.json');
  const list = spawnSync(process.execPath, [vitest, 'list', `--json=${listed}`, ...filters], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (list.status !== 0) throw new Error(`vitest list failed (${list.status})`);
  /** @type {Array<{ name: string; file: string }>} */
  const tests = JSON.parse(readFileSync(listed, 'utf8'));
  const picked = sample(tests, Math.min(count, tests.length), seed);
  console.log(`tests alone: ${picked.length} of ${tests.length} tests, seed ${seed} (replay: npm run test:alone -- --count ${count} --seed ${seed}${filters.length ? ` ${filters.join(' ')}` : ''})`);

  const failed = [];
  for (const [index, test] of picked.entries()) {
    const file = path.relative(process.cwd(), test.file);
    // vitest matches -t against the names of the test and its suites joined by spaces.
    const pattern = `${escapeRegExp(test.name.split(' > ').join(' '))}$`;
    const report = path.join(work, `report-${index}.json`);
    const started = Date.now();
    const run = spawnSync(process.execPath, [vitest, 'run', file, '-t', pattern, '--reporter=json', `--outputFile=${report}`], { encoding: 'utf8' });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const outcome = readOutcome(report);
    const passed = run.status === 0 && outcome.passed === 1 && outcome.failed === 0;
    console.log(`${passed ? 'pass' : 'FAIL'}  ${seconds.padStart(5)} s  ${file} > ${test.name}${passed ? '' : `  (${outcome.passed} passed, ${outcome.failed} failed, exit ${run.status})`}`);
    if (!passed) failed.push({ file, name: test.name, output: `${run.stdout}\n${run.stderr}`.slice(-4000) });
  }
  for (const failure of failed) console.log(`\n--- ${failure.file} > ${failure.name}\n${failure.output}`);
  console.log(`\ntests alone: ${picked.length - failed.length} of ${picked.length} passed alone (seed ${seed})`);
  process.exitCode = failed.length === 0 ? 0 : 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** How many tests of the report passed and failed (zero each when it was not written). */
function readOutcome(report) {
  try {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    return { passed: json.numPassedTests, failed: json.numFailedTests };
  } catch {
    return { passed: 0, failed: 0 };
  }
}

/** `size` distinct items, picked by a seeded generator (mulberry32), in list order. */
function sample(items, size, seedValue) {
  let state = seedValue >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const indices = items.map((_, index) => index);
  for (let index = indices.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [indices[index], indices[other]] = [indices[other], indices[index]];
  }
  return indices
    .slice(0, size)
    .sort((left, right) => left - right)
    .map((index) => items[index]);
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
