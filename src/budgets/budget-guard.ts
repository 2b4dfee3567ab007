import { DateTime } from 'luxon';
import type { PrismaClient, PrismaExecutor } from '../db/prisma-types.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';

/** The daily model budgets (USER_DAILY_BUDGET_USD, DAILY_BUDGET_USD). */
export interface BudgetSettings {
  userDailyUsd: number;
  /** Undefined: no deployment-wide limit. */
  dailyUsd?: number | undefined;
  /** Whose midnight the deployment's day starts at (DEFAULT_TIMEZONE). */
  deploymentTimezone: string;
}

/** Whether a user may have model calls now. `day` is the local date the limit applies to. */
export type BudgetState =
  | { kind: 'within' }
  | { kind: 'user_spent'; day: string; spentUsd: number }
  | { kind: 'deployment_spent'; day: string; deploymentDay: string; spentUsd: number };

/**
 * Daily model budgets, from what turns actually cost (Turn.costUsd, priced from the model
 * profiles). Checked before a turn would call the model: a turn that crosses the budget
 * finishes, and the next one is refused. The user's day runs from their local midnight (the
 * sum of their turns since); the deployment's from DEFAULT_TIMEZONE's (a running total,
 * DeploymentSpend, added to by each turn's commit).
 */
export class BudgetGuard {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    readonly settings: BudgetSettings,
    private readonly logger: Logger,
  ) {}

  /** Where the user stands today (the deployment first: past it, nobody gets model calls). */
  async check(user: { id: string; timezone: string }): Promise<BudgetState> {
    const now = this.clock.now();
    const local = startOfDay(now, user.timezone);
    if (this.settings.dailyUsd !== undefined) {
      const deployment = startOfDay(now, this.settings.deploymentTimezone);
      const row = await this.prisma.deploymentSpend.findUnique({ where: { day: deployment.day }, select: { costUsd: true } });
      const spent = Number(row?.costUsd ?? 0);
      if (spent >= this.settings.dailyUsd) {
        this.logger.warn({ spentUsd: spent, budgetUsd: this.settings.dailyUsd }, 'deployment daily budget spent: no model calls');
        return { kind: 'deployment_spent', day: local.day, deploymentDay: deployment.day, spentUsd: spent };
      }
    }
    const spent = await this.spentSince(local.start, user.id);
    if (spent >= this.settings.userDailyUsd) {
      this.logger.info({ userId: user.id, spentUsd: spent, budgetUsd: this.settings.userDailyUsd }, 'user daily budget spent: no model calls');
      return { kind: 'user_spent', day: local.day, spentUsd: spent };
    }
    return { kind: 'within' };
  }

  /**
   * Adds a finished turn's cost to the deployment's day, in the turn's own commit (so the
   * total is exactly the committed turns'). One row per day: its lock is held only for the
   * rest of that short transaction.
   */
  async recordSpend(executor: PrismaExecutor, costUsd: number): Promise<void> {
    if (costUsd <= 0) return;
    const now = this.clock.now();
    const { day } = startOfDay(now, this.settings.deploymentTimezone);
    await executor.$executeRaw`
      INSERT INTO "DeploymentSpend" ("day", "costUsd", "updatedAt") VALUES (${day}, ${costUsd}::numeric, ${now})
      ON CONFLICT ("day") DO UPDATE SET "costUsd" = "DeploymentSpend"."costUsd" + EXCLUDED."costUsd", "updatedAt" = EXCLUDED."updatedAt"`;
  }

  /** True the first time it is asked for this user and local day: one budget notice a day. */
  async claimUserNotice(userId: string, day: string): Promise<boolean> {
    const claimed = await this.prisma.user.updateMany({ where: { id: userId, OR: [{ budgetNoticeOn: null }, { budgetNoticeOn: { not: day } }] }, data: { budgetNoticeOn: day } });
    return claimed.count > 0;
  }

  /** True once per deployment day, across every instance: the owners are told once. */
  async claimDeploymentNotice(day: string): Promise<boolean> {
    const inserted = await this.prisma.$executeRaw`INSERT INTO "SystemNotice" ("key", "createdAt") VALUES (${`deployment-budget:${day}`}, ${this.clock.now()}) ON CONFLICT DO NOTHING`;
    return inserted === 1;
  }

  private async spentSince(start: Date, userId: string): Promise<number> {
    const { _sum } = await this.prisma.turn.aggregate({ _sum: { costUsd: true }, where: { userId, startedAt: { gte: start } } });
    return Number(_sum.costUsd ?? 0);
  }
}

/** Midnight of `now`'s day in `timezone`, and that day as YYYY-MM-DD. */
function startOfDay(now: Date, timezone: string): { start: Date; day: string } {
  const local = DateTime.fromJSDate(now, { zone: timezone }).startOf('day');
  return { start: local.toJSDate(), day: local.toISODate() ?? now.toISOString().slice(0, 10) };
}
