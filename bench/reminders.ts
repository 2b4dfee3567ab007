/**
 * Reminder delivery benchmark (issue 4): 10,000 reminders due within one minute, delivered
 * by two Herald processes (the real `src/server.ts`, as deployed) sharing one Postgres,
 * through a fake Twilio server that timestamps every message it accepts. Prints the
 * delivered count, duplicates, missing ones, and lateness p50/p99/max (the time Twilio
 * received the message minus the reminder's due time), and the CPU the Herald processes
 * and Postgres used per reminder while they fell due.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { connectDatabase } from '../src/db/database.js';
import { JobQueue } from '../src/queue/job-queue.js';
import { dueTimePriority, REMINDER_QUEUE, reminderQueueDefinition } from '../src/reminders/reminder-queue.js';
import { turnQueueDefinition } from '../src/queue/turn-queue.js';
import { FakeTwilioServer } from '../test/fakes/fake-twilio-server.js';
import type { Benchmark, Check } from './support/benchmark.js';
import { cpuSnapshot, cpuUsage } from './support/cpu.js';
import { banner, ms, table } from './support/report.js';

const REMINDERS = Number(process.env.BENCH_REMINDERS ?? 10_000);
const WINDOW_MS = 60_000;
const WORKERS = 2;
const USERS = 1_000;
const LEAD_MS = 20_000;
const P99_TARGET_MS = 2_000;
const repositoryRoot = fileURLToPath(new URL('../', import.meta.url));

export const remindersBenchmark: Benchmark = {
  name: 'reminders',
  description: `${REMINDERS} reminders due within one minute, ${WORKERS} Herald processes, fake Twilio: delivered, duplicates, lateness`,
  async run({ postgres, logger, print }) {
    print(banner(`Reminder delivery: ${REMINDERS} reminders due within ${WINDOW_MS / 1000} s, ${WORKERS} worker processes`));
    const databaseInfo = await postgres.createMigratedDatabase('reminders', logger);
    const database = connectDatabase(databaseInfo.url, 10);
    const twilio = await FakeTwilioServer.start();
    const workers: ChildProcess[] = [];
    try {
      // The queue's schema and queues must exist before jobs are inserted.
      const queue = new JobQueue(database.pool, logger);
      await queue.start([turnQueueDefinition(120_000), reminderQueueDefinition]);

      const firstDue = Date.now() + LEAD_MS;
      const dueAt = (index: number) => new Date(firstDue + Math.floor((index * WINDOW_MS) / REMINDERS));
      const userIds = await createUsers(database.pool, USERS);
      const reminderIds = await createReminders(database.pool, userIds, dueAt);
      await queue.enqueueMany(
        REMINDER_QUEUE,
        reminderIds.map((id, index) => ({ data: { reminderId: id, dueAt: dueAt(index).toISOString() }, startAfter: dueAt(index), priority: dueTimePriority(dueAt(index)) })),
      );
      await queue.stop(1000);
      print(`scheduled ${REMINDERS} reminders for ${USERS} users, due ${new Date(firstDue).toISOString()} … +${WINDOW_MS / 1000} s`);

      for (let index = 0; index < WORKERS; index += 1) workers.push(await startWorker(databaseInfo.url, twilio));
      print(`${WORKERS} Herald processes ready; waiting for the reminders to fall due…`);

      // CPU from the first due time until the last message arrived (the follow-up checks of
      // the first reminders run inside that interval too).
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, firstDue - Date.now())));
      const cpuBefore = workers.map((worker) => cpuSnapshot(worker.pid, postgres.postmasterPid));
      const deadline = firstDue + WINDOW_MS + 60_000 - Date.now();
      await twilio.waitForMessages(REMINDERS, Math.max(deadline, 1000)).catch(() => undefined);
      const cpuAfter = workers.map((worker) => cpuSnapshot(worker.pid, postgres.postmasterPid));
      const cpu = workers.map((_, index) => cpuUsage(cpuBefore[index]!, cpuAfter[index]!));
      // Let stragglers (duplicates, if any) arrive before counting.
      await new Promise((resolve) => setTimeout(resolve, 2_000));

      const indexOf = new Map(reminderIds.map((id, index) => [`R${index}`, index]));
      const seen = new Map<number, number>();
      const lateness: number[] = [];
      for (const message of twilio.messages) {
        const label = /Reminder(?: \(late[^)]*\))?: (R\d+)/.exec(message.body ?? '')?.[1];
        const index = label ? indexOf.get(label) : undefined;
        if (index === undefined) continue;
        seen.set(index, (seen.get(index) ?? 0) + 1);
        if (seen.get(index) === 1) lateness.push(message.dateCreated.getTime() - dueAt(index).getTime());
      }
      const delivered = seen.size;
      const duplicates = [...seen.values()].reduce((total, count) => total + count - 1, 0);
      const missing = REMINDERS - delivered;
      const early = lateness.filter((value) => value < -50).length;
      lateness.sort((left, right) => left - right);
      const quantile = (fraction: number) => lateness[Math.min(lateness.length - 1, Math.floor(fraction * lateness.length))];
      const recorded = Number((await database.pool.query(`SELECT count(*) FROM "ReminderDelivery"`)).rows[0].count);
      print(
        table(
          ['reminders', 'delivered', 'duplicates', 'missing', 'early', 'deliveries recorded', 'lateness p50 ms', 'p99 ms', 'max ms'],
          [[REMINDERS, delivered, duplicates, missing, early, recorded, ms(quantile(0.5)), ms(quantile(0.99)), ms(lateness[lateness.length - 1])]],
        ),
      );
      print('lateness = when the fake Twilio received the message minus the reminder\'s due time');
      const perDelivery = (seconds: number | undefined) => (seconds === undefined || delivered === 0 ? '–' : ((seconds * 1000) / delivered).toFixed(2));
      const workerSeconds = cpu.map((usage) => (usage.target ? usage.target.user + usage.target.system : undefined));
      const workersTotal = workerSeconds.every((value) => value !== undefined) ? workerSeconds.reduce<number>((sum, value) => sum + value!, 0) : undefined;
      const [first] = cpu;
      print(
        table(
          ['CPU over', 'Herald processes s', 'Postgres s', 'bench + fake Twilio s', 'others s', 'machine busy', 'Herald ms/reminder', 'Postgres ms/reminder'],
          [
            [
              `${first!.seconds.toFixed(1)} s`,
              workerSeconds.map((value) => (value === undefined ? '–' : value.toFixed(1))).join(' + '),
              first!.postgres?.toFixed(1) ?? '–',
              first!.loadGenerator.toFixed(1),
              first!.others === undefined || workersTotal === undefined ? '–' : Math.max(0, first!.others - (workersTotal - (workerSeconds[0] ?? 0))).toFixed(1),
              first!.machineBusy === undefined ? '–' : `${(first!.machineBusy * 100).toFixed(0)}%`,
              perDelivery(workersTotal),
              perDelivery(first!.postgres),
            ],
          ],
        ),
      );
      print('CPU from the first due time until the last message arrived; per reminder = CPU seconds / reminders delivered');
      const checks: Check[] = [
        { name: 'reminders delivered', target: `= ${REMINDERS}`, measured: String(delivered), pass: delivered === REMINDERS, kind: 'correctness' },
        { name: 'duplicate deliveries', target: '= 0', measured: String(duplicates), pass: duplicates === 0, kind: 'correctness' },
        { name: 'lateness p99', target: `< ${P99_TARGET_MS} ms`, measured: `${ms(quantile(0.99))} ms`, pass: (quantile(0.99) ?? Infinity) < P99_TARGET_MS, kind: 'target' },
      ];
      return { checks };
    } finally {
      await Promise.all(workers.map(stopWorker));
      await twilio.close();
      await database.close();
    }
  },
};

async function createUsers(pool: ReturnType<typeof connectDatabase>['pool'], count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  const now = new Date();
  for (let start = 0; start < count; start += 500) {
    const chunk = ids.slice(start, start + 500);
    const values = chunk.map((_, offset) => `($${offset * 3 + 1}::uuid, $${offset * 3 + 2}, 'Europe/London', $${offset * 3 + 3}, $${offset * 3 + 3})`).join(',');
    await pool.query(
      `INSERT INTO "User" (id, phone, timezone, "createdAt", "updatedAt") VALUES ${values}`,
      chunk.flatMap((id, offset) => [id, `+4420794${String(start + offset).padStart(5, '0')}`, now]),
    );
  }
  return ids;
}

async function createReminders(pool: ReturnType<typeof connectDatabase>['pool'], userIds: string[], dueAt: (index: number) => Date): Promise<string[]> {
  const ids = Array.from({ length: REMINDERS }, () => randomUUID());
  const now = new Date();
  for (let start = 0; start < REMINDERS; start += 1000) {
    const chunk = ids.slice(start, start + 1000);
    const values = chunk
      .map((_, offset) => `($${offset * 5 + 1}::uuid, $${offset * 5 + 2}::uuid, $${offset * 5 + 3}, 'Europe/London', '2026-01-01T09:00', $${offset * 5 + 4}, $${offset * 5 + 5}, $${offset * 5 + 5})`)
      .join(',');
    await pool.query(
      `INSERT INTO "Reminder" (id, "userId", text, timezone, "startLocal", "nextDueAt", "createdAt", "updatedAt") VALUES ${values}`,
      chunk.flatMap((id, offset) => {
        const index = start + offset;
        return [id, userIds[index % userIds.length], `R${index}`, dueAt(index), now];
      }),
    );
  }
  return ids;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  return typeof address === 'object' && address ? address.port : 0;
}

/** Starts `src/server.ts` as production runs it, pointed at the fake Twilio, and waits until it is ready. */
async function startWorker(databaseUrl: string, twilio: FakeTwilioServer): Promise<ChildProcess> {
  const port = await freePort();
  // BENCH_WORKER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/profiles": where a worker's CPU goes.
  const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter((arg) => arg.length > 0);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/server.ts'], {
    cwd: repositoryRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      HERALD_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: '20',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_SMS_FROM: '+15005550006',
      TWILIO_API_BASE_URL: twilio.url,
      ANTHROPIC_API_KEY: 'unused-by-this-benchmark',
      TURN_CONCURRENCY: '1',
      // Production defaults to invite mode, where these bench users (never invited) get nothing.
      ACCESS_MODE: 'open',
      REMINDER_CONCURRENCY: process.env.BENCH_REMINDER_CONCURRENCY ?? '2',
      REMINDER_BATCH_SIZE: process.env.BENCH_REMINDER_BATCH_SIZE ?? '25',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const started = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`a Herald worker exited with code ${child.exitCode} before it was ready`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((response) => response.ok, () => false);
    if (ready) return child;
    if (performance.now() - started > 60_000) throw new Error('a Herald worker did not become ready within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}
