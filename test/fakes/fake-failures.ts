import type { EventEmitter } from 'node:events';

/**
 * What went wrong inside a fake server, kept for the test that caused it.
 *
 * A scripted answer runs inside the fake's request handler, not in the test: an `expect`
 * failing there only turns into a 500 for Herald, and the test then fails later with an
 * unrelated message, or passes when the expected outcome is an apology. So the fakes
 * record what their scripts threw here, and test/helpers/fake-failures-setup.ts (a setup
 * file of every test file) rethrows it, with its original message and stack, after each
 * test. A test that means a script to throw takes the error with {@link takeFakeFailures}.
 *
 * The fakes also register the waits in progress (waitForMessages, waitForRequests…):
 * those wait for their event with no time limit of their own, so when a test times out
 * while one is pending, the setup file names what it was still waiting for.
 */

interface RecordedFailure {
  source: object;
  error: unknown;
}

const failures: RecordedFailure[] = [];
const waits = new Map<object, Set<() => string>>();

/** Records an error thrown by a scripted answer (or any other bug inside a fake). */
export function recordFakeFailure(source: object, error: unknown): void {
  failures.push({ source, error });
}

/** Removes and returns the recorded errors: all of them, or only those of `source`. */
export function takeFakeFailures(source?: object): unknown[] {
  const taken: unknown[] = [];
  for (let index = 0; index < failures.length; ) {
    const failure = failures[index]!;
    if (source === undefined || failure.source === source) {
      taken.push(failure.error);
      failures.splice(index, 1);
    } else index += 1;
  }
  return taken;
}

/**
 * Throws the first recorded error unchanged (its own message and stack: the failing
 * `expect` inside the script), after writing any others to stderr; does nothing when
 * none was recorded. With `source`, only that fake's errors.
 */
export function rethrowFakeFailures(source?: object): void {
  const [first, ...others] = takeFakeFailures(source);
  if (first === undefined) return;
  for (const other of others) process.stderr.write(`another scripted answer failed too: ${describe(other)}\n`);
  throw first;
}

/**
 * Registers a wait in progress on `source`, described by `describeWait` at the moment it
 * is reported; returns the function that unregisters it (call it when the wait ends).
 */
export function registerWait(source: object, describeWait: () => string): () => void {
  const pending = waits.get(source) ?? new Set();
  waits.set(source, pending);
  pending.add(describeWait);
  return () => {
    pending.delete(describeWait);
    if (pending.size === 0 && waits.get(source) === pending) waits.delete(source);
  };
}

/** What every wait still in progress is waiting for; forgets them (each is reported once). */
export function takePendingWaits(): string[] {
  const described = [...waits.values()].flatMap((pending) => [...pending].map((describeWait) => describeWait()));
  waits.clear();
  return described;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Resolves with `items()` once it holds at least `count` (checked again on each `event`).
 * Without `timeoutMs` it waits as long as the test lets it (the test's own timeout is the
 * only limit: a wall-clock bound here would fail a test on a loaded machine for no reason),
 * registered so a test that times out says what it was waiting for. With `timeoutMs`, it
 * rejects after that long, for tests of the waiting itself.
 */
export function waitForCount<Item>(
  owner: { readonly constructor: { name: string } },
  events: EventEmitter,
  event: string,
  items: () => Item[],
  count: number,
  timeoutMs?: number,
): Promise<Item[]> {
  if (items().length >= count) return Promise.resolve(items());
  const label = owner.constructor.name;
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const done = (): void => {
      if (timer) clearTimeout(timer);
      events.off(event, check);
      unregister();
    };
    const check = (): void => {
      if (items().length < count) return;
      done();
      resolve(items());
    };
    const unregister = registerWait(owner, () => `${label}: ${count} ${event}(s) expected, ${items().length} arrived`);
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        done();
        reject(new Error(`${label}: expected ${count} ${event}(s) within ${timeoutMs} ms, got ${items().length}`));
      }, timeoutMs);
    }
    events.on(event, check);
  });
}
