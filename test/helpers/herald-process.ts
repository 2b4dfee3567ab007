import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { registerWait } from '../fakes/fake-failures.js';

/** A Herald server (src/server.ts) running as a separate process, as in production. */
export interface HeraldProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly baseUrl: string;
  /** Every stdout line so far. */
  readonly output: string[];
  /**
   * Resolves with the first output line matching `pattern`, from line `fromLine` on (default:
   * all of them); rejects if the process exits first. It waits as long as the test lets it.
   */
  waitForOutput(pattern: RegExp, fromLine?: number): Promise<string>;
  /** Kills with SIGKILL (a crash) and waits for the exit. */
  crash(): Promise<void>;
  /** SIGTERM and wait for a clean exit; resolves with the exit code. */
  terminate(): Promise<number | null>;
}

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/**
 * Starts `npm start`'s entry point in a child process with exactly `env` (plus PATH and
 * HOME) and waits until it listens (or prints `until`), or fails if it exits first.
 */
export async function startHeraldProcess(env: Record<string, string>, options: { until?: RegExp } = {}): Promise<HeraldProcess> {
  const port = Number(env.PORT ?? (await freePort()));
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('src/server.ts')], {
    // A fixed test key unless the test sets one (or unsets it, with ''), so no key file is written into the repository.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HERALD_ENCRYPTION_KEY: Buffer.alloc(32, 42).toString('base64'), ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  const onLine = (line: string) => {
    output.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  const exited = once(child, 'exit');

  // No time limit of its own: a loaded machine may take long to start tsx. A test that
  // times out while waiting is told what was awaited, and the output so far (fake-failures.ts).
  const waitForOutput = (pattern: RegExp, fromLine = 0) => {
    const seen = output.slice(fromLine).find((line) => pattern.test(line));
    if (seen) return Promise.resolve(seen);
    return new Promise<string>((resolve, reject) => {
      const unregister = registerWait(child, () => `Herald process: no output matching ${pattern} yet; output:\n${output.slice(-40).join('\n')}`);
      waiters.push({ pattern, resolve: (line) => (unregister(), resolve(line)) });
      void exited.then(() => (unregister(), reject(new Error(`process exited before printing ${pattern}; output:\n${output.join('\n')}`))));
    });
  };
  await waitForOutput(options.until ?? /Herald is listening/);
  return {
    child,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    output,
    waitForOutput,
    async crash() {
      child.kill('SIGKILL');
      await exited;
    },
    async terminate() {
      child.kill('SIGTERM');
      const [code] = await exited;
      return code as number | null;
    },
  };
}
