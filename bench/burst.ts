/**
 * Burst benchmark (issue 22): 1,000 people text within 10 seconds (a school notice, a storm
 * warning), two Herald processes (the real `src/server.ts`, production mode) on one Postgres,
 * the fake Anthropic answering every call after 3 s (a real model's latency), the fake Twilio
 * timestamping every reply it accepts. Then the same with the model answering 429 (with
 * retry-after) to a third of the calls. Prints the time from the first text to the last reply,
 * reply time p50/p99, each instance's peak RSS, CPU and peak turns in flight (memory and CPU
 * per in-flight turn, what TURN_CONCURRENCY's default is set from), and checks that every
 * person got exactly one reply and none was an apology.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { FakeAnthropicServer, type ScriptedAnthropicResponse } from '../test/fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../test/fakes/fake-twilio-server.js';
import { crashTestEnvironment, postInbound } from '../test/helpers/crash-takeover.js';
import { startHeraldProcess, type HeraldProcess } from '../test/helpers/herald-process.js';
import { parseScrape } from '../test/observability/scrape.js';
import type { Benchmark, Check } from './support/benchmark.js';
import { banner, ms, percentile, table } from './support/report.js';

const USERS = Number(process.env.BENCH_BURST_USERS ?? 1_000);
const SPREAD_MS = Number(process.env.BENCH_BURST_SPREAD_MS ?? 10_000);
const MODEL_MS = Number(process.env.BENCH_BURST_MODEL_MS ?? 3_000);
const CONCURRENCY = process.env.BENCH_BURST_CONCURRENCY;
const LAST_REPLY_TARGET_MS = 60_000;
const PUBLIC_BASE_URL = 'https://herald.bench.test';
const METRICS_TOKEN = 'burst-bench-metrics-token-000000';
const ANSWER = 'Thanks, noted. Stay safe!';

/** Resident memory of a process, in bytes (from /proc). */
function rss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/** CPU time a process has used, in milliseconds (user + system, from /proc; 100 ticks a second). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function metric(instance: HeraldProcess, name: string): Promise<number> {
  const response = await fetch(`${instance.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  return parseScrape(await response.text())
    .filter((sample) => sample.name === name)
    .reduce((sum, sample) => sum + sample.value, 0);
}

interface Variant {
  name: string;
  /** Every nth model call is answered 429 (0: none). */
  rateLimitEvery: number;
}

const variants: Variant[] = [
  { name: 'model answers every call', rateLimitEvery: 0 },
  { name: '429 (retry-after 1 s) on a third of calls', rateLimitEvery: 3 },
];

