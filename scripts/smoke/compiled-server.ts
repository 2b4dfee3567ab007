import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/** `node dist/server.js` as the image runs it, with its output kept for the smoke's messages. */
export interface CompiledServer {
  readonly child: ChildProcess;
  /** Every line it printed (stdout and stderr), in order. */
  readonly output: string[];
  /** Resolves with the exit code (or the signal's name) once it exits. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first line matching `pattern`; rejects if the process exits first or `timeoutMs` passes. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<string>;
}

/**
 * Starts `node dist/server.js` in `root` with exactly `env` (plus PATH and HOME), as the image's
 * CMD does under its ENV (NODE_ENV=production, NODE_OPTIONS=--enable-source-maps).
 */
export function startCompiledServer(root: string, env: Record<string, string>): CompiledServer {
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production', NODE_OPTIONS: '--enable-source-maps', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const listeners = new Set<(line: string) => void>();
  const onLine = (line: string) => {
    output.push(line);
    for (const listener of listeners) listener(line);
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));

  const waitFor = (pattern: RegExp, timeoutMs: number) =>
    new Promise<string>((resolve, reject) => {
      const seen = output.find((line) => pattern.test(line));
      if (seen) return resolve(seen);
      const timer = setTimeout(() => finish(() => reject(new Error(`nothing matching ${pattern} within ${timeoutMs} ms`))), timeoutMs);
      const listener = (line: string) => {
        if (pattern.test(line)) finish(() => resolve(line));
      };
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(listener);
        settle();
      };
      listeners.add(listener);
      void exited.then(({ code, signal }) => finish(() => reject(new Error(`the server exited (${signal ?? `code ${code}`}) before printing ${pattern}`))));
    });
  return { child, output, exited, waitFor };
}

/** Runs `node dist/server.js` to its exit, for start-up failures; resolves with its exit code and output. */
export async function runCompiledServerToExit(root: string, env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  const server = startCompiledServer(root, env);
  const timer = setTimeout(() => server.child.kill('SIGKILL'), timeoutMs);
  const { code } = await server.exited;
  clearTimeout(timer);
  return { code, output: server.output.join('\n') };
}
