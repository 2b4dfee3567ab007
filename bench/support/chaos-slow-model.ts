import { readFileSync } from 'node:fs';
import { FakeAnthropicServer } from '../../test/fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../../test/fakes/fake-twilio-server.js';
import type { HeraldProcess } from '../../test/helpers/herald-process.js';
import { parseScrape } from '../../test/observability/scrape.js';
import { heading } from './report.js';
import { HeraldFleet } from './chaos-fleet.js';
import { send, tally, waitForAnswers, type SenderRecord } from './chaos-load.js';
import { ANSWER, METRICS_TOKEN, heraldEnvironment, pause, seconds, type ChaosContext, type ChaosResult } from './chaos-settings.js';

const MODEL_MS = 5_000;
/** A model call is answered at most this long after it arrived: under the SDK's timeout (ANTHROPIC_TIMEOUT_MS, 30 s). */
const HOLD_MAX_MS = 25_000;
/** Webhooks posted at once while the turns pile up. */
const POSTERS = 50;

/**
 * Scenario 8: 1,000 turns in flight at once on one instance (TURN_CONCURRENCY=1000, the
 * default database pool), each waiting on a 5-second model. The webhooks alone take longer
 * than 5 s to post (on 2 cores, ≈40 s while turns pile up), so the model holds every answer
 * until the last one is posted (at most 25 s), then answers 5 s later. A turn that fails (it could not
 * get a connection in time) is re-run by the queue and calls the model again: failed turns
 * are counted from the process's log, extra model calls as model requests minus messages.
 */
export async function runSlowModel(context: ChaosContext): Promise<ChaosResult> {
  const { settings, benchPostgres, logger, print } = context;
  const turns = Math.max(50, Math.round(1_000 * Math.min(1, settings.scale)));
  print(heading(`slow-model: ${turns} turns in flight on one instance, model ${MODEL_MS / 1000} s after the last webhook, TURN_CONCURRENCY=${turns}, default pool`));
  const database = await benchPostgres.createMigratedDatabase('chaos_slow', logger);
  const [fakeTwilio, fakeAnthropic] = await Promise.all([FakeTwilioServer.start(), FakeAnthropicServer.start()]);
  // Every call is answered 5 s after the last webhook was posted (at most 25 s after it came), so all the turns are in flight at once.
  let allPosted = () => {};
  const posted = new Promise<void>((resolve) => (allPosted = resolve));
  fakeAnthropic.setFallback(async () => {
    await Promise.race([posted, pause(HOLD_MAX_MS - MODEL_MS)]);
    return { delayMs: MODEL_MS, then: { text: ANSWER } };
  });
  const fleet = new HeraldFleet(() => heraldEnvironment({ databaseUrl: database.url, fakeTwilio, fakeAnthropic, extra: { TURN_CONCURRENCY: String(turns) } }));
  try {
    const instance = await fleet.add();
    const idleRss = rss(instance);
    const peak = { rss: idleRss, inFlight: 0 };
    let sampling = true;
    // A measurement beside the run (every 250 ms), not a wait for an outcome.
    const sampler = (async () => {
      while (sampling) {
        peak.rss = Math.max(peak.rss, rss(instance));
        peak.inFlight = Math.max(peak.inFlight, await inFlight(instance).catch(() => 0));
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    const started = Date.now();
    const senders: SenderRecord[] = [];
    const posts: Promise<void>[] = [];
    try {
      let next = 0;
      await Promise.all(
        Array.from({ length: POSTERS }, async () => {
          while (next < turns) {
            const { record, posted } = send(fleet, fakeTwilio, next++);
            senders.push(record);
            posts.push(posted);
            await posted;
          }
        }),
      );
      allPosted();
      print(`  ${turns} webhooks posted in ${seconds(Date.now() - started)}`);
      const deadline = Date.now() + settings.deadlineMs;
      const allAnswered = await waitForAnswers(fakeTwilio, senders.filter((sender) => sender.status === 200).map((sender) => sender.from), deadline);
      if (!allAnswered) print(`  deadline (${seconds(settings.deadlineMs)}) passed before every webhook was answered`);
    } finally {
      sampling = false;
      await sampler;
    }
    const lastAnswerMs = Date.now() - started;
    await fleet.stop(settings.logDirectory, 'slow-model');

    const counted = tally(senders, fakeTwilio.messages);
    const failedTurns = fleet.linesMatching(/draining the user failed|turn crashed/).length;
    // A turn whose lease lapsed (renewals held up) is given up before its commit and run again: an extra model call each.
    const interrupted = fleet.linesMatching(/turn interrupted/).length;
    const poolTimeouts = fleet.linesMatching(/Unable to start a transaction|timeout exceeded when trying to connect/).length;
    const extraCalls = fakeAnthropic.requests.length - counted.sent;
    const perTurnKb = peak.inFlight > 0 ? ((peak.rss - idleRss) / 1024 / peak.inFlight).toFixed(0) : '-';
    const notes = [
      `${failedTurns} failed turns, ${interrupted} interrupted (lease lost) and re-run, ${extraCalls} extra model calls (${fakeAnthropic.requests.length} requests for ${counted.sent} messages)`,
      poolTimeouts > 0 ? `${poolTimeouts} log lines of pool timeouts` : undefined,
      `peak ${peak.inFlight} turns in flight, RSS ${mb(idleRss)} → ${mb(peak.rss)} (${perTurnKb} kB per turn in flight)`,
      `reply p50 ${seconds(counted.replyP50Ms)}, p99 ${seconds(counted.replyP99Ms)}, all within ${seconds(lastAnswerMs)}; webhook p99 ${seconds(counted.webhookP99Ms)}`,
      counted.progressNotes > 0 ? `${counted.progressNotes} "on it" notes of long turns (not counted as replies)` : undefined,
      counted.otherReplies > 0 ? `${counted.otherReplies} replies not the answer (apologies)` : undefined,
    ].filter((note): note is string => note !== undefined);
    print(`  ${counted.sent} sent: ${counted.answeredOnce} answered once, ${counted.duplicated} duplicated, ${counted.lost} lost`);
    for (const note of notes) print(`  ${note}`);
    return {
      name: 'slow-model',
      sent: counted.sent,
      answeredOnce: counted.answeredOnce,
      duplicated: counted.duplicated,
      lost: counted.lost,
      headline: `${failedTurns} failed turns, ${interrupted} interrupted, ${extraCalls} extra model calls`,
      other: notes.join('; '),
      checks: [
        { name: 'slow-model: no failed turn', target: '0', measured: String(failedTurns), pass: failedTurns === 0, kind: 'correctness' },
        { name: 'slow-model: no extra model call', target: '0', measured: String(extraCalls), pass: extraCalls === 0, kind: 'correctness' },
        { name: 'slow-model: every message answered once', target: '0 lost, 0 twice', measured: `${counted.lost} lost, ${counted.duplicated} twice`, pass: counted.lost === 0 && counted.duplicated === 0, kind: 'correctness' },
      ],
    };
  } finally {
    await fleet.stop();
    await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
  }
}

/** Resident memory of the process, in bytes (from /proc). */
function rss(instance: HeraldProcess): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${instance.child.pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

async function inFlight(instance: HeraldProcess): Promise<number> {
  const response = await fetch(`${instance.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  return parseScrape(await response.text())
    .filter((sample) => sample.name === 'herald_turns_in_flight')
    .reduce((sum, sample) => sum + sample.value, 0);
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}
