import { registerWait } from '../fakes/fake-failures.js';

/**
 * Polls `check` every `intervalMs` until it returns a value other than undefined, for
 * effects no event announces (a row another process writes). It polls as long as the test
 * lets it: a deadline of its own would fail a test on a loaded machine for no reason. A
 * test that times out while polling is told what it was waiting for (`what`).
 */
export async function eventually<Value>(check: () => Promise<Value | undefined>, what = 'a condition polled by eventually()', intervalMs = 50): Promise<Value> {
  const unregister = registerWait(check, () => `still polling for ${what}`);
  try {
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  } finally {
    unregister();
  }
}
