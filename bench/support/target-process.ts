import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TargetCommand, TargetEvent, TargetStats } from './target-protocol.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/** A target server running in its own Node process (see target-protocol.ts for why). */
export interface TargetProcess {
  readonly pid: number;
  readonly port: number;
  readonly url: string;
  readonly details: Record<string, string | number>;
  /** Asks the target for its counters; `reset` starts a new measurement window. */
  stats(): Promise<TargetStats>;
  resetStats(): Promise<void>;
  /** Waits until the target has no request in flight and its pool is idle (after the load stopped). */
  quiesce(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `entry` (a .ts file under bench/, run through tsx) with `env`, and waits for it
 * to report the port it listens on.
 */
export async function startTarget(entry: URL, env: Record<string, string>, startTimeoutMs = 60_000): Promise<TargetProcess> {
  const child = fork(fileURLToPath(entry), [], {
    cwd: repositoryRoot,
    // BENCH_TARGET_NODE_ARGS adds Node flags to the targets only, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_TARGET_NODE_ARGS ?? '').split(' ').filter(Boolean)],
    // As deployed (the Dockerfile sets it): libraries read it from the process environment,
    // e.g. Prisma captures a stack trace per query for its error messages unless it is production.
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<Extract<TargetEvent, { type: 'ready' }>>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`target ${entry.pathname} did not start within ${startTimeoutMs} ms`));
    }, startTimeoutMs);
    const onMessage = (event: TargetEvent) => {
      if (event.type === 'ready') {
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(event);
      } else if (event.type === 'failed') {
        clearTimeout(timer);
        reject(new Error(`target ${entry.pathname} failed to start: ${event.message}`));
      }
    };
    child.on('message', onMessage);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`target ${entry.pathname} exited (code ${code}) before it was ready`));
    });
  });

  const request = <Type extends TargetEvent['type']>(command: TargetCommand, answer: Type, timeoutMs = 30_000) =>
    new Promise<Extract<TargetEvent, { type: Type }>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`target did not answer ${command.type} within ${timeoutMs} ms`)), timeoutMs);
      const onMessage = (event: TargetEvent) => {
        if (event.type === answer || event.type === 'failed') {
          clearTimeout(timer);
          child.off('message', onMessage);
          if (event.type === 'failed') reject(new Error(event.message));
          else resolve(event as Extract<TargetEvent, { type: Type }>);
        }
      };
      child.on('message', onMessage);
      child.send(command);
    });

  let stopped = false;
  const handle: TargetProcess = {
    pid: ready.pid,
    port: ready.port,
    url: `http://127.0.0.1:${ready.port}`,
    details: ready.details ?? {},
    async stats() {
      return (await request({ type: 'stats' }, 'stats')).stats;
    },
    async resetStats() {
      await request({ type: 'reset-stats' }, 'stats');
    },
    async quiesce(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      let quietPolls = 0;
      // Quiet twice in a row, 100 ms apart: an abandoned request between parsing and its
      // first query is not missed.
      while (quietPolls < 2) {
        const stats = await handle.stats();
        quietPolls = stats.inFlight === 0 && stats.databaseBusy === 0 ? quietPolls + 1 : 0;
        if (Date.now() > deadline) throw new Error(`target still busy after ${timeoutMs} ms (${stats.inFlight} requests, ${stats.databaseBusy} connections)`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopChild(child, exited, () => request({ type: 'stop' }, 'stopped', 30_000));
    },
  };
  return handle;
}

async function stopChild(child: ChildProcess, exited: Promise<void>, askToStop: () => Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    await askToStop();
  } catch {
    // Fall through to the kill below.
  }
  const killTimer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(killTimer);
}
