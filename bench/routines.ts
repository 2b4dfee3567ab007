/**
 * Routine runs benchmark (issue 21): many users with a morning brief due at the same instant
 * (07:00 in one time zone), two Herald processes (the real `src/server.ts`, production mode)
 * on one Postgres, the fake Anthropic answering every call after BENCH_ROUTINE_MODEL_MS
 * (300 ms), the fake Twilio timestamping every message. Each run is a typical brief: the
 * planner plans one scheduler-agent step, the agent reads the reminders (get_scheduled_jobs)
 * and completes with the brief: three model calls. Prints the lateness of each run's first
 * model call and of its message (p50/p99/max after the due time), duplicates, missed runs, and
 * what a brief cost at the default models' prices (the fake counts tokens from the request).
 */
import { randomUUID } from 'node:crypto';
import { connectDatabase } from '../src/db/database.js';
import { JobQueue } from '../src/queue/job-queue.js';
import { turnQueueDefinition } from '../src/queue/turn-queue.js';
import { reminderQueueDefinition } from '../src/reminders/reminder-queue.js';
import { ROUTINE_QUEUE, routineJob, routineQueueDefinition } from '../src/routines/routine-queue.js';
import { FakeAnthropicServer, type RecordedAnthropicRequest, type ScriptedAnthropicResponse } from '../test/fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../test/fakes/fake-twilio-server.js';
import { crashTestEnvironment, startHeraldProcess } from '../test/helpers/crash-takeover.js';
import type { HeraldProcess } from '../test/helpers/herald-process.js';
import type { Benchmark, Check } from './support/benchmark.js';
import { banner, ms, percentile, table } from './support/report.js';

const USERS = Number(process.env.BENCH_ROUTINES ?? 1_000);
const MODEL_MS = Number(process.env.BENCH_ROUTINE_MODEL_MS ?? 300);
const CONCURRENCY = process.env.BENCH_ROUTINE_CONCURRENCY ?? '50';
const LEAD_MS = Number(process.env.BENCH_ROUTINE_LEAD_MS ?? 30_000);
const ZONE = 'America/New_York';
const PUBLIC_BASE_URL = 'https://herald.bench.test';
const LATENESS_TARGET_MS = 5 * 60_000;
const COST_TARGET_USD = 0.002;

/** The user's label ("U123") in a request: every prompt of a run carries the instruction or task naming it. */
function labelOf(request: RecordedAnthropicRequest): string | undefined {
  return /\bU\d+\b/.exec(JSON.stringify(request.body.messages ?? []))?.[0];
}

/** A morning brief in three calls: plan one scheduler-agent step, read the reminders, complete with the brief. */
function brief(request: RecordedAnthropicRequest): ScriptedAnthropicResponse {
  const label = labelOf(request) ?? 'U?';
  const tools = request.toolNames();
  if (tools.includes('create_plan')) {
    return { toolCalls: [{ name: 'create_plan', input: { analysis: 'A morning brief routine', goal: 'Send the user their day', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: `List today's reminders of ${label} and write their morning brief` }] } }] };
  }
  const last = request.body.messages?.[request.body.messages.length - 1];
  const hasResult = Array.isArray(last?.content) && last.content.some((block) => block.type === 'tool_result');
  if (!hasResult) return { toolCalls: [{ name: 'get_scheduled_jobs', input: {} }] };
  return { toolCalls: [{ name: 'complete_step', input: { summary: 'Brief written', reply: `Good morning ${label}! Nothing on your reminders today; enjoy the quiet.` } }] };
}