export const burstBenchmark: Benchmark = {
  name: 'burst',
  description: `${USERS} users text within ${SPREAD_MS / 1000} s, model ${MODEL_MS / 1000} s per call, two instances; then with 429 on a third of calls`,
  async run({ postgres, logger, print }) {
    print(banner(`Burst: ${USERS} people text within ${SPREAD_MS / 1000} s; model ${MODEL_MS / 1000} s per call; two Herald processes${CONCURRENCY ? `, TURN_CONCURRENCY=${CONCURRENCY}` : ''}`));
    const checks: Check[] = [];
    const rows: Array<Array<string | number>> = [];
    const perInstance: Array<Array<string | number>> = [];
    // BENCH_BURST_VARIANT=0 or 1: only that variant.
    const only = process.env.BENCH_BURST_VARIANT === undefined ? undefined : Number(process.env.BENCH_BURST_VARIANT);
    for (const [variantIndex, variant] of variants.entries()) {
      if (only !== undefined && only !== variantIndex) continue;
      const databaseInfo = await postgres.createMigratedDatabase(`burst${variantIndex}`, logger);
      const [fakeTwilio, fakeAnthropic] = await Promise.all([FakeTwilioServer.start(), FakeAnthropicServer.start()]);
      let calls = 0;
      let limited = 0;
      fakeAnthropic.setFallback((): ScriptedAnthropicResponse => {
        calls += 1;
        if (variant.rateLimitEvery > 0 && calls % variant.rateLimitEvery === 0) {
          limited += 1;
          return { error: { status: 429, retryAfterSeconds: 1 } };
        }
        return { delayMs: MODEL_MS, then: { text: ANSWER, thinking: 'A short, friendly acknowledgement is enough.' } };
      });
      const environment = async () =>
        crashTestEnvironment({
          databaseUrl: databaseInfo.url,
          fakeTwilio,
          fakeAnthropic,
          publicBaseUrl: PUBLIC_BASE_URL,
          extra: {
            NODE_ENV: 'production',
            LOG_LEVEL: 'info',
            ACCESS_MODE: 'open',
            NEW_USERS_PER_HOUR: '1000000',
            ANTHROPIC_MAX_RETRIES: '2',
            METRICS_TOKEN,
            ...(CONCURRENCY ? { TURN_CONCURRENCY: CONCURRENCY } : {}),
          },
        });
      const instances = [await startHeraldProcess(await environment()), await startHeraldProcess(await environment())];
      const pids = instances.map((instance) => instance.child.pid!);
      const idleRss = pids.map(rss);
      const peakRss = [...idleRss];
      const peakInFlight = [0, 0];
      const cpuBefore = pids.map(cpuMs);
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          for (const [index, pid] of pids.entries()) peakRss[index] = Math.max(peakRss[index]!, rss(pid));
          const inFlight = await Promise.all(instances.map((instance) => metric(instance, 'herald_turns_in_flight').catch(() => 0)));
          for (const [index, value] of inFlight.entries()) peakInFlight[index] = Math.max(peakInFlight[index]!, value);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      })();
      const sentAt = new Map<string, number>();
      const started = Date.now();
      let refused = 0;
      try {
        // Evenly over the spread, alternating between the instances (a load balancer).
        const posts: Array<Promise<void>> = [];
        for (let user = 0; user < USERS; user += 1) {
          const due = started + (user * SPREAD_MS) / USERS;
          const wait = due - Date.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          const from = `+1415${String(7_000_000 + user).padStart(7, '0')}`;
          sentAt.set(from, Date.now());
          posts.push(
            postInbound(instances[user % 2]!, PUBLIC_BASE_URL, fakeTwilio, { from, body: `Got the storm warning, are we ok? (${user})` }).then((status) => {
              if (status !== 200) refused += 1;
            }),
          );
        }
        await Promise.all(posts);
        await fakeTwilio.waitForMessages(USERS - refused, 10 * 60_000).catch(() => undefined);
      } finally {
        sampling = false;
        await sampler;
      }
      const cpuUsed = pids.map((pid, index) => cpuMs(pid) - cpuBefore[index]!);
      const waits = await Promise.all(instances.map((instance) => metric(instance, 'herald_model_rate_limit_wait_seconds_total')));
      const seen429 = await Promise.all(instances.map((instance) => metric(instance, 'herald_model_rate_limited_responses_total')));
      const turnsPerInstance = await Promise.all(instances.map((instance) => metric(instance, 'herald_turns_total')));
      for (const instance of instances) await instance.terminate();
      await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
      // BENCH_BURST_LOGS=<dir>: each instance's log lines, for looking into a slow run.
      if (process.env.BENCH_BURST_LOGS) {
        for (const [index, instance] of instances.entries()) writeFileSync(`${process.env.BENCH_BURST_LOGS}/burst-${variantIndex}-${index + 1}.log`, `${instance.output.join('\n')}\n`);
      }

      const replies = new Map<string, Array<{ body: string | null; at: number }>>();
      for (const message of fakeTwilio.messages) replies.set(message.to, [...(replies.get(message.to) ?? []), { body: message.body, at: message.dateCreated.getTime() }]);
      const latencies: number[] = [];
      let lost = 0;
      let duplicates = 0;
      let apologies = 0;
      let lastReply = 0;
      for (const [from, sent] of sentAt) {
        const answers = replies.get(from) ?? [];
        if (answers.length === 0) lost += 1;
        if (answers.length > 1) duplicates += 1;
        if (answers.some((answer) => answer.body !== ANSWER)) apologies += 1;
        if (answers[0]) {
          latencies.push(answers[0].at - sent);
          lastReply = Math.max(lastReply, answers[0].at);
        }
      }
      const toLast = lastReply - started;
      rows.push([variant.name, USERS, `${(toLast / 1000).toFixed(1)} s`, `${(percentile(latencies, 0.5) / 1000).toFixed(1)} s`, `${(percentile(latencies, 0.99) / 1000).toFixed(1)} s`, calls, `${limited} (${seen429[0]! + seen429[1]!} in metrics)`, `${(waits[0]! + waits[1]!).toFixed(0)} s`, lost, duplicates, apologies]);
      for (const index of [0, 1]) {
        const extraMb = (peakRss[index]! - idleRss[index]!) / 1024 / 1024;
        perInstance.push([
          variant.name,
          index + 1,
          `${(idleRss[index]! / 1024 / 1024).toFixed(0)} MB`,
          `${(peakRss[index]! / 1024 / 1024).toFixed(0)} MB`,
          peakInFlight[index]!,
          peakInFlight[index]! > 0 ? `${((extraMb * 1024) / peakInFlight[index]!).toFixed(0)} kB` : '-',
          turnsPerInstance[index]!,
          `${(cpuUsed[index]! / 1000).toFixed(1)} s`,
          turnsPerInstance[index]! > 0 ? `${ms(cpuUsed[index]! / turnsPerInstance[index]!)} ms` : '-',
        ]);
      }
      const label = variant.rateLimitEvery ? ' (429 on a third)' : '';
      checks.push(
        { name: `time to the last reply${label}`, target: `< ${LAST_REPLY_TARGET_MS / 1000} s`, measured: `${(toLast / 1000).toFixed(1)} s`, pass: lost === 0 && toLast < LAST_REPLY_TARGET_MS, kind: 'target' },
        { name: `every person answered exactly once${label}`, target: '0 lost, 0 twice, 0 refused', measured: `${lost} lost, ${duplicates} twice, ${refused} refused`, pass: lost === 0 && duplicates === 0 && refused === 0, kind: 'correctness' },
        { name: `no apologies${label}`, target: '0', measured: String(apologies), pass: apologies === 0, kind: 'target' },
      );
    }
    print(table(['variant', 'users', 'to last reply', 'reply p50', 'reply p99', 'model calls', '429s', 'rate-limit wait', 'lost', 'twice', 'apologies'], rows));
    print(table(['variant', 'instance', 'idle RSS', 'peak RSS', 'peak in flight', 'RSS per in-flight turn', 'turns', 'CPU', 'CPU per turn'], perInstance));
    print('RSS per in-flight turn = (peak RSS - idle RSS) / peak turns in flight; rate-limit wait = herald_model_rate_limit_wait_seconds_total over both instances (waits beyond the SDK\'s own retries)');
    return { checks };
  },
};
