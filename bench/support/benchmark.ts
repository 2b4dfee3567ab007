import type { Logger } from '../../src/logging/logger.js';
import type { BenchPostgres } from './database.js';

/** What every benchmark gets from the runner. */
export interface BenchmarkContext {
  /** The Postgres server to create databases on (shared by all benchmarks of a run). */
  postgres: BenchPostgres;
  /** Silent below 'warn': nothing is logged while load runs. */
  logger: Logger;
  /** --profile: instrument targets (per-query timings) and print where time goes. */
  profile: boolean;
  /** Writes a line of the report. */
  print(line?: string): void;
}

/** One line of a benchmark's verdict. */
export interface Check {
  /** What is checked, e.g. "p99 at 200 req/s". */
  name: string;
  /** The target, e.g. "< 50 ms". */
  target: string;
  /** What was measured, e.g. "31.2 ms". */
  measured: string;
  pass: boolean;
  /**
   * 'target': a performance goal (a miss is reported, and fails the run only with --strict);
   * 'correctness': the run itself is invalid if it fails (lost or duplicated work).
   */
  kind: 'target' | 'correctness';
}

/** What a benchmark hands back to the runner for the final summary. */
export interface BenchmarkOutcome {
  checks: Check[];
}

/** A benchmark module: bench/index.ts runs each in turn. */
export interface Benchmark {
  /** Short name used on the command line: `npm run bench -- <name>`. */
  name: string;
  description: string;
  run(context: BenchmarkContext): Promise<BenchmarkOutcome>;
}
