import { constants, setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';

/**
 * The body of a parse worker (src/shared/parse-workers.ts): it runs one exported function of
 * one module at a time, as the pool asks, and posts its result back. It says "started" once
 * the module is loaded, so the parse's time budget counts the parse, not the module's loading.
 * What the function throws goes back as its name and message (an Error's class does not cross
 * the thread); functions meant for here return their expected failures as values instead.
 */

/** A task from the pool. */
interface Task {
  id: number;
  module: string;
  name: string;
  args: unknown[];
}

const port = parentPort;
if (!port) throw new Error('parse-worker-entry.ts runs only as a worker thread');

// On Linux a thread has its own nice value, and 0 names the calling thread: a parse yields the
// CPU to the event loop's turns when cores are short. Elsewhere this would lower the whole
// process, so it is left alone there.
if (process.platform === 'linux') {
  try {
    setPriority(0, constants.priority.PRIORITY_BELOW_NORMAL);
  } catch {
    // Not permitted (a sandbox): parses run at normal priority.
  }
}

port.on('message', (task: Task) => {
  void run(task);
});
port.postMessage({ ready: true });

async function run(task: Task): Promise<void> {
  try {
    const loaded = (await import(task.module)) as Record<string, unknown>;
    const work = loaded[task.name];
    if (typeof work !== 'function') throw new Error(`${task.module} exports no function ${task.name}`);
    port!.postMessage({ id: task.id, started: true });
    const value: unknown = await (work as (...args: unknown[]) => unknown)(...task.args);
    port!.postMessage({ id: task.id, ok: true, value });
  } catch (error) {
    port!.postMessage({ id: task.id, ok: false, error: error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) } });
  }
}
