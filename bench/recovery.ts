/**
 * Crash recovery benchmark (issue 11): two Herald processes (the real `src/server.ts`) on
 * one Postgres with production lease settings. Five times: a user texts, the instance that
 * starts the turn is SIGKILLed while its model call is in flight, and the stopwatch runs
 * until the other instance's reply reaches (fake) Twilio. A replacement process is started
 * after each kill, so there are always two. Prints each kill's crash-to-reply time, the
 * median and the max; checks every user got exactly one reply.
 */
import { FakeAnthropicServer } from '../test/fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../test/fakes/fake-twilio-server.js';
import { crashTestEnvironment, killTurnHolderAndAwaitReply } from '../test/helpers/crash-takeover.js';
import { startHeraldProcess, type HeraldProcess } from '../test/helpers/herald-process.js';
import { connectDatabase } from '../src/db/database.js';
import type { Benchmark, Check } from './support/benchmark.js';
import { banner, table } from './support/report.js';

const KILLS = Number(process.env.BENCH_RECOVERY_KILLS ?? 10);
/** Issue 31 item 5: another instance answers the interrupted turn within 5 s (the default lease is 3 s, swept every 1 s). */
const TARGET_MS = 5_000;
const PUBLIC_BASE_URL = 'https://herald.bench.test';

export const recoveryBenchmark: Benchmark = {
  name: 'recovery',
  description: `${KILLS} SIGKILLs of the Herald process holding a user's turn, two processes: crash-to-reply median and max`,
  async run({ postgres, logger, print }) {
    print(banner(`Crash recovery: ${KILLS} real-process kills mid-turn, two Herald processes`));
    const databaseInfo = await postgres.createMigratedDatabase('recovery', logger);
    const [fakeTwilio, fakeAnthropic] = await Promise.all([FakeTwilioServer.start(), FakeAnthropicServer.start()]);
    const environment = () => crashTestEnvironment({ databaseUrl: databaseInfo.url, fakeTwilio, fakeAnthropic, publicBaseUrl: PUBLIC_BASE_URL, extra: { LOG_LEVEL: 'info' } });
    const instances: HeraldProcess[] = [];
    const times: number[] = [];
    const rows: Array<Array<string | number>> = [];
    try {
      instances.push(await startHeraldProcess(await environment()), await startHeraldProcess(await environment()));
      for (let kill = 1; kill <= KILLS; kill += 1) {
        const from = `+1415555${String(9000 + kill)}`;
        const outcome = await killTurnHolderAndAwaitReply({
          instances: [instances[0]!, instances[1]!],
          publicBaseUrl: PUBLIC_BASE_URL,
          fakeTwilio,
          fakeAnthropic,
          from,
          body: `question number ${kill}`,
          answer: `answer number ${kill}`,
        });
        times.push(outcome.crashToReplyMs);
        const killedIndex = instances.indexOf(outcome.killed);
        rows.push([kill, killedIndex === 0 ? 'first' : 'second', `${(outcome.crashToReplyMs / 1000).toFixed(1)} s`]);
        print(`kill ${kill}: crash-to-reply ${(outcome.crashToReplyMs / 1000).toFixed(1)} s`);
        // Keep two instances: the replacement takes the killed one's place.
        instances[killedIndex] = await startHeraldProcess(await environment());
      }
      for (const instance of instances) await instance.terminate();
    } finally {
      for (const instance of instances) if (instance.child.exitCode === null && instance.child.signalCode === null) await instance.crash();
      await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
    }

    const database = connectDatabase(databaseInfo.url, 2);
    let duplicates = 0;
    let unanswered = 0;
    try {
      const { rows: perUser } = await database.pool.query<{ replies: number; pending: number }>(`
        SELECT (SELECT count(*) FROM "Message" m WHERE m."userId" = u.id AND m.role = 'assistant')::int AS replies,
               (SELECT count(*) FROM "Message" m WHERE m."userId" = u.id AND m.role = 'user' AND m."inboundStatus" <> 'handled')::int AS pending
          FROM "User" u`);
      duplicates = perUser.filter((row) => row.replies > 1).length;
      unanswered = perUser.filter((row) => row.replies === 0 || row.pending > 0).length;
    } finally {
      await database.close();
    }
    const sorted = [...times].sort((left, right) => left - right);
    const median = sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
    const max = sorted[sorted.length - 1]!;
    print(table(['kill', 'killed instance', 'crash-to-reply'], rows));
    print(`crash-to-reply over ${times.length} kills: median ${(median / 1000).toFixed(1)} s, max ${(max / 1000).toFixed(1)} s (default TURN_LEASE_MS and TURN_LEASE_SWEEP_MS)`);
    print(`replies sent by fake Twilio: ${fakeTwilio.messages.length}; users answered twice: ${duplicates}; unanswered: ${unanswered}`);
    const checks: Check[] = [
      { name: 'crash-to-reply, median', target: `< ${TARGET_MS / 1000} s`, measured: `${(median / 1000).toFixed(1)} s`, pass: median < TARGET_MS, kind: 'target' },
      { name: 'crash-to-reply, max', target: `< ${TARGET_MS / 1000} s`, measured: `${(max / 1000).toFixed(1)} s`, pass: max < TARGET_MS, kind: 'target' },
      { name: 'every user answered exactly once', target: '0 twice, 0 unanswered', measured: `${duplicates} twice, ${unanswered} unanswered`, pass: duplicates === 0 && unanswered === 0, kind: 'correctness' },
    ];
    return { checks };
  },
};
