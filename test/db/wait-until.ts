/**
 * Resolves once `condition` holds, checking it every few milliseconds; rejects after
 * `timeoutMs` naming what it waited for. For states with no event to await (a lock
 * becoming contended inside Postgres), never as a fixed sleep.
 */
export async function waitUntil(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
