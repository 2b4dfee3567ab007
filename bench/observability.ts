/**
 * Observability's cost on a whole turn (issue 22): webhook → reply handed to Twilio, p50 and
 * p99, with metrics off, metrics on (METRICS_TOKEN) and tracing on (an OTLP/HTTP sink
 * taking every export), in the same run. Herald runs in this process (createHerald, turn
 * workers started) on a fresh database per mode, the fake Anthropic answering at once and
 * the fake Twilio timestamping each reply; 300 people text one message each, 20 a second.
 * The modes alternate over three rounds, each starting with a different mode (after a warm-up
 * run that is not counted), so drift on a shared machine and position in the run hit each alike.
 * The webhook's own ack p99 for the same modes (and under scraping) is in `webhook`.
 */
import type { AddressInfo } from 'node:net';
import { startOtlpSink } from './support/otlp-sink.js';
import twilio from 'twilio';
import { loadConfig } from '../src/config/config.js';
import { connectDatabase } from '../src/db/database.js';
import { createHerald } from '../src/runtime.js';
import { FakeAnthropicServer } from '../test/fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../test/fakes/fake-twilio-server.js';
import { inboundForm } from '../test/helpers/herald-harness.js';
import type { Benchmark, Check } from './support/benchmark.js';
import { banner, ms, percentile, table } from './support/report.js';

const MESSAGES = Number(process.env.BENCH_OBSERVABILITY_MESSAGES ?? 300);
const RATE = 20;
const ROUNDS = 3;
const PUBLIC_BASE_URL = 'https://herald.bench.test';
const ANSWER = 'Here you are.';
const goals = { metrics: 1.03, tracing: 1.1 };

type Mode = 'off' | 'metrics' | 'tracing';

