import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetGuard } from '../../src/budgets/budget-guard.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * One budget notice a day per user, and one to the owners per deployment day, raced
 * directly: a user's turns are normally kept apart by their lease, and the owners' notice is
 * claimed by whichever user's turn gets there first; here the claims themselves must hold.
 */
describe('budget notices, claimed at once', () => {
  let database: TestDatabase;
  let guard: BudgetGuard;

  beforeAll(async () => {
    database = await createTestDatabase();
    guard = new BudgetGuard(database.prisma, new ManualClock('2026-11-23T15:00:00Z'), { userDailyUsd: 0.5, deploymentTimezone: 'America/New_York' }, createSilentLogger());
  });
  afterAll(async () => {
    await database.drop();
  });

  const claimedBy = (claims: boolean[]) => claims.filter(Boolean).length;

  it("five turns of one user claim the day's notice at once: one gets it; the next day, one again", async () => {
    const user = await database.prisma.user.create({ data: { phone: '+12125550390', timezone: 'America/New_York', updatedAt: new Date() } });
    expect(claimedBy(await Promise.all(Array.from({ length: 5 }, () => guard.claimUserNotice(user.id, '2026-11-23'))))).toBe(1);
    expect(await guard.claimUserNotice(user.id, '2026-11-23')).toBe(false);
    expect(claimedBy(await Promise.all(Array.from({ length: 5 }, () => guard.claimUserNotice(user.id, '2026-11-24'))))).toBe(1);
  });

  it("five users' turns claim the owners' notice for the deployment day at once: one gets it", async () => {
    expect(claimedBy(await Promise.all(Array.from({ length: 5 }, () => guard.claimDeploymentNotice('2026-11-23'))))).toBe(1);
    expect(await guard.claimDeploymentNotice('2026-11-23')).toBe(false);
    expect(await guard.claimDeploymentNotice('2026-11-24')).toBe(true);
  });
});
