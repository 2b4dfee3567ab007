import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { TimeoutError } from './errors.js';

/**
 * Parsing that can take long, off the event loop (issue 32). A vCard attachment, a CalDAV
 * calendar's iCalendar objects, a mail's MIME and HTML: what a user, a mailbox or an address
 * book sends can be large or built to be slow, and a parse on the event loop would stall every
 * other user's webhook and turn while it runs. Here each whole-file parse runs in a worker
 * thread with a time budget and a heap cap: past either, the worker is terminated and the
 * caller gets a {@link ParseBudgetError}, which it turns into a clear error for that user
 * (nothing half-stored: the parse returns everything or nothing).
 *
 * Why workers rather than parsing on the event loop and yielding between cards: yielding bounds
 * the stall only as tightly as the slowest step between two yields, so it rests on every cap and
 * every library (mailparser, ical.js, html-to-text) staying linear on every input; a worker
 * bounds it whatever the input, and can be stopped mid-parse. Measured (`npm run bench -- contacts`,
 * under tsx, on a shared 2-core machine): a task's round trip costs about 40 µs once the worker is
 * up; starting one costs 60-130 ms under tsx (up to ~330 ms for a run's first), paid once, since
 * idle workers are kept. On tsc's output (timed by hand, not by the benchmark) a start took ~40 ms.
 */

/** A whole-file parse's time budget by default (a 10 MB vCard of 20,000 cards parses in ~1 s). */
export const PARSE_BUDGET_MS = 10_000;

/** The heap a parse worker may use: a hostile file is refused, not allowed to exhaust the process. */
const WORKER_HEAP_MB = 512;

/** A parse that ran out of its time budget or its heap: stopped, nothing of it kept. */
export class ParseBudgetError extends TimeoutError {
  constructor(
    readonly limit: 'time' | 'memory',
    readonly budgetMs: number,
  ) {
    super(limit === 'time' ? `the parse took longer than its budget of ${budgetMs} ms and was stopped` : 'the parse needed more memory than a parse may use and was stopped');
  }
}

/** An error the parse function threw, by its name and message (its class stays in the worker). */
export class ParseWorkerError extends Error {
  constructor(
    readonly errorName: string,
    message: string,
  ) {
    super(message);
    this.name = 'ParseWorkerError';
  }
}

interface Pending {
  id: number;
  module: string;
  name: string;
  args: readonly unknown[];
  budgetMs: number;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  task: Pending | undefined;
  timer: NodeJS.Timeout | undefined;
}

type WorkerMessage = { ready: true } | { id: number; started: true } | { id: number; ok: true; value: unknown } | { id: number; ok: false; error: { name: string; message: string } };

/** Under tsx and vitest the sources are TypeScript: the worker loads them through tsx, as `npm start` does. */
const ENTRY = new URL(import.meta.url.endsWith('.ts') ? './parse-worker-entry.ts' : './parse-worker-entry.js', import.meta.url);
const EXEC_ARGV = import.meta.url.endsWith('.ts') ? ['--import', 'tsx'] : undefined;

/**
 * A small pool of parse workers: up to `size` at once (default: one per core, two to four, so one
 * user's 10 MB card never queues another user's parse behind it on a small machine), idle ones
 * kept (unreferenced, so they never hold the process open), a busy one stopped at its task's
 * budget and replaced on the next task. Tasks beyond `size` wait their turn; the budget counts
 * from when a task's parse starts, not while it waits.
 */
export class ParseWorkers {
  private readonly size: number;
  private readonly budgetMs: number;
  private readonly heapMb: number;
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];
  private nextId = 1;

  constructor(options: { size?: number; budgetMs?: number; heapMb?: number } = {}) {
    this.size = options.size ?? Math.max(2, Math.min(4, availableParallelism()));
    this.budgetMs = options.budgetMs ?? PARSE_BUDGET_MS;
    this.heapMb = options.heapMb ?? WORKER_HEAP_MB;
  }

  /**
   * Runs `name(...args)` from `module` (a URL made with `new URL('./file.js', import.meta.url)`)
   * in a worker; its arguments and result are copied across (plain data: strings, arrays,
   * objects, Dates, Uint8Arrays). Rejects with a {@link ParseBudgetError} past the budget.
   */
  run<Result>(module: URL, name: string, args: readonly unknown[], options: { budgetMs?: number } = {}): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, module: module.href, name, args, budgetMs: options.budgetMs ?? this.budgetMs, resolve: resolve as (value: unknown) => void, reject });
      this.pump();
    });
  }

  /** Stops every worker (tasks in flight are rejected); the pool starts new ones if used again. */
  async close(): Promise<void> {
    const slots = [...this.slots];
    this.slots.clear();
    for (const slot of slots) {
      clearTimeout(slot.timer);
      slot.task?.reject(new Error('the parse workers were closed'));
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const slot = [...this.slots].find((candidate) => candidate.ready && !candidate.task) ?? (this.slots.size < this.size ? this.spawn() : undefined);
      if (!slot) return;
      if (!slot.ready) return; // It takes the next task once it says it is ready.
      this.assign(slot, this.queue.shift()!);
    }
  }

  private assign(slot: Slot, task: Pending): void {
    slot.task = task;
    slot.worker.ref();
    slot.worker.postMessage({ id: task.id, module: task.module, name: task.name, args: task.args });
  }

  private spawn(): Slot {
    const worker = new Worker(ENTRY, { ...(EXEC_ARGV ? { execArgv: EXEC_ARGV } : {}), resourceLimits: { maxOldGenerationSizeMb: this.heapMb }, stdout: false, stderr: false });
    const slot: Slot = { worker, ready: false, task: undefined, timer: undefined };
    this.slots.add(slot);
    worker.on('message', (message: WorkerMessage) => this.onMessage(slot, message));
    worker.on('error', (error: Error & { code?: string }) => this.retire(slot, error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new ParseBudgetError('memory', slot.task?.budgetMs ?? this.budgetMs) : error));
    worker.on('exit', () => this.retire(slot, new Error('a parse worker stopped unexpectedly')));
    return slot;
  }

  private onMessage(slot: Slot, message: WorkerMessage): void {
    if ('ready' in message) {
      slot.ready = true;
      slot.worker.unref();
      this.pump();
      return;
    }
    const task = slot.task;
    if (!task || task.id !== message.id) return;
    if ('started' in message) {
      slot.timer = setTimeout(() => {
        this.retire(slot, new ParseBudgetError('time', task.budgetMs));
        void slot.worker.terminate();
      }, task.budgetMs);
      return;
    }
    clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.task = undefined;
    slot.worker.unref();
    if (message.ok) task.resolve(message.value);
    else task.reject(new ParseWorkerError(message.error.name, message.error.message));
    this.pump();
  }

  /** Takes a worker out of the pool (stopped, failed or exited): its task, if any, fails with `error`. */
  private retire(slot: Slot, error: Error): void {
    if (!this.slots.delete(slot)) return;
    clearTimeout(slot.timer);
    // A worker that failed before it was ready (it could not start) fails the next waiting task,
    // so a pool that cannot start workers answers every caller instead of retrying forever.
    const task = slot.task ?? (slot.ready ? undefined : this.queue.shift());
    slot.task = undefined;
    task?.reject(error);
    this.pump();
  }
}

let shared: ParseWorkers | undefined;

/** The process's parse workers (made on first use): every parse of user-controlled files shares them. */
export function sharedParseWorkers(): ParseWorkers {
  shared ??= new ParseWorkers();
  return shared;
}
