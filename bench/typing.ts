/**
 * Typing benchmark (issue 24): how soon WhatsApp shows "typing…". A real Herald
 * (`createHerald`, production settings, workers running, TYPING_INDICATOR on) on a fresh
 * database, the real Twilio and Anthropic SDKs against the local fakes. Each run is a new
 * WhatsApp user's first message ("hi") posted through `app.inject` as a signed webhook; the
 * fake Anthropic answers after `BENCH_TYPING_MODEL_MS` (600 ms), and the stopwatch runs from
 * the webhook to the moment the fake Twilio receives the typing indicator for that message
 * (and, for context, to the reply). Target: webhook to typing indicator p50 < 300 ms.
 */
import { performance } from 'node:perf_hooks';
import type { FakeTwilioServer } from '../test/fakes/fake-twilio-server.js';
import type { Benchmark, Check } from './support/benchmark.js';
import { startInProcessHerald } from './support/in-process-herald.js';
import { banner, ms, percentile, table } from './support/report.js';

const RUNS = Number(process.env.BENCH_TYPING_RUNS ?? 40);
const WARM_UP = 5;
const MODEL_MS = Number(process.env.BENCH_TYPING_MODEL_MS ?? 600);
const WHATSAPP_FROM = 'whatsapp:+14155238886';
const P50_TARGET_MS = 300;

export const typingBenchmark: Benchmark = {
  name: 'typing',
  description: 'WhatsApp typing indicator: webhook to "typing…" at Twilio (and to the reply)',
  async run({ postgres, logger, print }) {
    print(banner(`Typing: ${RUNS} WhatsApp messages after ${WARM_UP} warm-up, the model answering after ${MODEL_MS} ms`));
    const bench = await startInProcessHerald(postgres, 'typing', logger, { TWILIO_WHATSAPP_FROM: WHATSAPP_FROM });
    const { fakeTwilio, fakeAnthropic } = bench;
    const checks: Check[] = [];
    const typingMs: number[] = [];
    const replyMs: number[] = [];
    let missing = 0;
    try {
      for (let run = -WARM_UP; run < RUNS; run += 1) {
        const index = run + WARM_UP + 1;
        const phone = `whatsapp:+1212${String(7_000_000 + index).padStart(7, '0')}`;
        const sid = `SM${String(index).padStart(32, '0')}`;
        fakeAnthropic.enqueue({ delayMs: MODEL_MS, then: { text: 'Hello!' } });
        const form = { MessageSid: sid, AccountSid: fakeTwilio.accountSid, From: phone, To: WHATSAPP_FROM, Body: 'hi', NumMedia: '0', ProfileName: 'Bench' };
        const typingBefore = fakeTwilio.typing.requests.length;
        const messagesBefore = fakeTwilio.messages.length;
        const startedWall = Date.now();
        const started = performance.now();
        const status = await bench.post(form);
        if (status !== 200) throw new Error(`the webhook answered ${status}`);
        await waitForReply(fakeTwilio, phone, messagesBefore);
        const reply = performance.now() - started;
        const typing = fakeTwilio.typing.requests.slice(typingBefore).find((request) => request.messageId === sid);
        if (run < 0) continue;
        replyMs.push(reply);
        if (typing) typingMs.push(typing.receivedAt.getTime() - startedWall);
        else missing += 1;
      }
    } finally {
      await bench.close();
    }
    const p50 = percentile(typingMs, 0.5);
    print(
      table(
        ['measure', 'p50 ms', 'p95 ms', 'max ms'],
        [
          ['webhook → typing indicator at Twilio', ms(p50), ms(percentile(typingMs, 0.95)), ms(Math.max(...typingMs))],
          ['webhook → reply at Twilio', ms(percentile(replyMs, 0.5)), ms(percentile(replyMs, 0.95)), ms(Math.max(...replyMs))],
        ],
      ),
    );
    checks.push({ name: 'typing indicator sent for every message', target: `${RUNS}`, measured: String(RUNS - missing), pass: missing === 0, kind: 'correctness' });
    checks.push({ name: 'webhook to typing indicator p50', target: `< ${P50_TARGET_MS} ms`, measured: `${ms(p50)} ms`, pass: p50 < P50_TARGET_MS, kind: 'target' });
    return { checks };
  },
};

/** Waits until fake Twilio has accepted one more message for `to` than it had at `before` (in total). */
async function waitForReply(fakeTwilio: FakeTwilioServer, to: string, before: number): Promise<void> {
  for (;;) {
    if (fakeTwilio.messages.slice(before).some((message) => message.to === to)) return;
    await fakeTwilio.waitForMessages(fakeTwilio.messages.length + 1, 10_000);
  }
}
