import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeAnthropicServer } from '../fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../fakes/fake-twilio-server.js';
import { crashTestEnvironment, killTurnHolderAndAwaitReply, postInbound } from '../helpers/crash-takeover.js';
import { startHeraldProcess, type HeraldProcess } from '../helpers/herald-process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * Real processes, real SIGKILLs, default lease settings (TURN_LEASE_MS 3 s renewed by
 * heartbeat, a lapsed-lease sweep every 1 s) and the default 120 s plan timeout: a crashed
 * instance's user is answered, exactly once, and no turn stays "running". How soon is
 * measured by `npm run bench` (recovery); here the stopwatch is only printed.
 */
describe('a process killed mid-turn', () => {
  let database: TestDatabase;
  let fakeTwilio: FakeTwilioServer;
  let fakeAnthropic: FakeAnthropicServer;
  const running: HeraldProcess[] = [];

  beforeAll(async () => {
    [database, fakeTwilio, fakeAnthropic] = await Promise.all([createTestDatabase(), FakeTwilioServer.start(), FakeAnthropicServer.start()]);
  });
  afterEach(async () => {
    for (const instance of running.splice(0)) if (instance.child.exitCode === null && instance.child.signalCode === null) await instance.crash();
    fakeTwilio.reset();
  });
  afterAll(async () => {
    await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
    await database.drop();
  });

  async function start(env: Record<string, string>): Promise<HeraldProcess> {
    const instance = await startHeraldProcess(env);
    running.push(instance);
    return instance;
  }

  async function expectExactlyOneAnswer(phone: string): Promise<void> {
    const user = await database.prisma.user.findUniqueOrThrow({ where: { phone } });
    const inbound = await database.prisma.message.findMany({ where: { userId: user.id, role: 'user' } });
    expect(inbound.map((message) => message.inboundStatus)).toEqual(['handled']);
    const replies = await database.prisma.message.findMany({ where: { userId: user.id, role: 'assistant' } });
    expect(replies).toHaveLength(1);
    // The killed instance's turn is closed, not left "running" forever; the taker's succeeded.
    const turns = await database.prisma.turn.findMany({ where: { userId: user.id }, orderBy: { startedAt: 'asc' } });
    expect(turns.map((turn) => [turn.status, turn.errorKind])).toEqual([
      ['failed', 'interrupted'],
      ['succeeded', null],
    ]);
    expect(user.turnLeaseOwner).toBeNull();
  }

  it('two instances: SIGKILL the one holding the turn, and the other answers it, exactly once', async () => {
    const publicBaseUrl = 'https://herald.example.test';
    const first = await start(await crashTestEnvironment({ databaseUrl: database.url, fakeTwilio, fakeAnthropic, publicBaseUrl }));
    const second = await start(await crashTestEnvironment({ databaseUrl: database.url, fakeTwilio, fakeAnthropic, publicBaseUrl }));

    const outcome = await killTurnHolderAndAwaitReply({
      instances: [first, second],
      publicBaseUrl,
      fakeTwilio,
      fakeAnthropic,
      from: '+14155550123',
      body: 'what is the capital of France?',
      answer: 'Paris.',
    });
    process.stdout.write(`crash-to-reply with two instances: ${(outcome.crashToReplyMs / 1000).toFixed(1)} s\n`);
    expect(outcome.reply).toMatchObject({ to: '+14155550123', body: 'Paris.' });
    expect(outcome.survivor.output.some((line) => line.includes('took over lapsed turn leases'))).toBe(true);

    // A clean shutdown finishes anything in flight; only then can we say "exactly one".
    expect(await outcome.survivor.terminate()).toBe(0);
    expect(fakeTwilio.messages).toHaveLength(1);
    await expectExactlyOneAnswer('+14155550123');
  }, 120_000);

  it('one instance: killed between storing the message and replying, and the restarted one answers it, exactly once', async () => {
    const publicBaseUrl = 'https://herald.example.test';
    const env = await crashTestEnvironment({ databaseUrl: database.url, fakeTwilio, fakeAnthropic, publicBaseUrl });
    fakeAnthropic.enqueue({ hang: true });
    const first = await start(env);
    const requestsBefore = fakeAnthropic.requests.length;
    expect(await postInbound(first, publicBaseUrl, fakeTwilio, { from: '+14155550124', body: 'and of Spain?' })).toBe(200);
    await fakeAnthropic.waitForRequests(requestsBefore + 1);
    const killedAt = performance.now();
    await first.crash();
    expect(fakeTwilio.messages).toHaveLength(0);

    fakeAnthropic.enqueue({ text: 'Madrid.' });
    const second = await start(env);
    const [reply] = await fakeTwilio.waitForMessages(1);
    process.stdout.write(`crash-to-reply with a restart: ${((performance.now() - killedAt) / 1000).toFixed(1)} s (start-up included)\n`);
    expect(reply).toMatchObject({ to: '+14155550124', body: 'Madrid.' });
    expect(await second.terminate()).toBe(0);
    expect(fakeTwilio.messages).toHaveLength(1);
    await expectExactlyOneAnswer('+14155550124');
  }, 120_000);
});
