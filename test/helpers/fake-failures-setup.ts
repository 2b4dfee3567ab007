import { afterAll, afterEach } from 'vitest';
import { rethrowFakeFailures, takePendingWaits } from '../fakes/fake-failures.js';

/*
 * A setup file of every test file (vitest.config.ts). After each test: the error a scripted
 * fake answer threw during it, rethrown with its own message (test/fakes/fake-failures.ts);
 * and, when the test ended while still waiting on a fake (it timed out), what it was
 * waiting for. After the file: anything recorded outside a test (in beforeAll or afterAll).
 */

afterEach(() => {
  const waiting = takePendingWaits();
  rethrowFakeFailures();
  if (waiting.length > 0) throw new Error(`the test ended while still waiting: ${waiting.join('; ')}`);
});

afterAll(() => {
  rethrowFakeFailures();
});
