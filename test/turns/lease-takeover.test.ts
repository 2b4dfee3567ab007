import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../db/wait-until.js';
import { HeraldHarness } from '../helpers/herald-harness.js';

/**
 * The pieces of crash recovery that a real SIGKILL (test/e2e/crash-recovery.test.ts)
 * cannot pin down deterministically: several instances sweeping the same lapsed lease at
 * once, turns left "running", and a holder that stalled past its lease trying to commit.
 */
describe('taking over lapsed turn leases', () => {
  const harnesses: HeraldHarness[] = [];

  async function start(options: Parameters<typeof HeraldHarness.start>[0] = {}): Promise<HeraldHarness> {
    // The periodic sweep is off: these tests call it when they mean to.
    const harness = await HeraldHarness.start({ ...options, env: { TURN_LEASE_SWEEP_MS: '3600000', ...options.env } });
    harnesses.unshift(harness);
    return harness;
  }

  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.close();
  });

  it('gives a dead holder\'s user to exactly one of several sweeping instances, closes its turn, and answers once', async () => {
    const earlier = await start();
    await earlier.settle();
    const harness = await start({ database: earlier.database, start: false });
    const { prisma } = harness.database;
    harness.anthropic.enqueue({ text: 'Back, sorry for the wait.' });
    expect((await harness.inbound({ from: '+14155550701', body: 'still there?' })).statusCode).toBe(200);
    const user = await prisma.user.findUniqueOrThrow({ where: { phone: '+14155550701' } });
    // What a SIGKILLed holder leaves: its lease (lapsed, never released) and its turn row.
    await prisma.$executeRaw`UPDATE "User" SET "turnLeaseOwner" = 'dead', "turnLeaseUntil" = (now() AT TIME ZONE 'UTC') - interval '1 second' WHERE id = ${user.id}::uuid`;
    await prisma.turn.create({ data: { userId: user.id, startedAt: new Date() } });
    // A user whose holder is alive (lease in the future) is not touched.
    const busy = await prisma.user.create({ data: { phone: '+14155550702', timezone: 'UTC', updatedAt: new Date() } });
    await prisma.$executeRaw`UPDATE "User" SET "turnLeaseOwner" = 'alive', "turnLeaseUntil" = (now() AT TIME ZONE 'UTC') + interval '1 minute' WHERE id = ${busy.id}::uuid`;

    const sweeps = await Promise.all([harness.herald.recovery.takeOverLapsedLeases(), harness.herald.recovery.takeOverLapsedLeases(), harness.herald.recovery.takeOverLapsedLeases()]);
    expect(sweeps.flat()).toEqual([user.id]);
    expect(await prisma.user.findUniqueOrThrow({ where: { id: busy.id }, select: { turnLeaseOwner: true } })).toEqual({ turnLeaseOwner: 'alive' });
    const [abandoned] = await prisma.turn.findMany({ where: { userId: user.id } });
    expect(abandoned).toMatchObject({ status: 'failed', errorKind: 'interrupted' });
    expect(abandoned?.finishedAt).not.toBeNull();

    await harness.herald.start();
    const [reply] = await harness.replies(1);
    expect(reply).toMatchObject({ to: '+14155550701', body: 'Back, sorry for the wait.' });
    await harness.settle();
    expect(harness.twilio.messages).toHaveLength(1);
    expect(harness.anthropic.requests).toHaveLength(1);
    expect((await prisma.turn.findMany({ where: { userId: user.id }, orderBy: { startedAt: 'asc' } })).map((turn) => turn.status)).toEqual(['failed', 'succeeded']);
  });

  it('closes, at start-up, a turn left running by a worker that is gone', async () => {
    const earlier = await start({ start: false });
    const { prisma } = earlier.database;
    const user = await prisma.user.create({ data: { phone: '+14155550703', timezone: 'UTC', updatedAt: new Date() } });
    const left = await prisma.turn.create({ data: { userId: user.id, startedAt: new Date(Date.now() - 3_600_000) } });
    await earlier.herald.start();
    expect(await prisma.turn.findUniqueOrThrow({ where: { id: left.id } })).toMatchObject({ status: 'failed', errorKind: 'interrupted' });
  });

  it('does not let a holder that lost its lease mid-turn commit an answer', async () => {
    const harness = await start();
    const { prisma } = harness.database;
    // While the model "thinks", this holder stalls past its lease and another worker takes
    // the user over: its answer must not be committed or sent (the taker answers instead).
    harness.anthropic.enqueue(async () => {
      await prisma.$executeRaw`UPDATE "User" SET "turnLeaseOwner" = 'taker', "turnLeaseUntil" = (now() AT TIME ZONE 'UTC') + interval '1 minute' WHERE phone = '+14155550704'`;
      return { text: 'An answer nobody may see twice.' };
    });
    expect((await harness.inbound({ from: '+14155550704', body: 'hello?' })).statusCode).toBe(200);
    await harness.anthropic.waitForRequests(1);
    const user = await prisma.user.findUniqueOrThrow({ where: { phone: '+14155550704' } });
    await waitUntil(async () => (await prisma.turn.findFirst({ where: { userId: user.id } }))?.status === 'failed', 'the turn to be closed');
    const [turn] = await prisma.turn.findMany({ where: { userId: user.id } });
    expect(turn).toMatchObject({ status: 'failed', errorKind: 'interrupted' });
    expect(await prisma.message.findMany({ where: { userId: user.id }, select: { role: true, inboundStatus: true } })).toEqual([{ role: 'user', inboundStatus: 'pending' }]);
    expect(await prisma.outboundMessage.count({ where: { userId: user.id } })).toBe(0);
    expect(harness.twilio.requests).toHaveLength(0);
  });
});
