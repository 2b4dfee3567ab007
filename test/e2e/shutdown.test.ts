import { afterEach, describe, expect, it } from 'vitest';
import { fallbackReply } from '../../src/texts/fallback-replies.js';
import { HeraldHarness } from '../helpers/herald-harness.js';

/**
 * `herald.stop(graceMs)`: stop taking work, let turns in flight finish for `graceMs`, then
 * interrupt the rest. An interrupted turn sends nothing (no apology: it was not the
 * user's problem), leaves its messages pending and its lease free, so another instance
 * answers them.
 */
/** A model timeout no test lasts: reaching it means the test timed out first. */
const LONGER_THAN_ANY_TEST_MS = 10 * 60_000;

/** A scripted model answer held until the test calls `answer()`: a turn kept in flight for exactly as long as the test needs. */
function heldAnswer(text: string): { script: () => Promise<{ text: string }>; answer: () => void } {
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  return {
    script: async () => {
      await answered;
      return { text };
    },
    answer,
  };
}

describe('graceful shutdown', () => {
  const harnesses: HeraldHarness[] = [];

  async function start(options: Parameters<typeof HeraldHarness.start>[0] = {}): Promise<HeraldHarness> {
    const harness = await HeraldHarness.start(options);
    harnesses.unshift(harness);
    return harness;
  }

  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.close();
  });

  it('lets a turn in flight finish and deliver its reply within the grace period, and returns as soon as it has', async () => {
    const harness = await start();
    const model = heldAnswer('Finished before shutting down.');
    harness.anthropic.enqueue(model.script);
    await harness.inbound({ from: '+14155550701', body: 'quick question' });
    await harness.anthropic.waitForRequests(1);

    // The model answers only once stop() has begun, with a grace far longer than any test
    // (settle): a stop() that waited it out instead of returning when the turn was done would time out.
    const stopped = harness.settle();
    model.answer();
    await stopped;
    // stop() returned: the reply was already sent, nothing is left in flight.
    expect(harness.twilio.messages.map((message) => message.body)).toEqual(['Finished before shutting down.']);

    const { prisma } = harness.database;
    const [message] = await prisma.message.findMany({ where: { role: 'user' } });
    expect(message?.inboundStatus).toBe('handled');
    const [turn] = await prisma.turn.findMany();
    expect(turn).toMatchObject({ status: 'succeeded' });
    const user = await prisma.user.findUniqueOrThrow({ where: { phone: '+14155550701' } });
    expect(user.turnLeaseOwner).toBeNull();
    expect(await prisma.outboundMessage.count({ where: { status: { in: ['pending', 'dispatching'] } } })).toBe(0);
  });

  it('interrupts a turn that outlives the grace period without apologising, and another instance answers it once', async () => {
    // The model call would time out only after the test has: stop() must end it itself, at the grace.
    const first = await start({ env: { ANTHROPIC_TIMEOUT_MS: String(LONGER_THAN_ANY_TEST_MS) } });
    first.anthropic.enqueue({ hang: true });
    await first.inbound({ from: '+14155550702', body: 'write me a long essay' });
    await first.anthropic.waitForRequests(1);

    await first.herald.stop(300);

    // Nothing was sent: no reply, and no apology either.
    expect(first.twilio.requests).toHaveLength(0);
    const { prisma } = first.database;
    const [message] = await prisma.message.findMany({ where: { role: 'user' } });
    expect(message?.inboundStatus).toBe('pending');
    expect(message?.turnId).toBeNull();
    const user = await prisma.user.findUniqueOrThrow({ where: { phone: '+14155550702' } });
    expect(user.turnLeaseOwner).toBeNull();
    expect(user.turnLeaseUntil).toBeNull();
    expect(await prisma.message.count({ where: { role: 'assistant' } })).toBe(0);
    expect(await prisma.outboundMessage.count()).toBe(0);
    // The interrupted turn is closed, not left "running" forever.
    const turns = await prisma.turn.findMany();
    expect(turns.every((turn) => turn.status !== 'running')).toBe(true);

    // A second instance on the same database (and the same fakes) picks it up.
    const second = await start({
      database: first.database,
      env: { TWILIO_API_BASE_URL: first.twilio.url, ANTHROPIC_BASE_URL: first.anthropic.url },
    });
    first.anthropic.enqueue({ text: 'Here is your essay.' });
    const [reply] = await first.replies(1);
    expect(reply).toMatchObject({ to: '+14155550702', body: 'Here is your essay.' });
    await second.settle();

    expect(first.twilio.messages).toHaveLength(1);
    expect(first.twilio.messages.map((sent) => sent.body)).not.toContain(fallbackReply('apology', null));
    expect(first.anthropic.requests).toHaveLength(2);
    expect(first.anthropic.requests[1]?.lastUserText()).toBe('write me a long essay');
    const after = await prisma.message.findMany({ where: { role: 'user' } });
    expect(after.map((row) => row.inboundStatus)).toEqual(['handled']);
    expect(await prisma.turn.count({ where: { status: 'succeeded' } })).toBe(1);
  });

  it('does not pick up new work once stopping', async () => {
    const harness = await start();
    const model = heldAnswer('first answer');
    harness.anthropic.enqueue(model.script);
    await harness.inbound({ from: '+14155550703', body: 'first' });
    await harness.anthropic.waitForRequests(1);
    const stopped = harness.settle();
    // Arrives while the first turn is still waiting for the model: it is stored, and left for the next instance.
    await harness.inbound({ from: '+14155550704', body: 'second user, during shutdown' });
    model.answer();
    await stopped;
    expect(harness.twilio.messages.map((message) => message.body)).toEqual(['first answer']);
    expect(harness.anthropic.requests).toHaveLength(1);
    const pending = await harness.database.prisma.message.findMany({ where: { inboundStatus: 'pending' } });
    expect(pending.map((message) => message.content)).toEqual(['second user, during shutdown']);
  });
});
