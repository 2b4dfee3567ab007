import { FakeAnthropicServer } from '../../test/fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../../test/fakes/fake-twilio-server.js';
import type { Check } from './benchmark.js';
import { withClient } from './database.js';
import { heading } from './report.js';
import { HeraldFleet } from './chaos-fleet.js';
import type { FaultScenario } from './chaos-faults.js';
import { pacedLoad, tally, waitForAnswers, webhookFailureKinds } from './chaos-load.js';
import { ANSWER, heraldEnvironment, pause, seconds, type ChaosContext, type ChaosResult } from './chaos-settings.js';

/**
 * Runs one of scenarios 1–6: two fresh Herald processes on a fresh database of the stoppable
 * cluster, fresh fakes (the model answering after 300 ms), the paced load from the first
 * second; the fault starts after the lead-in and ends after its duration while the load goes
 * on. Then replies are awaited until every sender whose webhook was accepted has one or the
 * deadline passes, the instances are stopped cleanly (what they were sending goes out), and
 * replies per sender are counted.
 */
export async function runFaultScenario(scenario: FaultScenario, context: ChaosContext): Promise<ChaosResult> {
  const { settings, stoppable, print } = context;
  const [leadInMs, faultMs, leadOutMs] = [scenario.leadInMs, scenario.faultMs, scenario.leadOutMs].map((milliseconds) => milliseconds * settings.scale) as [number, number, number];
  const planned = Math.round(((leadInMs + faultMs + leadOutMs) / 1000) * settings.sendersPerSecond);
  print(heading(`${scenario.name}: ${scenario.title}${settings.scale === 1 ? '' : ` (× ${settings.scale}: ${seconds(faultMs)})`}; ≈${planned} senders`));

  const databaseUrl = await stoppable.createDatabase(`chaos_${scenario.name.replaceAll('-', '_')}`);
  const [fakeTwilio, fakeAnthropic] = await Promise.all([FakeTwilioServer.start(), FakeAnthropicServer.start()]);
  fakeAnthropic.setFallback({ delayMs: settings.modelDelayMs, then: { text: ANSWER } });
  const fleet = new HeraldFleet(() => heraldEnvironment({ databaseUrl, fakeTwilio, fakeAnthropic }));
  const aborted = new AbortController();
  try {
    await fleet.add();
    await fleet.add();
    // The load goes on through the whole fault (a database restart or a late kill makes it longer), then the lead-out.
    let loadEndsAt = Number.POSITIVE_INFINITY;
    const load = pacedLoad({ fleet, fakeTwilio, perSecond: settings.sendersPerSecond, endsAt: () => loadEndsAt, signal: aborted.signal });
    const loadStarted = Date.now();
    await pause(leadInMs);
    const fault = await scenario.start({ postgres: stoppable, fakeTwilio, fleet, faultMs, scale: settings.scale, print });
    const faultStarted = Date.now();
    if (fault.halfway) {
      await pause(faultMs / 2);
      await fault.halfway();
    }
    await pause(faultStarted + faultMs - Date.now());
    const ended = await fault.end();
    const faultEnded = typeof ended === 'number' ? ended : Date.now();
    loadEndsAt = Date.now() + leadOutMs;
    print(`  fault from ${seconds(faultStarted - loadStarted)} to ${seconds(faultEnded - loadStarted)} of the load`);
    const { senders, posts } = await load;

    const deadline = Date.now() + settings.deadlineMs;
    // A webhook during a database outage may take INBOUND_SPOOL_AFTER_MS to be answered.
    await Promise.race([Promise.all(posts), pause(deadline - Date.now())]);
    // Twilio drops a message whose webhook failed (no Fallback URL here): only accepted ones are waited for.
    const accepted = senders.filter((sender) => sender.status === 200).map((sender) => sender.from);
    const allAnswered = await waitForAnswers(fakeTwilio, accepted, deadline);
    // A send whose answer was lost is resolved later (a look-up, maybe a resend): only then is "once" final.
    const settledAt = await outboxSettled(databaseUrl, deadline);
    const exits = fleet.exits();
    await fleet.stop(settings.logDirectory, scenario.name);
    await Promise.allSettled(posts);

    const counted = tally(senders, fakeTwilio.messages, {
      inFlight: (sender) => scenario.countsInFlight === true && fleet.wasKilled(sender.instance) && sender.status === undefined,
      sentBefore: faultEnded,
    });
    const outbox = await outboxStatuses(databaseUrl);
    // Recovered once the last sender who wrote before the fault ended has had a reply (the load after it takes the normal path).
    const recoveryMs = counted.lastReplyToEarlierAt === undefined ? undefined : Math.max(0, counted.lastReplyToEarlierAt - faultEnded);
    const notes = [
      `reply p50 ${seconds(counted.replyP50Ms)}, p99 ${seconds(counted.replyP99Ms)}; webhook p99 ${seconds(counted.webhookP99Ms)}`,
      counted.replyP99Ms > 5_000
        ? `slowest: ${counted.slowest.map(({ sender, replyMs }) => `${seconds(replyMs)} (${sender.from} at ${seconds(sender.sentAt - loadStarted)}, to #${fleet.instances.indexOf(sender.instance) + 1}${fleet.wasKilled(sender.instance) ? ', killed' : ''})`).join(', ')}`
        : undefined,
      counted.webhookFailures > 0 ? `webhooks not 200: ${webhookFailureKinds(senders)}` : undefined,
      exits.length > 0 ? `${exits.length} process(es) exited: ${exits.map((exit) => `#${exit.index + 1} code ${exit.code ?? exit.signal} (${exit.lastLine})`).join('; ')}` : undefined,
      counted.duplicated > 0 ? `${counted.duplicateReplies} replies to the ${counted.duplicated} duplicated` : undefined,
      counted.progressNotes > 0 ? `${counted.progressNotes} "on it" notes of long turns (not counted as replies)` : undefined,
      counted.otherReplies > 0 ? `${counted.otherReplies} replies not the answer alone (apology or late note)` : undefined,
      fakeTwilio.lookups.length > 0 ? `${fakeTwilio.lookups.length} look-ups at Twilio` : undefined,
      outbox.failed || outbox.pending ? `outbox rows failed ${outbox.failed}, still pending ${outbox.pending}` : undefined,
      allAnswered ? undefined : `deadline (${seconds(settings.deadlineMs)}) passed before every accepted webhook was answered`,
      settledAt === undefined ? 'deadline passed with outbound parts still pending' : `outbox settled ${seconds(Math.max(0, settledAt - faultEnded))} after the fault`,
      fakeAnthropic.requests.length !== counted.sent ? `${fakeAnthropic.requests.length} model calls for ${counted.sent} messages` : undefined,
    ].filter((note): note is string => note !== undefined);
    print(`  ${counted.sent} sent: ${counted.answeredOnce} answered once, ${counted.duplicated} duplicated, ${counted.lost} lost${scenario.countsInFlight ? `, ${counted.lostInFlight} lost in flight` : ''}; recovery ${seconds(recoveryMs)}`);
    for (const note of notes) print(`  ${note}`);
    print(`  outbox rows by status: ${outbox.described || '(none)'}`);

    const inFlightNote = scenario.countsInFlight ? ` (+${counted.lostInFlight} in flight on a killed process, not counted)` : '';
    const checks: Check[] = [
      {
        name: `${scenario.name}: nothing lost or sent twice`,
        target: '0 lost, 0 twice',
        measured: `${counted.lost} lost, ${counted.duplicated} twice${inFlightNote}`,
        pass: counted.lost === 0 && counted.duplicated === 0,
        kind: 'correctness',
      },
    ];
    // Issue 31 item 5: the interrupted turn answered within 5 s at p99 after a crash.
    if (scenario.countsInFlight) {
      checks.push({ name: `${scenario.name}: reply p99`, target: '< 5 s', measured: seconds(counted.replyP99Ms), pass: counted.replyP99Ms < 5_000, kind: 'target' });
    }
    return {
      name: scenario.name,
      sent: counted.sent,
      answeredOnce: counted.answeredOnce,
      duplicated: counted.duplicated,
      lost: counted.lost,
      lostInFlight: scenario.countsInFlight ? counted.lostInFlight : undefined,
      recoveryMs,
      headline: [`reply p99 ${seconds(counted.replyP99Ms)}`, exits.length > 0 ? `${exits.length} exited` : undefined, counted.webhookFailures > 0 ? `${counted.webhookFailures} webhooks not 200` : undefined]
        .filter(Boolean)
        .join(', '),
      other: notes.join('; '),
      checks,
    };
  } finally {
    aborted.abort();
    await fleet.stop();
    await fakeTwilio.acceptConnections();
    if (!stoppable.isRunning) await stoppable.restart();
    await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
  }
}

/**
 * Polls (no event announces it: rows the instances write) until no outbound part is pending or
 * being dispatched, or `deadline` passes; when it settled (Date.now() time), if it did.
 */
async function outboxSettled(databaseUrl: string, deadline: number): Promise<number | undefined> {
  return withClient(databaseUrl, async (client) => {
    for (;;) {
      const { rows } = await client.query<{ open: number }>(`SELECT count(*)::int AS open FROM "OutboundMessage" WHERE status IN ('pending', 'dispatching')`);
      if (rows[0]?.open === 0) return Date.now();
      if (Date.now() >= deadline) return undefined;
      await pause(250);
    }
  }).catch(() => undefined);
}

/** The scenario's outbound parts by status, read after the instances stopped. */
async function outboxStatuses(databaseUrl: string): Promise<{ failed: number; pending: number; described: string }> {
  try {
    const rows = await withClient(databaseUrl, async (client) => (await client.query<{ status: string; count: number }>(`SELECT status::text AS status, count(*)::int AS count FROM "OutboundMessage" GROUP BY 1 ORDER BY 2 DESC`)).rows);
    const of = (status: string) => rows.find((row) => row.status === status)?.count ?? 0;
    return { failed: of('failed'), pending: of('pending') + of('dispatching'), described: rows.map((row) => `${row.status} ${row.count}`).join(', ') };
  } catch (error) {
    return { failed: 0, pending: 0, described: `(not read: ${error instanceof Error ? error.message : String(error)})` };
  }
}
