import { afterEach, describe, expect, it } from 'vitest';
import type { FakeAnthropicServer, RecordedAnthropicRequest, ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { registerWait } from '../fakes/fake-failures.js';
import { HeraldHarness } from '../helpers/herald-harness.js';

/**
 * docs/ARCHITECTURE.md "Request lifecycle" step 5: one turn at a time per user, in arrival order
 * (a quick burst may be merged into one turn), across instances; different users do
 * not wait for each other.
 */

/** One model call as the fake saw it. */
interface ModelCall {
  number: number;
  /** What the user said in this turn (a merged burst is its messages joined by newlines). */
  text: string;
  startedAt: number;
  endedAt?: number;
}

/**
 * An echoing fake model (answering `re: <what the user said>`) that records when each call
 * started and ended, and how many were in flight at once. Each call takes `delayMs` (the
 * model's latency: room for turns to overlap if ordering were broken), or, when `held`,
 * waits until the test calls `release()` (one call per release, in order; a release made
 * before the call arrives lets it through at once): a turn kept in flight exactly until
 * the event the test needs has happened.
 * (The wait is inside the script rather than a `{ delayMs, then }` answer: a function
 * script cannot return one whose `then` is a function, as `await` takes it for a promise.)
 */
function echoModel(anthropic: FakeAnthropicServer, options: { delayMs?: number; held?: boolean }) {
  const calls: ModelCall[] = [];
  let active = 0;
  let maxActive = 0;
  const waiting: Array<() => void> = [];
  let banked = 0;
  const permit = (): Promise<void> => {
    if (banked > 0) {
      banked -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  anthropic.setFallback(async (request: RecordedAnthropicRequest): Promise<ScriptedAnthropicResponse> => {
    const call: ModelCall = { number: request.number, text: request.lastUserText(), startedAt: performance.now() };
    calls.push(call);
    active += 1;
    maxActive = Math.max(maxActive, active);
    if (options.held) await permit();
    else await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 0)); // the model's latency
    active -= 1;
    call.endedAt = performance.now();
    return { text: `re: ${call.text}` };
  });
  return {
    calls,
    maxActive: () => maxActive,
    /** Lets the oldest held call answer (or the next one to arrive). */
    release: () => {
      const next = waiting.shift();
      if (next) next();
      else banked += 1;
    },
  };
}

/** Waits until Twilio was asked to send a reply echoing `text` (the last message of a burst, whichever turn it fell in). */
async function replyEchoing(harness: HeraldHarness, text: string): Promise<void> {
  while (!harness.twilio.messages.some((message) => message.body?.includes(text))) await harness.twilio.waitForMessages(harness.twilio.messages.length + 1);
}

/** True when no two calls were in flight at the same moment. */
function overlapping(calls: ModelCall[]): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  for (const [index, call] of calls.entries()) {
    for (const other of calls.slice(index + 1)) {
      const callEnd = call.endedAt ?? Number.POSITIVE_INFINITY;
      const otherEnd = other.endedAt ?? Number.POSITIVE_INFINITY;
      if (call.startedAt < otherEnd && other.startedAt < callEnd) pairs.push([call.number, other.number]);
    }
  }
  return pairs;
}

