// Mutation testing (`npm run mutate`; README "Mutation testing"): Stryker changes one thing in
// a module at a time (a `<` to `<=`, a condition to `true`, a string emptied...) and runs the
// tests that cover it; a mutant no test notices is a line whose bug the suite would let
// through. It covers the modules where a wrong line costs most: secret and token comparisons,
// the outbound-address policy, the access gate, each exactly-once claim, the executor's
// dependency and skip rules, quiet hours, opt-out words and erasure. Target: a score of at least
// 80 % on each. One module: `npm run mutate -- --mutate src/channels/keywords.ts`.
import { readFileSync } from 'node:fs';

/**
 * `file:start-end` for the method or function whose first line contains `signature`, to its
 * closing brace (the first later line holding only `}` at the same indentation): the claim or
 * check inside a larger module, found by name so the range follows edits to the file.
 */
function method(file, signature) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const start = lines.findIndex((line) => line.includes(signature));
  if (start === -1) throw new Error(`stryker.config.mjs: "${signature}" is no longer in ${file}`);
  const indent = /^\s*/.exec(lines[start])[0];
  const end = lines.findIndex((line, index) => index > start && line === `${indent}}`);
  if (end === -1) throw new Error(`stryker.config.mjs: the end of "${signature}" in ${file} was not found`);
  return `${file}:${start + 1}-${end + 1}`;
}

/** `file:start-end` for the `count` lines from the one containing `marker`. */
function lines(file, marker, count) {
  const start = readFileSync(file, 'utf8').split('\n').findIndex((line) => line.includes(marker));
  if (start === -1) throw new Error(`stryker.config.mjs: "${marker}" is no longer in ${file}`);
  return `${file}:${start + 1}-${start + count}`;
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  coverageAnalysis: 'perTest',
  // Mutants of module-level values (a table of words, a constant) run every test file: 13 % of
  // the mutants and two thirds of the time. They are left out here (reported as ignored); run
  // them with `npm run mutate -- --ignoreStatic false`.
  ignoreStatic: true,
  // Two cores: each worker runs its own Vitest (and the tests' Postgres).
  concurrency: 2,
  mutate: [
    // Secret and token comparisons, signatures, one-time links and OAuth state.
    'src/http/twilio-signature.ts',
    'src/channels/twilio-signed-url.ts',
    'src/http/routes/metrics.ts',
    'src/pages/page-token.ts',
    method('src/pages/page-service.ts', 'private async find(token: string)'),
    lines('src/pages/page-service.ts', 'const csrf = field(body, CONTROL_FIELDS.csrf);', 5),
    lines('src/connections/connect-service.ts', 'const csrf = field(body, CONTROL_FIELDS.csrf);', 5),
    method('src/connections/connect-service.ts', 'async oauthCallback('),
    'src/connections/secret-box.ts',
    'src/connections/connect-links.ts',
    'src/data-rights/data-export.ts',
    method('src/dev/dev-media-store.ts', 'authorizes(header: string | undefined)'),
    method('src/dev/dev-media-store.ts', 'verify(sid: string, signature: string)'),
    'src/access/invite-code.ts',
    'src/questions/button-payload.ts',
    // The outbound-address policy.
    'src/net/outbound-policy.ts',
    'src/net/address-ranges.ts',
    'src/net/allowed-hosts.ts',
    // The access gate.
    'src/access/access-gate.ts',
    method('src/access/access-service.ts', 'async redeem('),
    // Exactly-once claims: pending questions, tool calls, outbox parts, routine and reminder occurrences.
    'src/questions/pending-questions.ts',
    'src/tool-calls/tool-call-ledger.ts',
    'src/tool-calls/tool-call-keys.ts',
    'src/outbox/part-delivery.ts',
    method('src/turns/routine-run.ts', 'private async claim('),
    'src/reminders/reminder-delivery.ts',
    // The executor's dependency and skip rules.
    'src/orchestrator/executor.ts',
    'src/orchestrator/plan-graph.ts',
    'src/orchestrator/plan-steps.ts',
    // Quiet hours and opt-out words.
    'src/users/quiet-hours.ts',
    'src/channels/keywords.ts',
    // Erasure.
    'src/data-rights/user-eraser.ts',
  ],
  plugins: ['@stryker-mutator/vitest-runner', './scripts/stryker-ignore-logging.mjs'],
  ignorers: ['LogCalls'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  // Not needed to run the tests: kept out of the sandbox copy.
  ignorePatterns: ['/test-artifacts', '/reports', '/.data', '/.scratch', '/dist', '/coverage'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
