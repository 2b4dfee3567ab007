import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

/**
 * Issue 31 item 1: a library's promise nobody awaited (pg-boss completing a job as Postgres
 * goes away) must not end the process. In a child process of its own (vitest reports such
 * errors as failures of the test that saw them): guarded, the process logs the error, counts
 * it, and goes on; unguarded, Node's default ends it.
 */
async function child(guarded: boolean): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const root = path.resolve('.');
  const script = `
    import { createLogger } from ${JSON.stringify(path.join(root, 'src/logging/logger.ts'))};
    import { createMetrics } from ${JSON.stringify(path.join(root, 'src/observability/metrics.ts'))};
    import { guardProcess } from ${JSON.stringify(path.join(root, 'src/observability/process-guards.ts'))};
    const metrics = createMetrics({ processMetrics: false });
    if (${guarded}) guardProcess(createLogger({ level: 'error' }), { metrics });
    Promise.reject(new Error('connection terminated unexpectedly'));
    setTimeout(() => { throw new Error('a callback threw'); }, 10);
    setTimeout(async () => {
      const { body } = await metrics.scrape();
      console.log('still running; ' + body.split('\\n').filter((line) => line.startsWith('herald_unhandled_errors_total')).join(' | '));
    }, 50);
  `;
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? null, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('guardProcess', () => {
  it('logs and counts an unhandled rejection and an uncaught exception, and keeps the process running', async () => {
    const result = await child(true);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('herald_unhandled_errors_total{kind="rejection"} 1');
    expect(result.stdout).toContain('herald_unhandled_errors_total{kind="exception"} 1');
    expect(result.stdout).toContain('still running');
    expect(result.stdout).toContain('"event":"unhandled_rejection"');
    expect(result.stdout).toContain('connection terminated unexpectedly');
  });

  it('is what keeps it alive: without it the same rejection ends the process', async () => {
    const result = await child(false);
    expect(result.code).not.toBe(0);
    expect(result.stdout).not.toContain('still running');
  });
});
