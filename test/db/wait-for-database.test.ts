import { describe, expect, inject, it } from 'vitest';
import { DatabaseUnavailableError, waitForDatabase } from '../../src/db/wait-for-database.js';
import { capturingLogger } from '../helpers/herald-harness.js';
import { TcpFaultProxy } from '../helpers/tcp-fault-proxy.js';

/**
 * Start-up against a Postgres that is late or absent: a database that comes up within
 * DATABASE_CONNECT_TIMEOUT_MS is waited for; past it, one clear error names the server and
 * why, and never the password.
 */
describe('waiting for the database at start-up', () => {
  /** A clock that only moves when the code under test sleeps, so no test waits for real. */
  function virtualTime(onSleep: (count: number) => Promise<void> = async () => {}) {
    let now = 0;
    const sleeps: number[] = [];
    return {
      sleeps,
      now: () => now,
      sleep: async (milliseconds: number) => {
        sleeps.push(milliseconds);
        now += milliseconds;
        await onSleep(sleeps.length);
      },
    };
  }

  /** The test server's URL, through a proxy that can refuse connections, with a password in it. */
  async function proxiedUrl(proxy: TcpFaultProxy): Promise<string> {
    const url = new URL(inject('databaseServerUrl'));
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    url.password = 'sekret-password';
    return url.toString();
  }

  it('gives up past the limit with one error naming host, port and cause, never the password', async () => {
    const proxy = await TcpFaultProxy.start(Number(new URL(inject('databaseServerUrl')).port || 5432));
    const url = await proxiedUrl(proxy);
    await proxy.close();
    const { logger, logs } = capturingLogger();
    const time = virtualTime();

    const waiting = waitForDatabase(url, logger, { timeoutMs: 10_000, initialDelayMs: 500, maxDelayMs: 4_000, sleep: time.sleep, now: time.now });

    const error = await waiting.then(
      () => expect.fail('waitForDatabase returned although nothing listens'),
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(error.message).toContain(`127.0.0.1:${proxy.port}`);
    expect(error.message).toContain('connection refused');
    expect(error.message).toContain('DATABASE_CONNECT_TIMEOUT_MS');
    // Backoff doubles up to its cap, and the last pause ends exactly at the limit.
    expect(time.sleeps).toEqual([500, 1_000, 2_000, 4_000, 2_500]);
    expect(error.message).toContain('6 attempts');
    const logged = logs.text();
    expect(logged).toContain('database not reachable yet; retrying');
    expect(logged).not.toContain('sekret-password');
    expect(error.message).not.toContain('sekret-password');
  });

  it('waits for a database that comes up late, then returns', async () => {
    const proxy = await TcpFaultProxy.start(Number(new URL(inject('databaseServerUrl')).port || 5432));
    const url = new URL(await proxiedUrl(proxy));
    url.password = new URL(inject('databaseServerUrl')).password;
    await proxy.close();
    const { logger, logs } = capturingLogger();
    // The server "starts" during the second pause.
    const time = virtualTime(async (count) => {
      if (count === 2) await proxy.reopen();
    });

    await waitForDatabase(url.toString(), logger, { timeoutMs: 60_000, sleep: time.sleep, now: time.now });

    expect(time.sleeps).toHaveLength(2);
    expect(proxy.connections).toBeGreaterThan(0);
    expect(logs.text()).toContain('database reachable');
    await proxy.close();
  });
});
