/**
 * Access benchmark (issue 11): what access control, budgets and erasing cost, on a
 * deployment-sized database (10,000 users, 10,000 invite grants, 50,000 of today's turns).
 *
 * - The webhook's access check (AccessGate.check), which now runs before every inbound
 *   message is stored: a known user in open mode, an invited user and a stranger already
 *   told today in invite mode. Target: p99 under 5 ms (a tenth of the webhook's 50 ms).
 * - The daily-budget check (BudgetGuard.check) before each model turn: the user's day (the
 *   sum of their turns since their midnight) and the deployment's (one running-total row).
 *   Target: p99 under 20 ms. (Summing the deployment's 50,000 turns instead took 14 ms at
 *   p50, hence the running total.)
 * - DELETE MY DATA's erase of a heavy user (5,000 messages, 1,000 turns with their plans and
 *   steps, 300 reminders with their pg-boss jobs, 20 lists of 50 items, 200 outbox rows),
 *   in one transaction. Target: under 2 s; correctness: nothing of theirs is left.
 */
import { performance } from 'node:perf_hooks';
import { AccessGate } from '../src/access/access-gate.js';
import { AccessService } from '../src/access/access-service.js';
import { BudgetGuard } from '../src/budgets/budget-guard.js';
import { UserEraser } from '../src/data-rights/user-eraser.js';
import { connectDatabase } from '../src/db/database.js';
import { JobQueue } from '../src/queue/job-queue.js';
import { REMINDER_QUEUE, reminderQueueDefinition } from '../src/reminders/reminder-queue.js';
import { systemClock } from '../src/shared/clock.js';
import type { Benchmark, Check } from './support/benchmark.js';
import { banner, ms, percentile, table } from './support/report.js';
import { sampleMs } from './support/sampling.js';

const USERS = 10_000;
const TURNS_TODAY = 50_000;
const RUNS = 2000;
const WARM_UP = 200;
const CHECK_TARGET_MS = 5;
const BUDGET_TARGET_MS = 20;
const ERASE_TARGET_MS = 2000;

const phone = (index: number) => `+1212${String(5_000_000 + index).padStart(7, '0')}`;