describe('turn ordering', () => {
  const harnesses: HeraldHarness[] = [];

  async function start(options: Parameters<typeof HeraldHarness.start>[0] = {}): Promise<HeraldHarness> {
    const harness = await HeraldHarness.start(options);
    harnesses.unshift(harness); // a harness sharing another's database closes before the owner drops it
    return harness;
  }

  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.close();
  });

  it('answers three quick messages from one user one turn at a time, in arrival order', async () => {
    const harness = await start();
    const model = echoModel(harness.anthropic, { delayMs: 200 });
    const user = '+14155550201';
    for (const body of ['first: book the flight', 'second: then the hotel', 'third: and a car']) {
      expect((await harness.inbound({ from: user, body })).statusCode).toBe(200);
    }
    // However the burst was cut into turns, every message is answered once, in order: the
    // last one's answer is the last reply, and stopping then proves nothing else was coming.
    await replyEchoing(harness, 'third: and a car');
    await harness.settle();

    expect(overlapping(model.calls)).toEqual([]);
    expect(model.maxActive()).toBe(1);
    expect(model.calls.map((call) => call.text).join('\n')).toBe('first: book the flight\nsecond: then the hotel\nthird: and a car');
    expect(harness.twilio.messages.map((message) => message.body)).toEqual(model.calls.map((call) => `re: ${call.text}`));
    const inbound = await harness.database.prisma.message.findMany({ where: { role: 'user' }, orderBy: { createdAt: 'asc' } });
    expect(inbound.map((message) => message.inboundStatus)).toEqual(['handled', 'handled', 'handled']);
    expect(await harness.database.prisma.turn.count({ where: { status: 'succeeded' } })).toBe(model.calls.length);
  });

  it('starts the next turn only after the previous one ended, and replies in the order the messages came', async () => {
    const harness = await start();
    const model = echoModel(harness.anthropic, { held: true });
    const user = '+14155550202';
    // Each message arrives while the previous turn's model call is still running (held until then).
    await harness.inbound({ from: user, body: 'one' });
    await harness.anthropic.waitForRequests(1);
    await harness.inbound({ from: user, body: 'two' });
    model.release();
    await harness.anthropic.waitForRequests(2);
    await harness.inbound({ from: user, body: 'three' });
    model.release();
    model.release();

    const replies = await harness.replies(3);
    expect(replies.map((reply) => reply.body)).toEqual(['re: one', 're: two', 're: three']);
    expect(model.calls.map((call) => call.text)).toEqual(['one', 'two', 'three']);
    expect(overlapping(model.calls)).toEqual([]);
    // Turn two was started only after turn one's reply was stored (it is in its history).
    expect(harness.anthropic.requests[1]?.allText()).toContain('re: one');
    expect(harness.anthropic.requests[2]?.allText()).toContain('re: two');
  });

  it('merges a burst that arrives while a turn is running into the next turn', async () => {
    const harness = await start();
    const model = echoModel(harness.anthropic, { held: true });
    const user = '+14155550203';
    await harness.inbound({ from: user, body: 'what is on my calendar today?' });
    await harness.anthropic.waitForRequests(1);
    // Both are stored while turn one is waiting for the model, which answers only then.
    await harness.inbound({ from: user, body: 'and tomorrow' });
    await harness.inbound({ from: user, body: 'oh and friday too' });
    model.release();
    model.release();

    const replies = await harness.replies(2);
    await harness.settle();
    expect(harness.anthropic.requests).toHaveLength(2);
    expect(harness.anthropic.requests[1]?.lastUserText()).toBe('and tomorrow\noh and friday too');
    expect(replies.map((reply) => reply.body)).toEqual(['re: what is on my calendar today?', 're: and tomorrow\noh and friday too']);
    expect(harness.twilio.messages).toHaveLength(2);

    const { prisma } = harness.database;
    const inbound = await prisma.message.findMany({ where: { role: 'user' }, orderBy: { createdAt: 'asc' } });
    expect(inbound.every((message) => message.inboundStatus === 'handled')).toBe(true);
    expect(inbound[1]?.turnId).toBeTruthy();
    expect(inbound[1]?.turnId).toBe(inbound[2]?.turnId);
    expect(inbound[0]?.turnId).not.toBe(inbound[1]?.turnId);
  });

  it('runs two different users concurrently', async () => {
    const harness = await start();
    // Each call is held until both have arrived: both users' turns are in flight at once.
    // Were one user to wait for the other, the first call would wait for ever, and the test
    // would time out naming the wait.
    let arrived = 0;
    let bothArrived!: () => void;
    const barrier = new Promise<void>((resolve) => (bothArrived = resolve));
    const stillWaiting = registerWait(barrier, () => `the model calls of two users at once: ${arrived} of 2 arrived`);
    void barrier.then(stillWaiting);
    const waitForBoth = async (request: RecordedAnthropicRequest): Promise<ScriptedAnthropicResponse> => {
      arrived += 1;
      if (arrived === 2) bothArrived();
      await barrier;
      return { text: `together: ${request.lastUserText()}` };
    };
    harness.anthropic.enqueue(waitForBoth, waitForBoth);

    const responses = await Promise.all([
      harness.inbound({ from: '+14155550204', body: 'alice here' }),
      harness.inbound({ from: '+447400123205', body: 'bob here' }),
    ]);
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200]);
    const replies = await harness.replies(2);
    const byRecipient = Object.fromEntries(replies.map((reply) => [reply.to, reply.body]));
    expect(byRecipient).toEqual({ '+14155550204': 'together: alice here', '+447400123205': 'together: bob here' });
  });

  it('answers one user one turn at a time, in order, when their messages reach two instances', async () => {
    const first = await start();
    const second = await start({
      database: first.database,
      env: { TWILIO_API_BASE_URL: first.twilio.url, ANTHROPIC_BASE_URL: first.anthropic.url },
    });
    const model = echoModel(first.anthropic, { delayMs: 200 });
    const user = '+14155550206';

    // Strictly alternating instances; each message lands while a turn is running.
    await first.inbound({ from: user, body: 'a1' });
    await first.anthropic.waitForRequests(1);
    await second.inbound({ from: user, body: 'b2' });
    await first.anthropic.waitForRequests(2);
    await first.inbound({ from: user, body: 'a3' });
    await first.anthropic.waitForRequests(3);
    await second.inbound({ from: user, body: 'b4' });
    await first.replies(4);

    // Then a quick burst spread over both.
    await second.inbound({ from: user, body: 'b5' });
    await first.inbound({ from: user, body: 'a6' });
    await second.inbound({ from: user, body: 'b7' });
    await replyEchoing(first, 'b7');
    await Promise.all([first.settle(), second.settle()]);

    expect(overlapping(model.calls)).toEqual([]);
    expect(model.maxActive()).toBe(1);
    expect(model.calls.slice(0, 4).map((call) => call.text)).toEqual(['a1', 'b2', 'a3', 'b4']);
    expect(model.calls.map((call) => call.text).join('\n')).toBe('a1\nb2\na3\nb4\nb5\na6\nb7');
    expect(first.twilio.messages.map((message) => message.body)).toEqual(model.calls.map((call) => `re: ${call.text}`));
    expect(second.twilio.requests).toHaveLength(0);
    const pending = await first.database.prisma.message.count({ where: { role: 'user', inboundStatus: { not: 'handled' } } });
    expect(pending).toBe(0);
  });
});
