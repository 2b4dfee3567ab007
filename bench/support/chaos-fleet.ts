import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startHeraldProcess, type HeraldProcess } from '../../test/helpers/herald-process.js';

/**
 * The Herald processes of one scenario behind a round-robin load balancer: it sends each
 * webhook to the next instance that is still running (one SIGKILLed or that exited is taken
 * out of the rotation, as a health check would), and to the first one when none is left.
 */
export class HeraldFleet {
  readonly instances: HeraldProcess[] = [];
  private readonly killed = new Set<HeraldProcess>();
  private readonly spools: string[] = [];
  private turn = 0;

  constructor(private readonly environment: () => Promise<Record<string, string>>) {}

  /** Starts one more instance and waits until it listens. */
  async add(): Promise<HeraldProcess> {
    const env = await this.environment();
    if (env.INBOUND_SPOOL_DIR) this.spools.push(env.INBOUND_SPOOL_DIR);
    const instance = await startHeraldProcess(env);
    this.instances.push(instance);
    return instance;
  }

  /** Instances still running and not killed by the scenario. */
  live(): HeraldProcess[] {
    return this.instances.filter((instance) => !this.killed.has(instance) && running(instance));
  }

  /** Where the load balancer sends the next webhook. */
  next(): HeraldProcess {
    const live = this.live();
    const chosen = live.length > 0 ? live[this.turn % live.length]! : this.instances[0]!;
    this.turn += 1;
    return chosen;
  }

  /** SIGKILLs `instance` (out of the rotation first) and waits for it to be gone. */
  async kill(instance: HeraldProcess): Promise<void> {
    this.killed.add(instance);
    await instance.crash();
  }

  wasKilled(instance: HeraldProcess): boolean {
    return this.killed.has(instance);
  }

  /** Instances that exited on their own (not killed by the scenario), with their last words. */
  exits(): Array<{ index: number; code: number | null; signal: string | null; lastLine: string }> {
    return this.instances.flatMap((instance, index) =>
      this.killed.has(instance) || running(instance)
        ? []
        : [{ index, code: instance.child.exitCode, signal: instance.child.signalCode, lastLine: lastWords(instance.output) }],
    );
  }

  /** Every output line of every instance, matching `pattern`. */
  linesMatching(pattern: RegExp): string[] {
    return this.instances.flatMap((instance) => instance.output.filter((line) => pattern.test(line)));
  }

  /**
   * SIGTERM to every running instance (a clean stop finishes what is in flight, so what it
   * was sending reaches Twilio before the count), SIGKILL for one that does not stop; then
   * writes the logs if asked and removes the spool directories.
   */
  async stop(logDirectory?: string, label = 'chaos'): Promise<void> {
    await Promise.all(
      this.instances.filter(running).map(async (instance) => {
        const stopped = instance.terminate();
        // The process's own SHUTDOWN_GRACE_MS (20 s) plus start-up slack, then a crash.
        const timer = setTimeout(() => instance.child.kill('SIGKILL'), 45_000);
        await stopped.finally(() => clearTimeout(timer));
      }),
    );
    if (logDirectory) {
      await mkdir(logDirectory, { recursive: true });
      for (const [index, instance] of this.instances.entries()) await writeFile(path.join(logDirectory, `${label}-${index + 1}.log`), `${instance.output.join('\n')}\n`);
    }
    for (const directory of this.spools.splice(0)) await rm(directory, { recursive: true, force: true });
  }
}

export function running(instance: HeraldProcess): boolean {
  return instance.child.exitCode === null && instance.child.signalCode === null;
}

/** The most telling line of a process's output: its last error-level line, else its last line. */
export function lastWords(output: string[]): string {
  const errors = output.filter((line) => /"level":(50|60)|Error|error:/.test(line));
  const line = errors[errors.length - 1] ?? output[output.length - 1] ?? '(no output)';
  try {
    const parsed = JSON.parse(line) as { msg?: string; error?: unknown; err?: { message?: string } };
    const detail = typeof parsed.error === 'string' ? parsed.error : (parsed.err?.message ?? JSON.stringify(parsed.error ?? ''));
    return `${parsed.msg ?? ''}${detail ? `: ${detail}` : ''}`.slice(0, 160);
  } catch {
    return line.slice(0, 160);
  }
}
