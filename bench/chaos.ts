/**
 * Chaos benchmark (issue 31): the fault-injection runs of the issue, reproduced. Real Herald
 * processes (`src/server.ts`, production mode) under a paced load of 5 new senders a second
 * (one message each, signed webhooks alternating between two instances), the fake Anthropic
 * answering after 300 ms, and one fault at a time:
 *   1 db-20s          the database stopped for 20 s (a cluster of the benchmark's own)
 *   2 db-3min         the database down for 3 minutes
 *   3 twilio-500      Twilio's REST API answering 500 for 60 s
 *   4 twilio-refused  Twilio refusing connections for 60 s
 *   5 drop-answer     Twilio taking sends but the answer lost for 20 s (reset, then hang)
 *   6 sigkill         SIGKILL of one of two instances every 10 s for 60 s, a replacement after each
 *   7 start-together  two, then three instances started at once on a new, empty database, 5 tries
 *   8 slow-model      1,000 turns in flight on one instance waiting on a 5 s model
 * Per fault: messages sent, answered once, duplicated, lost (and, for 6, lost in flight on the
 * killed process: Twilio's Fallback URL's case), time to recover (fault end → last reply).
 * Replies are counted per sender from the messages the fake Twilio accepted.
 *
 * BENCH_CHAOS_SCALE=0.25 shortens every duration; BENCH_CHAOS_ONLY=sigkill[,…] runs some;
 * BENCH_CHAOS_DEADLINE_S bounds the wait for replies; BENCH_CHAOS_LOGS=<dir> keeps the logs.
 */
import { StoppablePostgres } from '../test/helpers/stoppable-postgres.js';
import type { Benchmark, Check } from './support/benchmark.js';
import { faultScenarios } from './support/chaos-faults.js';
import { runFaultScenario } from './support/chaos-fault-run.js';
import { chaosSettings, seconds, type ChaosContext, type ChaosResult } from './support/chaos-settings.js';
import { runSlowModel } from './support/chaos-slow-model.js';
import { runStartTogether } from './support/chaos-start-together.js';
import { banner, table } from './support/report.js';

interface ScenarioEntry {
  name: string;
  /** What issue 31 measured on main. */
  onMain: string;
  /** Needs the stoppable cluster. */
  stoppable: boolean;
  run(context: ChaosContext): Promise<ChaosResult>;
}

const scenarios: ScenarioEntry[] = [
  ...faultScenarios.map((scenario) => ({ name: scenario.name, onMain: scenario.onMain, stoppable: true, run: (context: ChaosContext) => runFaultScenario(scenario, context) })),
  { name: 'start-together', onMain: 'one of 2 exits in 4 of 5 tries (6/10 up); 3 at once not reported', stoppable: false, run: runStartTogether },
  { name: 'slow-model', onMain: 'failed turns 32, extra model calls 32; ≈0.8 MB per turn in flight', stoppable: false, run: runSlowModel },
];

export const chaosBenchmark: Benchmark = {
  name: 'chaos',
  description: 'issue 31 faults (database down, Twilio failing, answers lost, SIGKILLs, concurrent start, 1,000 slow turns): sent, answered once, duplicated, lost, recovery',
  async run({ postgres, logger, print }) {
    const settings = chaosSettings();
    const unknown = [...(settings.only ?? [])].filter((name) => !scenarios.some((scenario) => scenario.name === name));
    if (unknown.length > 0) throw new Error(`BENCH_CHAOS_ONLY: unknown scenario ${unknown.join(', ')}; known: ${scenarios.map((scenario) => scenario.name).join(', ')}`);
    const selected = scenarios.filter((scenario) => !settings.only || settings.only.has(scenario.name));
    print(banner(`Chaos (issue 31): ${selected.length} fault scenario(s), ${settings.sendersPerSecond} new senders a second, model ${settings.modelDelayMs} ms${settings.scale === 1 ? '' : `, durations × ${settings.scale}`}`));

    const stoppable = selected.some((scenario) => scenario.stoppable) ? await StoppablePostgres.start() : undefined;
    const results: Array<{ entry: ScenarioEntry; result?: ChaosResult; error?: unknown }> = [];
    try {
      for (const entry of selected) {
        try {
          const context: ChaosContext = { settings, stoppable: stoppable!, benchPostgres: postgres, logger, print };
          results.push({ entry, result: await entry.run(context) });
        } catch (error) {
          print(`  ${entry.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          results.push({ entry, error });
        }
      }
    } finally {
      await stoppable?.destroy();
    }

    print(banner('Chaos: per fault, this run beside main (issue 31)'));
    print(
      table(
        ['scenario', 'sent', 'answered once', 'duplicated', 'lost', 'lost in flight', 'recovery', 'this run, also', 'on main (issue 31)'],
        results.map(({ entry, result, error }) =>
          result
            ? [entry.name, result.sent, result.answeredOnce, result.duplicated, result.lost, result.lostInFlight, result.recoveryMs === undefined ? undefined : seconds(result.recoveryMs), result.headline, entry.onMain]
            : [entry.name, undefined, undefined, undefined, undefined, undefined, undefined, `crashed: ${firstLine(error)}`, entry.onMain],
        ),
      ),
    );
    print('recovery: from the fault\'s end (database up, Twilio back, the last kill) to the last reply to a sender who wrote before it; 0 when none came after it.');
    print('lost in flight: no reply, and the webhook was cut by the SIGKILL (with Twilio\'s Fallback URL pointing at the other instance, it is retried there).');

    const checks: Check[] = results.flatMap(({ entry, result, error }): Check[] =>
      result ? result.checks : [{ name: `${entry.name}: runs`, target: 'completes', measured: `crashed: ${firstLine(error)}`, pass: false, kind: 'correctness' }],
    );
    return { checks };
  },
};

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 120);
}
