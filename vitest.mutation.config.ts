import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The tests Stryker runs against each mutant (stryker.config.mjs, `npm run mutate`): only the
 * files that exercise the mutated modules directly, so one mutant costs a fraction of a second
 * rather than an end-to-end harness. The same global setup (one embedded Postgres per Stryker
 * worker) and setup files as `npm test`; never shuffled.
 */
export const MUTATION_TEST_FILES = [
  // Secret and token comparisons, signatures, one-time links and OAuth state.
  'test/mutation-kills/secret-comparisons.test.ts',
  'test/mutation-kills/connect-links-edges.test.ts',
  'test/mutation-kills/data-export-token.test.ts',
  'test/mutation-kills/twilio-signature-edges.test.ts',
  // The connect forms' CSRF check and OAuth state, and the pages' tokens and CSRF, end to end.
  'test/e2e/connect-security.test.ts',
  'test/email/gmail-connect.test.ts',
  'test/e2e/pages.test.ts',
  'test/connections/secret-box.test.ts',
  'test/connections/connect-links.test.ts',
  'test/questions/button-payload.test.ts',
  // The outbound-address policy.
  'test/net/outbound-policy.test.ts',
  'test/net/outbound-fetch.test.ts',
  'test/mutation-kills/outbound-policy-edges.test.ts',
  // The access gate and invite codes.
  'test/mutation-kills/access-gate.test.ts',
  'test/mutation-kills/invite-code-edges.test.ts',
  // Exactly-once claims.
  'test/questions/pending-questions.test.ts',
  'test/mutation-kills/pending-question-claims.test.ts',
  'test/tool-calls/tool-call-ledger.test.ts',
  'test/tool-calls/tool-call-keys.test.ts',
  'test/mutation-kills/tool-call-ledger-edges.test.ts',
  'test/outbox/outbox-service.test.ts',
  'test/mutation-kills/part-delivery-edges.test.ts',
  'test/mutation-kills/routine-occurrence-claims.test.ts',
  'test/e2e/reminder-delivery.test.ts',
  'test/mutation-kills/reminder-claims.test.ts',
  'test/mutation-kills/tool-call-keys-edges.test.ts',
  // The executor's dependency and skip rules.
  'test/orchestrator/dependencies.test.ts',
  'test/orchestrator/parallel-steps.test.ts',
  'test/orchestrator/steps.test.ts',
  'test/orchestrator/limits.test.ts',
  'test/mutation-kills/plan-graph-edges.test.ts',
  'test/mutation-kills/executor-rules.test.ts',
  // Quiet hours and opt-out words.
  'test/users/quiet-hours.test.ts',
  'test/mutation-kills/quiet-hours-edges.test.ts',
  'test/channels/keywords.test.ts',
  'test/mutation-kills/opt-out-words.test.ts',
  // Erasure.
  'test/data-rights/erase-coverage.test.ts',
  'test/mutation-kills/user-eraser-edges.test.ts',
];

export default defineConfig({
  test: {
    ...base.test,
    include: MUTATION_TEST_FILES,
    sequence: undefined,
  },
});