export const routinesBenchmark: Benchmark = {
  name: 'routines',
  description: `${USERS} users with a 07:00 routine, two instances, model ${MODEL_MS} ms per call: lateness of first model call and message, duplicates, missed, cost`,
  async run({ postgres, logger, print }) {
    print(banner(`Routines: ${USERS} users, a morning brief each due at one instant; model ${MODEL_MS} ms per call; two Herald processes, ROUTINE_CONCURRENCY=${CONCURRENCY}`));
    const databaseInfo = await postgres.createMigratedDatabase('routines', logger);
    const database = connectDatabase(databaseInfo.url, 10);
    const [fakeTwilio, fakeAnthropic] = await Promise.all([FakeTwilioServer.start(), FakeAnthropicServer.start()]);
    const firstCall = new Map<string, number>();
    let calls = 0;
    fakeAnthropic.setFallback((request): ScriptedAnthropicResponse => {
      calls += 1;
      const label = labelOf(request);
      if (label && !firstCall.has(label)) firstCall.set(label, request.receivedAt.getTime());
      return { delayMs: MODEL_MS, then: brief(request) };
    });
    const instances: HeraldProcess[] = [];
    try {
      const queue = new JobQueue(database.pool, logger);
      await queue.start([turnQueueDefinition(120_000), reminderQueueDefinition, routineQueueDefinition(120_000)]);
      const dueAt = new Date(Date.now() + LEAD_MS);
      const phones = await createUsersWithRoutines(database.pool, USERS, dueAt);
      await queue.enqueueMany(
        ROUTINE_QUEUE,
        [...phones.keys()].map((routineId) => {
          const job = routineJob(routineId, dueAt);
          return { data: job.data, startAfter: job.startAfter, priority: job.priority };
        }),
      );
      await queue.stop(1000);
      print(`scheduled ${USERS} routines due ${dueAt.toISOString()} (07:00 in one zone, here ${LEAD_MS / 1000} s ahead)`);
      const environment = async () =>
        crashTestEnvironment({
          databaseUrl: databaseInfo.url,
          fakeTwilio,
          fakeAnthropic,
          publicBaseUrl: PUBLIC_BASE_URL,
          // The runs are due now, whatever the hour in ZONE: quiet hours (22:00-07:00 there) would hold them all.
          extra: { NODE_ENV: 'production', LOG_LEVEL: 'info', ACCESS_MODE: 'open', NEW_USERS_PER_HOUR: '1000000', QUIET_HOURS: 'off', ANTHROPIC_MAX_RETRIES: '2', ROUTINE_CONCURRENCY: CONCURRENCY, DATABASE_POOL_SIZE: '20', USER_DAILY_BUDGET_USD: '1' },
        });
      instances.push(await startHeraldProcess(await environment()), await startHeraldProcess(await environment()));
      // Until every run has finished (sent or not) and every sent one reached Twilio, or 20 minutes.
      const deadline = dueAt.getTime() + 20 * 60_000;
      for (;;) {
        const { rows } = await database.pool.query<{ finished: string; sent: string }>(`SELECT count(*) FILTER (WHERE status <> 'pending') AS finished, count(*) FILTER (WHERE status = 'sent') AS sent FROM "RoutineRun"`);
        if ((Number(rows[0]!.finished) >= USERS && fakeTwilio.messages.length >= Number(rows[0]!.sent)) || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      // Stragglers (duplicates, if any) before counting.
      await new Promise((resolve) => setTimeout(resolve, 3_000));

      const byPhone = new Map<string, number[]>();
      for (const message of fakeTwilio.messages) byPhone.set(message.to, [...(byPhone.get(message.to) ?? []), message.dateCreated.getTime()]);
      const sentLateness: number[] = [];
      let duplicates = 0;
      let missed = 0;
      for (const phone of phones.values()) {
        const sent = byPhone.get(phone) ?? [];
        if (sent.length === 0) missed += 1;
        if (sent.length > 1) duplicates += sent.length - 1;
        if (sent[0] !== undefined) sentLateness.push(sent[0] - dueAt.getTime());
      }
      const callLateness = [...firstCall.values()].map((at) => at - dueAt.getTime());
      const { rows: runs } = await database.pool.query<{ status: string; count: string }>(`SELECT status, count(*) FROM "RoutineRun" GROUP BY status`);
      const { rows: costs } = await database.pool.query<{ avg: string | null; calls: string | null }>(
        `SELECT avg(t."costUsd")::text AS avg, avg(t."modelCalls")::text AS calls FROM "RoutineRun" r JOIN "Turn" t ON t.id = r."turnId" WHERE r.status = 'sent'`,
      );
      const costPerBrief = Number(costs[0]?.avg ?? NaN);
      const row = (values: number[]) => [ms(percentile(values, 0.5)), ms(percentile(values, 0.99)), ms(Math.max(...values, 0))];
      print(table(['what (after the due time)', 'p50 ms', 'p99 ms', 'max ms'], [['first model call', ...row(callLateness)], ['message sent (Twilio accepted)', ...row(sentLateness)]]));
      print(table(['users', 'messages', 'duplicates', 'missed', 'model calls', 'calls per brief', 'cost per brief', 'runs by status'], [[USERS, fakeTwilio.messages.length, duplicates, missed, calls, Number(costs[0]?.calls ?? 0).toFixed(1), `$${costPerBrief.toFixed(5)}`, runs.map((run) => `${run.status} ${run.count}`).join(', ')]]));
      const failures = await database.pool.query<{ error: string; count: string }>(
        `SELECT left(t."errorMessage", 120) AS error, count(*) FROM "RoutineRun" r JOIN "Turn" t ON t.id = r."turnId" WHERE r.status = 'failed' GROUP BY 1`,
      );
      for (const failure of failures.rows) print(`failed runs (${failure.count}): ${failure.error}`);
      print(`model calls at once: up to ${Number(CONCURRENCY) * 2} runs (ROUTINE_CONCURRENCY=${CONCURRENCY} per instance, 2 instances), one call each at a time: the model-rate limit this needs is about ${Math.round(((Number(CONCURRENCY) * 2) / (MODEL_MS / 1000)) * 60)} calls a minute`);
      const checks: Check[] = [
        { name: 'routine messages sent', target: `= ${USERS}`, measured: String(USERS - missed), pass: missed === 0, kind: 'correctness' },
        { name: 'duplicate routine messages', target: '= 0', measured: String(duplicates), pass: duplicates === 0, kind: 'correctness' },
        { name: 'message lateness p99', target: `< ${LATENESS_TARGET_MS / 1000} s`, measured: `${ms(percentile(sentLateness, 0.99))} ms`, pass: missed === 0 && percentile(sentLateness, 0.99) < LATENESS_TARGET_MS, kind: 'target' },
        { name: 'cost of a morning brief', target: `< $${COST_TARGET_USD}`, measured: `$${costPerBrief.toFixed(5)}`, pass: costPerBrief < COST_TARGET_USD, kind: 'target' },
      ];
      return { checks };
    } finally {
      for (const instance of instances) await instance.terminate();
      await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
      await database.close();
    }
  },
};

/** Users (one zone) each with one daily routine due at `dueAt`; routine id → phone. */
async function createUsersWithRoutines(pool: ReturnType<typeof connectDatabase>['pool'], count: number, dueAt: Date): Promise<Map<string, string>> {
  const routines = new Map<string, string>();
  const now = new Date();
  for (let start = 0; start < count; start += 500) {
    const size = Math.min(500, count - start);
    const users = Array.from({ length: size }, (_, offset) => ({ id: randomUUID(), phone: `+1212${String(5_000_000 + start + offset).padStart(7, '0')}`, routine: randomUUID(), label: `U${start + offset}` }));
    await pool.query(
      `INSERT INTO "User" (id, phone, name, timezone, language, "createdAt", "updatedAt") SELECT u.id, u.phone, 'Ana', $3, 'en', $4, $4 FROM unnest($1::uuid[], $2::text[]) AS u(id, phone)`,
      [users.map((user) => user.id), users.map((user) => user.phone), ZONE, now],
    );
    await pool.query(
      `INSERT INTO "Routine" (id, "userId", name, instruction, timezone, "startLocal", rrule, "nextDueAt", "createdAt", "updatedAt")
       SELECT r.id, r.user_id, 'morning brief', 'a short brief of my day for ' || r.label || ': calendar, reminders, unread email', $4, '2026-01-01T07:00', 'FREQ=DAILY', $5, $6, $6
         FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS r(id, user_id, label)`,
      [users.map((user) => user.routine), users.map((user) => user.id), users.map((user) => user.label), ZONE, dueAt, now],
    );
    for (const user of users) routines.set(user.routine, user.phone);
  }
  return routines;
}