export const observabilityBenchmark: Benchmark = {
  name: 'observability',
  description: `webhook → reply p50/p99 with metrics off, on, and tracing on (${MESSAGES} messages at ${RATE}/s, ${ROUNDS} rounds)`,
  async run({ postgres, logger, print }) {
    print(banner(`Observability's cost on a turn: webhook → reply handed to Twilio, ${MESSAGES} messages at ${RATE}/s, modes alternating over ${ROUNDS} rounds`));
    const sink = await startOtlpSink();
    const results = new Map<Mode, { ack: number[]; reply: number[]; cpuMs: number }>();
    let run = 0;
    try {
      // Round 0 warms up (JIT, the pools, the fakes) and is not counted.
      for (let round = 0; round <= ROUNDS; round += 1) {
        // Each round starts with a different mode, so none always runs first (or last).
        const order: Mode[] = ['off', 'metrics', 'tracing'];
        for (const mode of round === 0 ? ['off' as const] : [...order.slice((round - 1) % 3), ...order.slice(0, (round - 1) % 3)]) {
          run += 1;
          const databaseInfo = await postgres.createMigratedDatabase(`observability${run}`, logger);
          const database = connectDatabase(databaseInfo.url, 10);
          const [fakeTwilio, fakeAnthropic] = await Promise.all([FakeTwilioServer.start(), FakeAnthropicServer.start()]);
          fakeAnthropic.setFallback({ text: ANSWER, thinking: 'Short and friendly.' });
          const config = loadConfig({
            NODE_ENV: 'production',
            LOG_LEVEL: 'warn',
            ACCESS_MODE: 'open',
            NEW_USERS_PER_HOUR: '1000000',
            PUBLIC_BASE_URL,
            HERALD_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
            TWILIO_ACCOUNT_SID: fakeTwilio.accountSid,
            TWILIO_AUTH_TOKEN: fakeTwilio.authToken,
            TWILIO_SMS_FROM: '+15005550006',
            TWILIO_API_BASE_URL: fakeTwilio.url,
            ANTHROPIC_API_KEY: 'bench',
            ANTHROPIC_BASE_URL: fakeAnthropic.url,
            ...(mode === 'metrics' ? { METRICS_TOKEN: 'observability-bench-token-000000' } : {}),
            ...(mode === 'tracing' ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } : {}),
          });
          const herald = await createHerald({ config, logger, database, recoveryIntervalMs: 0 });
          await herald.start();
          await herald.app.listen({ host: '127.0.0.1', port: 0 });
          const { port } = herald.app.server.address() as AddressInfo;
          const sent = new Map<string, number>();
          const ack: number[] = [];
          const cpuBefore = process.cpuUsage();
          let cpuMs = 0;
          try {
            const started = performance.now();
            const posts: Array<Promise<void>> = [];
            for (let index = 0; index < MESSAGES; index += 1) {
              const wait = started + (index * 1000) / RATE - performance.now();
              if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
              const from = `+1415${String(8_000_000 + run * 10_000 + index).padStart(7, '0')}`;
              const form = inboundForm({ from, body: `hello number ${index}` }, fakeTwilio.accountSid);
              const signature = twilio.getExpectedTwilioSignature(fakeTwilio.authToken, `${PUBLIC_BASE_URL}/twilio/messages`, form);
              const postedAt = performance.now();
              sent.set(from, Date.now());
              posts.push(
                fetch(`http://127.0.0.1:${port}/twilio/messages`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, body: new URLSearchParams(form) }).then(async (response) => {
                  await response.arrayBuffer();
                  if (response.status !== 200) throw new Error(`webhook answered ${response.status}`);
                  ack.push(performance.now() - postedAt);
                }),
              );
            }
            await Promise.all(posts);
            await fakeTwilio.waitForMessages(MESSAGES, 120_000);
            const cpu = process.cpuUsage(cpuBefore);
            cpuMs = (cpu.user + cpu.system) / 1000;
          } finally {
            await herald.stop(5_000);
            await database.close();
            await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
          }
          const reply = fakeTwilio.messages.map((message) => message.dateCreated.getTime() - sent.get(message.to)!);
          if (fakeTwilio.messages.some((message) => message.body !== ANSWER)) throw new Error(`${mode}: a reply was not the answer`);
          if (round === 0) continue;
          const entry = results.get(mode) ?? { ack: [], reply: [], cpuMs: 0 };
          entry.ack.push(...ack);
          entry.reply.push(...reply);
          entry.cpuMs += cpuMs;
          results.set(mode, entry);
          print(`  round ${round}, ${mode}: reply p50 ${ms(percentile(reply, 0.5))} ms, ack p99 ${ms(percentile(ack, 0.99))} ms`);
        }
      }
    } finally {
      await sink.close();
    }
    const row = (mode: Mode) => {
      const entry = results.get(mode)!;
      return [mode, entry.reply.length, ms(percentile(entry.ack, 0.5)), ms(percentile(entry.ack, 0.99)), ms(percentile(entry.reply, 0.5)), ms(percentile(entry.reply, 0.99)), ms(entry.cpuMs / entry.reply.length)];
    };
    print(table(['mode', 'replies', 'ack p50 ms', 'ack p99 ms', 'reply p50 ms', 'reply p99 ms', 'CPU ms per turn'], (['off', 'metrics', 'tracing'] as const).map(row)));
    print('CPU per turn: this whole process (Herald, the fakes, the load) per message; the fakes and the load are the same in every mode, so differences are Herald\'s.');
    const cpu = (mode: Mode) => results.get(mode)!.cpuMs / results.get(mode)!.reply.length;
    print(`CPU per turn, metrics / off ${(cpu('metrics') / cpu('off')).toFixed(3)}, tracing / off ${(cpu('tracing') / cpu('off')).toFixed(3)}`);
    print(`OTLP sink received ${sink.exports()} exports`);
    const p50 = (mode: Mode) => percentile(results.get(mode)!.reply, 0.5);
    const checks: Check[] = [
      { name: 'webhook → reply p50, metrics on / off', target: `≤ ${goals.metrics}`, measured: `${(p50('metrics') / p50('off')).toFixed(3)}`, pass: p50('metrics') / p50('off') <= goals.metrics, kind: 'target' },
      { name: 'webhook → reply p50, tracing on / off', target: `≤ ${goals.tracing}`, measured: `${(p50('tracing') / p50('off')).toFixed(3)}`, pass: p50('tracing') / p50('off') <= goals.tracing, kind: 'target' },
    ];
    return { checks };
  },
};

