import { eventually } from '../helpers/eventually.js';

/**
 * Resolves once `condition` holds, checking it every few milliseconds, for as long as the
 * test lets it (a test that times out is told `what` it waited for). For states with no
 * event to await (a lock becoming contended inside Postgres), never as a fixed sleep.
 */
export async function waitUntil(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  await eventually(async () => ((await condition()) ? true : undefined), what, 10);
}
