/**
 * `npm run bench [-- <name>...] [--profile] [--strict]`
 *
 * Runs the benchmarks in sequence against one Postgres server (BENCH_DATABASE_URL or
 * DATABASE_URL, else a throwaway embedded one), then prints a summary of every check.
 *   <name>     run only these benchmarks (see --list)
 *   --profile  instrument the targets and print where each request's time goes
 *   --strict   exit non-zero when a performance target is missed (correctness failures
 *              and crashes always do)
 *   --list     list the benchmarks and exit
 *
 * Adding a benchmark: write bench/<name>.ts exporting a `Benchmark` (support/benchmark.ts)
 * and add it to `benchmarks` below.
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createLogger } from '../src/logging/logger.js';
import type { Benchmark, BenchmarkOutcome } from './support/benchmark.js';
import { machineBusyOver } from './support/cpu.js';
import { BenchPostgres } from './support/database.js';
import { banner, table, type Cell } from './support/report.js';
import { accessBenchmark } from './access.js';
import { burstBenchmark } from './burst.js';
import { observabilityBenchmark } from './observability.js';
import { brainBenchmark } from './brain.js';
import { calendarBenchmark } from './calendar.js';
import { chaosBenchmark } from './chaos.js';
import { contactsBenchmark } from './contacts.js';
import { conversationBenchmark } from './conversation.js';
import { datesBenchmark } from './dates.js';
import { emailBenchmark } from './email.js';
import { gmailBenchmark } from './gmail.js';
import { learningBenchmark } from './learning.js';
import { mediaBenchmark } from './media.js';
import { pagesBenchmark } from './pages.js';
import { recoveryBenchmark } from './recovery.js';
import { remindersBenchmark } from './reminders.js';
import { routinesBenchmark } from './routines.js';
import { scenariosBenchmark } from './scenarios.js';
import { webhookBenchmark } from './webhook.js';
import { typingBenchmark } from './typing.js';

const benchmarks: Benchmark[] = [
  webhookBenchmark,
  scenariosBenchmark,
  remindersBenchmark,
  routinesBenchmark,
  pagesBenchmark,
  calendarBenchmark,
  emailBenchmark,
  gmailBenchmark,
  recoveryBenchmark,
  burstBenchmark,
  observabilityBenchmark,
  accessBenchmark,
  conversationBenchmark,
  mediaBenchmark,
  brainBenchmark,
  contactsBenchmark,
  learningBenchmark,
  typingBenchmark,
  datesBenchmark,
  chaosBenchmark,
];

const print = (line = '') => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const flags = new Set(args.filter((arg) => arg.startsWith('--')));
  const names = args.filter((arg) => !arg.startsWith('--'));
  const known = new Set(['--profile', '--strict', '--list', '--help']);
  const unknownFlags = [...flags].filter((flag) => !known.has(flag));
  if (flags.has('--help') || unknownFlags.length > 0) {
    if (unknownFlags.length > 0) print(`unknown option ${unknownFlags.join(', ')}`);
    print('usage: npm run bench [-- <name>...] [--profile] [--strict] [--list]');
    print(`benchmarks: ${benchmarks.map((benchmark) => benchmark.name).join(', ')}`);
    return unknownFlags.length > 0 ? 2 : 0;
  }
  if (flags.has('--list')) {
    print(table(['name', 'what'], benchmarks.map((benchmark) => [benchmark.name, benchmark.description])));
    return 0;
  }
  const unknownNames = names.filter((name) => !benchmarks.some((benchmark) => benchmark.name === name));
  if (unknownNames.length > 0) {
    print(`unknown benchmark ${unknownNames.join(', ')}; available: ${benchmarks.map((benchmark) => benchmark.name).join(', ')}`);
    return 2;
  }
  const selected = names.length > 0 ? benchmarks.filter((benchmark) => names.includes(benchmark.name)) : benchmarks;

  const started = performance.now();
  const busy = await machineBusyOver(1000);
  if (busy !== undefined) {
    print(`host: ${cpus().length} cores, ${(busy * 100).toFixed(0)}% busy before the benchmarks started`);
    if (busy > 0.2) print('WARNING: something else is using this machine\'s CPUs; the figures below will be lower and noisier than it can do.');
  }
  // Warnings and errors only: nothing is logged per request while load runs.
  const logger = createLogger({ level: 'warn' });
  const postgres = await BenchPostgres.start(logger);
  const cleanUp = async () => {
    await postgres.close().catch((error: unknown) => print(`cleanup failed: ${String(error)}`));
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      print(`\n${signal}: stopping, dropping the benchmark databases…`);
      void cleanUp().finally(() => process.exit(130));
    });
  }

  const outcomes: Array<{ benchmark: Benchmark; outcome?: BenchmarkOutcome; error?: unknown }> = [];
  try {
    for (const benchmark of selected) {
      try {
        outcomes.push({ benchmark, outcome: await benchmark.run({ postgres, logger, profile: flags.has('--profile'), print }) });
      } catch (error) {
        print(`\n${benchmark.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        outcomes.push({ benchmark, error });
      }
    }
  } finally {
    await cleanUp();
  }

  print(banner(`summary (${((performance.now() - started) / 1000).toFixed(0)} s)`));
  const rows: Cell[][] = outcomes.flatMap(({ benchmark, outcome, error }): Cell[][] =>
    outcome
      ? outcome.checks.map((check) => [benchmark.name, check.name, check.target, check.measured, check.pass ? 'PASS' : 'FAIL'])
      : [[benchmark.name, 'run', 'completes', `crashed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, 'FAIL']],
  );
  print(table(['benchmark', 'check', 'target', 'measured', 'result'], rows));

  const crashed = outcomes.some(({ error }) => error !== undefined);
  const checks = outcomes.flatMap(({ outcome }) => outcome?.checks ?? []);
  const incorrect = checks.some((check) => check.kind === 'correctness' && !check.pass);
  const missed = checks.some((check) => check.kind === 'target' && !check.pass);
  if (missed && !flags.has('--strict')) print('\n(a performance target was missed; pass --strict to make that fail the run)');
  return crashed || incorrect || (missed && flags.has('--strict')) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    print(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