export const accessBenchmark: Benchmark = {
  name: 'access',
  description: 'Access control, daily budgets and DELETE MY DATA: per-message check, per-turn budget check, one heavy erase',
  async run({ postgres, logger, print }) {
    print(banner(`Access (${USERS} users, ${TURNS_TODAY} turns today; ${RUNS} runs per check after ${WARM_UP} warm-up)`));
    const info = await postgres.createMigratedDatabase('access', logger);
    const database = connectDatabase(info.url, 5);
    const queue = new JobQueue(database.pool, logger);
    const rows: Array<Array<string | number>> = [];
    const checks: Check[] = [];
    try {
      await queue.start([reminderQueueDefinition]);
      const pool = database.pool;
      // Users (the first half invited), and today's turns spread over them.
      await pool.query(
        `INSERT INTO "User" ("id", "phone", "timezone", "createdAt", "updatedAt")
         SELECT gen_random_uuid(), '+1212' || lpad((5000000 + n)::text, 7, '0'), 'America/New_York', now() - interval '2 days', now() FROM generate_series(0, $1 - 1) n`,
        [USERS],
      );
      await pool.query(`INSERT INTO "AccessGrant" ("phone", "source") SELECT "phone", 'owner' FROM "User"`);
      await pool.query(
        `INSERT INTO "Turn" ("id", "userId", "status", "costUsd", "startedAt", "finishedAt")
         SELECT gen_random_uuid(), u."id", 'succeeded', 0.00012, now() - (n % 600) * interval '1 minute', now()
           FROM generate_series(0, $1 - 1) n JOIN (SELECT "id", row_number() OVER () - 1 AS i FROM "User") u ON u.i = n % $2`,
        [TURNS_TODAY, USERS],
      );
      await pool.query(`INSERT INTO "DeploymentSpend" ("day", "costUsd", "updatedAt") VALUES (to_char(now() AT TIME ZONE 'America/New_York', 'YYYY-MM-DD'), $1, now())`, [TURNS_TODAY * 0.00012]);
      // As autovacuum leaves a settled table: statistics, and the visibility map index-only scans need.
      await pool.query('VACUUM ANALYZE');

      const hashKey = Buffer.alloc(32, 7);
      const open = new AccessGate(pool, new AccessService(database.prisma, systemClock, { mode: 'open', ownerPhones: [], newUsersPerHour: 30 }), systemClock, hashKey);
      const invite = new AccessGate(pool, new AccessService(database.prisma, systemClock, { mode: 'invite', ownerPhones: [], newUsersPerHour: 30 }), systemClock, hashKey);
      let index = 0;
      const gateCases: Array<[string, () => Promise<unknown>]> = [
        ['open mode, known user', () => open.check(phone(index++ % USERS), 'hello')],
        ['invite mode, invited user', () => invite.check(phone(index++ % USERS), 'hello')],
        ['invite mode, stranger told today', () => invite.check('+12125559999', 'hello')],
      ];
      for (const [name, action] of gateCases) {
        const samples = await sampleMs(RUNS, WARM_UP, action);
        const p99 = percentile(samples, 0.99);
        rows.push([`access check: ${name}`, ms(percentile(samples, 0.5)), ms(p99)]);
        checks.push({ name: `access check, ${name}: p99`, target: `< ${CHECK_TARGET_MS} ms`, measured: `${ms(p99)} ms`, pass: p99 < CHECK_TARGET_MS, kind: 'target' });
      }

      const users = (await pool.query<{ id: string }>(`SELECT "id" FROM "User" LIMIT 500`)).rows;
      for (const [name, dailyUsd] of [
        ['user day only', undefined],
        ['user day + deployment day', 1000],
      ] as const) {
        const guard = new BudgetGuard(database.prisma, systemClock, { userDailyUsd: 1, dailyUsd, deploymentTimezone: 'America/New_York' }, logger);
        const samples = await sampleMs(RUNS, WARM_UP, () => guard.check({ id: users[index++ % users.length]!.id, timezone: 'America/New_York' }));
        const p99 = percentile(samples, 0.99);
        rows.push([`budget check: ${name}`, ms(percentile(samples, 0.5)), ms(p99)]);
        checks.push({ name: `budget check, ${name}: p99`, target: `< ${BUDGET_TARGET_MS} ms`, measured: `${ms(p99)} ms`, pass: p99 < BUDGET_TARGET_MS, kind: 'target' });
      }

      // A heavy user to erase.
      const heavy = (await pool.query<{ id: string }>(`INSERT INTO "User" ("id", "phone", "timezone", "updatedAt") VALUES (gen_random_uuid(), '+12125558888', 'UTC', now()) RETURNING "id"`)).rows[0]!.id;
      await pool.query(
        `INSERT INTO "Message" ("id", "userId", "role", "content", "channel", "tokenCount", "createdAt")
         SELECT gen_random_uuid(), $1, CASE WHEN n % 2 = 0 THEN 'user' ELSE 'assistant' END::"MessageRole", 'message ' || n, 'sms', 3, now() - n * interval '1 minute' FROM generate_series(1, 5000) n`,
        [heavy],
      );
      await pool.query(`INSERT INTO "InboundDedupe" ("key", "messageId") SELECT 'sid:bench' || "id", "id" FROM "Message" WHERE "userId" = $1 AND "role" = 'user'`, [heavy]);
      await pool.query(`INSERT INTO "Turn" ("id", "userId", "status", "startedAt") SELECT gen_random_uuid(), $1, 'succeeded', now() - n * interval '1 minute' FROM generate_series(1, 1000) n`, [heavy]);
      await pool.query(`INSERT INTO "PlanRun" ("id", "turnId", "userId", "status") SELECT 'plan_' || "id", "id", "userId", 'completed' FROM "Turn" WHERE "userId" = $1`, [heavy]);
      await pool.query(
        `INSERT INTO "StepRun" ("id", "planRunId", "stepId", "agent", "task", "planVersion", "attempt", "status", "startedAt")
         SELECT p."id" || ':step_' || s, p."id", 'step_' || s, 'list-agent', 'a task', 1, 1, 'completed', now() FROM "PlanRun" p, generate_series(1, 2) s WHERE p."userId" = $1`,
        [heavy],
      );
      await pool.query(
        `INSERT INTO "Reminder" ("id", "userId", "text", "timezone", "startLocal", "nextDueAt", "updatedAt")
         SELECT gen_random_uuid(), $1, 'reminder ' || n, 'UTC', '2031-01-01T09:00', now() + n * interval '1 day', now() FROM generate_series(1, 300) n`,
        [heavy],
      );
      await pool.query(
        `INSERT INTO pgboss.job (name, data, start_after) SELECT $2, jsonb_build_object('reminderId', "id", 'dueAt', "nextDueAt"), "nextDueAt" FROM "Reminder" WHERE "userId" = $1`,
        [heavy, REMINDER_QUEUE],
      );
      await pool.query(`INSERT INTO "List" ("id", "userId", "name", "normalizedName", "updatedAt") SELECT gen_random_uuid(), $1, 'list ' || n, 'list ' || n, now() FROM generate_series(1, 20) n`, [heavy]);
      await pool.query(`INSERT INTO "ListItem" ("id", "listId", "text", "position", "updatedAt") SELECT gen_random_uuid(), l."id", 'item ' || n, n, now() FROM "List" l, generate_series(1, 50) n WHERE l."userId" = $1`, [heavy]);
      await pool.query(
        `INSERT INTO "OutboundMessage" ("id", "userId", "kind", "channel", "toAddress", "body", "groupId", "partIndex", "partCount", "status", "updatedAt")
         SELECT gen_random_uuid(), $1, 'reply', 'sms', '+12125558888', 'reply ' || n, gen_random_uuid(), 0, 1, 'delivered', now() FROM generate_series(1, 200) n`,
        [heavy],
      );
      const eraser = new UserEraser(database.prisma, systemClock, logger);
      const started = performance.now();
      const erased = await eraser.erase(heavy);
      const eraseMs = performance.now() - started;
      const left = await pool.query<{ rows: number }>(
        `SELECT (SELECT count(*) FROM "Message" WHERE "userId" = $1) + (SELECT count(*) FROM "Turn" WHERE "userId" = $1) + (SELECT count(*) FROM "Reminder" WHERE "userId" = $1)
              + (SELECT count(*) FROM "List" WHERE "userId" = $1) + (SELECT count(*) FROM "OutboundMessage" WHERE "userId" = $1) + (SELECT count(*) FROM "PlanRun" WHERE "userId" = $1)
              + (SELECT count(*) FROM pgboss.job WHERE name = $2) + (SELECT count(*) FROM "InboundDedupe" WHERE "key" LIKE 'sid:bench%') AS rows`,
        [heavy, REMINDER_QUEUE],
      );
      rows.push(['erase: 5,000 messages, 1,000 turns + 2,000 steps, 300 reminders + jobs, 1,000 list items', ms(eraseMs), '']);
      checks.push({ name: 'erase a heavy user', target: `< ${ERASE_TARGET_MS} ms`, measured: `${ms(eraseMs)} ms`, pass: eraseMs < ERASE_TARGET_MS, kind: 'target' });
      checks.push({ name: 'erase leaves nothing of the user', target: '0 rows', measured: `${Number(left.rows[0]!.rows)} rows`, pass: erased && Number(left.rows[0]!.rows) === 0, kind: 'correctness' });
    } finally {
      await queue.stop(5000).catch(() => {});
      await database.close();
    }
    print(table(['what', 'p50 ms (erase: once)', 'p99 ms'], rows));
    return { checks };
  },
};
