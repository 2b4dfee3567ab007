import { it, type TestFunction } from 'vitest';

/** Under CI=true (as CI services set it) a missing precondition fails the run. */
function inCi(): boolean {
  return ['true', '1'].includes((process.env.CI ?? '').toLowerCase());
}

/**
 * A test that needs something of the machine (`available`) it cannot provide itself. Where it
 * is missing the test is skipped, saying `missing` in its name, on a developer's machine; under
 * CI=true it runs and fails with `missing` instead, so a green CI run never hides a test that
 * did not run (a security test least of all).
 */
export function itWhen(available: boolean, missing: string): (name: string, test: TestFunction, timeout?: number) => void {
  return (name, test, timeout) => {
    if (available) it(name, test, timeout);
    else if (inCi()) {
      it(name, () => {
        throw new Error(`precondition missing: ${missing}. Under CI=true a missing precondition fails instead of skipping.`);
      });
    } else it.skip(`${name} (skipped: ${missing})`, test);
  };
}

/**
 * For a precondition met or not inside a test: true when `available`; under CI=true throws
 * naming `missing`, elsewhere false (the caller leaves that part out).
 */
export function requireInCi(available: boolean, missing: string): boolean {
  if (!available && inCi()) throw new Error(`precondition missing: ${missing}. Under CI=true a missing precondition fails instead of skipping.`);
  return available;
}
