import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Logger } from '../logging/logger.js';
import { HeraldError } from '../shared/errors.js';

/** How long, and how patiently, start-up waits for Postgres to accept connections. */
export interface DatabaseWaitOptions {
  /** Give up after this long (DATABASE_CONNECT_TIMEOUT_MS); 0: never, for as long as the process runs. */
  timeoutMs: number;
  /** First pause between attempts; doubles up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Injected for tests. */
  sleep?: (milliseconds: number) => Promise<void>;
  now?: () => number;
}

/**
 * Postgres did not accept a connection within DATABASE_CONNECT_TIMEOUT_MS. Not a bug and not a
 * setting that is necessarily wrong (the server may be down): the process exits non-zero and
 * its supervisor decides whether to start it again.
 */
export class DatabaseUnavailableError extends HeraldError {
  readonly blame = 'configuration' as const;
}

/**
 * Waits until the database at `url` accepts a connection and answers a query, retrying with
 * backoff: in a container platform the app and its database often start together, and a
 * database a few seconds late must not crash-loop the app. Each failed attempt is logged at
 * warn with the server's host and port (never the URL: it holds the password). Past the
 * limit it throws DatabaseUnavailableError naming the server and the last error.
 */
export async function waitForDatabase(url: string, logger: Logger, options: DatabaseWaitOptions): Promise<void> {
  const wait = options.sleep ?? ((milliseconds: number) => sleep(milliseconds));
  const now = options.now ?? Date.now;
  const maxDelayMs = options.maxDelayMs ?? 5_000;
  const server = describeServer(url);
  const deadline = options.timeoutMs > 0 ? now() + options.timeoutMs : Number.POSITIVE_INFINITY;
  let delayMs = options.initialDelayMs ?? 500;
  for (let attempt = 1; ; attempt += 1) {
    const remaining = deadline - now();
    const failure = await tryConnect(url, Math.max(1_000, Math.min(remaining, 10_000)));
    if (!failure) {
      if (attempt > 1) logger.info({ server, attempts: attempt }, 'database reachable');
      return;
    }
    const left = deadline - now();
    if (left <= 0) {
      throw new DatabaseUnavailableError(
        `Could not reach the database at ${server} after ${attempt} attempt${attempt === 1 ? '' : 's'} over ${Math.round(options.timeoutMs / 1000)} s (DATABASE_CONNECT_TIMEOUT_MS): ${failure}. Check DATABASE_URL and that Postgres is running.`,
      );
    }
    logger.warn({ server, attempt, error: failure, retryInMs: Math.min(delayMs, left) }, 'database not reachable yet; retrying');
    await wait(Math.min(delayMs, left));
    delayMs = Math.min(delayMs * 2, maxDelayMs);
  }
}

/** Connects once and runs `SELECT 1`; the failure as a short sentence, or undefined. */
async function tryConnect(url: string, timeoutMs: number): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  // A connection that drops while we wait must not become an unhandled 'error' event.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return describeConnectError(error);
  } finally {
    await client.end().catch(() => {});
  }
}

function describeConnectError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: string }).code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host name not found';
  if (code === 'ETIMEDOUT' || /timeout/i.test(error.message)) return 'no answer in time';
  if (code === '28P01' || code === '28000') return 'the server refused the user name or password';
  if (code === '3D000') return 'the database does not exist';
  if (code === '57P03') return 'the server is starting up';
  // pg's own messages name no secret (the password is never echoed); the code helps an operator search.
  return code ? `${error.message} (${code})` : error.message;
}

/** host:port of a Postgres URL, for messages: never the user or password. */
function describeServer(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
  } catch {
    return 'the configured server';
  }
}
