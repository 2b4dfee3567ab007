import type { FakeAnthropicServer } from '../../test/fakes/fake-anthropic-server.js';
import type { FakeTwilioServer } from '../../test/fakes/fake-twilio-server.js';
import { crashTestEnvironment } from '../../test/helpers/crash-takeover.js';
import type { Logger } from '../../src/logging/logger.js';
import type { StoppablePostgres } from '../../test/helpers/stoppable-postgres.js';
import type { Check } from './benchmark.js';
import type { BenchPostgres } from './database.js';

/** The URL Twilio signs, the same for every instance (behind one load balancer). */
export const PUBLIC_BASE_URL = 'https://herald.chaos.bench.test';
export const METRICS_TOKEN = 'chaos-bench-metrics-token-000000';
/** What the fake model answers every turn: a reply with anything else in it is an apology (or a late note). */
export const ANSWER = 'Noted, thanks!';

/**
 * The knobs of a run, from the environment:
 *   BENCH_CHAOS_SCALE=0.25   multiplies every duration (and scenario 7's tries, scenario 8's turns)
 *   BENCH_CHAOS_ONLY=a,b     only these scenarios (by name)
 *   BENCH_CHAOS_DEADLINE_S   how long to wait for the last reply after the load ends (default 180 s, at least 90 s scaled)
 *   BENCH_CHAOS_LOGS=<dir>   each instance's output is written there, per scenario
 */
export interface ChaosSettings {
  scale: number;
  only: Set<string> | undefined;
  /** After the load and the fault end, how long replies are waited for. */
  deadlineMs: number;
  /** New senders a second, each sending one message. */
  sendersPerSecond: number;
  /** The fake model's latency in scenarios 1–7. */
  modelDelayMs: number;
  logDirectory: string | undefined;
}

export function chaosSettings(environment: NodeJS.ProcessEnv = process.env): ChaosSettings {
  const scale = Number(environment.BENCH_CHAOS_SCALE ?? 1);
  if (!(scale > 0)) throw new Error(`BENCH_CHAOS_SCALE must be a positive number, not ${environment.BENCH_CHAOS_SCALE}`);
  const only = environment.BENCH_CHAOS_ONLY ? new Set(environment.BENCH_CHAOS_ONLY.split(',').map((name) => name.trim()).filter(Boolean)) : undefined;
  // Recovery is bounded by Herald's own clocks (a 30 s backoff cap, pg-boss's retry delays), which the scale does not shorten.
  const deadlineMs = environment.BENCH_CHAOS_DEADLINE_S ? Number(environment.BENCH_CHAOS_DEADLINE_S) * 1000 : Math.max(90_000, 180_000 * Math.min(1, scale));
  return { scale, only, deadlineMs, sendersPerSecond: 5, modelDelayMs: 300, logDirectory: environment.BENCH_CHAOS_LOGS || undefined };
}

/** What every scenario gets. */
export interface ChaosContext {
  settings: ChaosSettings;
  /** The cluster scenarios 1–6 stop and start: the benchmark's own, never the shared server. */
  stoppable: StoppablePostgres;
  /** The run's Postgres server, for the scenarios that do not stop theirs (7, 8). */
  benchPostgres: BenchPostgres;
  logger: Logger;
  print(line?: string): void;
}

/** One row of the summary, and the scenario's checks. */
export interface ChaosResult {
  name: string;
  /** Messages sent (one per sender). */
  sent?: number;
  answeredOnce?: number;
  duplicated?: number;
  lost?: number;
  /** Scenario 6: unanswered messages whose webhook was cut by the SIGKILL (Twilio's Fallback URL's case). */
  lostInFlight?: number;
  /** From the fault's end to the last reply Twilio accepted; undefined when nothing was answered. */
  recoveryMs?: number;
  /** The scenario's own figure, short, for the summary table. */
  headline: string;
  /** Scenario-specific figures, in words. */
  other: string;
  checks: Check[];
}

/**
 * One Herald process's environment: crashTestEnvironment's (real SDKs against the fakes, its own
 * spool directory) in production mode, open to new senders, no limit the load would hit.
 */
export async function heraldEnvironment(options: {
  databaseUrl: string;
  fakeTwilio: FakeTwilioServer;
  fakeAnthropic: FakeAnthropicServer;
  extra?: Record<string, string>;
}): Promise<Record<string, string>> {
  return crashTestEnvironment({
    databaseUrl: options.databaseUrl,
    fakeTwilio: options.fakeTwilio,
    fakeAnthropic: options.fakeAnthropic,
    publicBaseUrl: PUBLIC_BASE_URL,
    extra: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      ACCESS_MODE: 'open',
      NEW_USERS_PER_HOUR: '1000000',
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000',
      ANTHROPIC_MAX_RETRIES: '2',
      // Background learning calls the model two minutes after a turn: it would blur "model calls per message".
      FACT_LEARNING: 'false',
      METRICS_TOKEN,
      ...options.extra,
    },
  });
}

/** Seconds with one decimal. */
export function seconds(milliseconds: number | undefined): string {
  return milliseconds === undefined || !Number.isFinite(milliseconds) ? '-' : `${(milliseconds / 1000).toFixed(1)} s`;
}

/** Waits `milliseconds` of the scenario's timeline (pacing, not waiting for an outcome). */
export function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, milliseconds)));
}
