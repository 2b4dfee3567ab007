/**
 * Keyed mutating calls (issue 25): a call a request already made is not made again when the
 * request runs again (a retried or replanned step, a turn taken over after a crash), a call
 * cut off midway is not repeated blindly, and the same call from two steps at once is made
 * once. Through the real tool loop, with an in-memory key store.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runToolLoop, type ToolLoopProgress } from '../../src/agents/tool-loop.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { emptyUsage } from '../../src/model/model-client.js';
import { ScriptedModel, type ScriptedTurn } from '../../src/model/scripted-model.js';
import { ManualClock } from '../../src/shared/clock.js';
import { InMemoryToolCallKeys } from '../../src/tool-calls/tool-call-keys.js';
import { ToolCallLedger } from '../../src/tool-calls/tool-call-ledger.js';
import { defineTool, ok, toolError, type ToolDefinition } from '../../src/tools/tool.js';
import { waitUntil } from '../db/wait-until.js';

const clock = new ManualClock('2026-03-01T12:00:00Z');
const logger = createSilentLogger();

/** A booking service: `book` creates (FULL is refused; while held, it waits for the release), `count` only reads. */
function bookingTools() {
  const bookings: string[] = [];
  let held: Promise<void> | undefined;
  let release = () => {};
  let reached = () => {};
  const book = defineTool({
    name: 'book',
    description: 'Books a table.',
    mutates: true,
    inputSchema: z.object({ name: z.string() }),
    async run({ name }) {
      if (name.includes('FULL')) return toolError('fully booked');
      const wait = held;
      held = undefined;
      if (wait) {
        reached();
        await wait;
      }
      bookings.push(name);
      return ok({ effect: 'created', booking: { id: `b${bookings.length}`, name } });
    },
  });
  const count = defineTool({ name: 'count', description: 'Counts bookings.', mutates: false, inputSchema: z.object({}), run: async () => ok({ count: bookings.length }) });
  return {
    tools: [book, count] as ToolDefinition[],
    bookings,
    /** The next booking waits until `release()`; resolves once it is waiting. */
    hold: () => {
      held = new Promise<void>((resolve) => (release = resolve));
      return new Promise<void>((resolve) => (reached = resolve));
    },
    release: () => release(),
  };
}

/** One step's tool loop: the scripted calls, then a text answer (what its calls did recorded, as at a turn's end). */
async function step(tools: ToolDefinition[], ledger: ToolCallLedger, turns: ScriptedTurn[], options: { stepId?: string; signal?: AbortSignal } = {}) {
  const model = new ScriptedModel([...turns, { text: 'done' }]);
  const progress: ToolLoopProgress = { toolCalls: [], usage: emptyUsage(), modelCalls: 0 };
  const result = await runToolLoop({
    model,
    request: { model: 'test', system: [], maxTokens: 100 },
    messages: [{ role: 'user', content: 'book it' }],
    tools,
    toolContext: { userId: 'user_1', timezone: 'UTC', clock, logger, signal: options.signal },
    maxIterations: 8,
    keyedCalls: ledger.forStep(options.stepId ?? 'step_1'),
    progress,
    ...(options.signal ? { signal: options.signal } : {}),
  }).catch(() => undefined);
  await ledger.flush();
  return { result, toolCalls: progress.toolCalls, model };
}

const call = (name: string, input: unknown): ScriptedTurn => ({ toolCalls: [{ name, input }] });

/** A step booking "Dana" whose booking is held, cut off (as by its timeout) once the booking is under way. */
async function cutOffBooking(booking: ReturnType<typeof bookingTools>, keys: InMemoryToolCallKeys) {
  const cutOff = new AbortController();
  const underway = booking.hold();
  const first = step(booking.tools, ledger(keys), [call('book', { name: 'Dana' })], { signal: cutOff.signal });
  await underway;
  cutOff.abort(new Error('step timed out'));
  return first;
}
const ledger = (keys: InMemoryToolCallKeys, scope = 'msg_1', turnId = 'turn_1') => new ToolCallLedger(keys, { userId: 'user_1', scope, turnId }, clock, logger);

describe('a request run again', () => {
  it('does not make a call it already made: the re-run gets the first result, marked replayed', async () => {
    const { tools, bookings } = bookingTools();
    const keys = new InMemoryToolCallKeys();
    const first = await step(tools, ledger(keys, 'msg_1', 'turn_1'), [call('book', { name: 'Dana' })]);
    // The turn taken over after a crash: another turn, another step id, the same request.
    const again = await step(tools, ledger(keys, 'msg_1', 'turn_2'), [call('book', { name: 'Dana' })], { stepId: 'step_1_v2' });

    expect(bookings).toEqual(['Dana']);
    expect(again.toolCalls).toEqual([expect.objectContaining({ name: 'book', isError: false, mutates: true, replayed: true, result: { effect: 'created', booking: { id: 'b1', name: 'Dana' } } })]);
    // The agent reads exactly what the first run read.
    const shown = (run: typeof first) => JSON.stringify(run.model.calls[1]!.messages.at(-1));
    expect(shown(again)).toBe(shown(first));
    expect([...keys.rows.values()]).toEqual([expect.objectContaining({ scope: 'msg_1', turnId: 'turn_1', stepId: 'step_1', tool: 'book', finishedAt: clock.now() })]);
  });

  it('makes it again for another request, and keys the same arguments in any key order alike', async () => {
    const { tools, bookings } = bookingTools();
    const keys = new InMemoryToolCallKeys();
    await step(tools, ledger(keys, 'msg_1'), [call('book', { name: 'Dana' })]);
    await step(tools, ledger(keys, 'msg_2'), [call('book', { name: 'Dana' })]);
    expect(bookings).toEqual(['Dana', 'Dana']);
  });

  it('keys a deliberate repeat within a step apart from the first: both are made, and a re-run makes neither again', async () => {
    const { tools, bookings } = bookingTools();
    const keys = new InMemoryToolCallKeys();
    const twice: ScriptedTurn = { toolCalls: [{ name: 'book', input: { name: 'Dana' } }, { name: 'book', input: { name: 'Dana' } }] };
    await step(tools, ledger(keys), [twice]);
    const again = await step(tools, ledger(keys, 'msg_1', 'turn_2'), [twice]);
    expect(bookings).toEqual(['Dana', 'Dana']);
    expect(again.toolCalls.map((record) => record.replayed)).toEqual([true, true]);
  });

  it('makes a call that failed again: a refusal changed nothing', async () => {
    const { tools } = bookingTools();
    const keys = new InMemoryToolCallKeys();
    await step(tools, ledger(keys), [call('book', { name: 'FULL' })]);
    expect(keys.rows.size).toBe(0);
    const again = await step(tools, ledger(keys, 'msg_1', 'turn_2'), [call('book', { name: 'FULL' })]);
    expect(again.toolCalls).toEqual([expect.objectContaining({ isError: true, result: 'fully booked' })]);
    expect(again.toolCalls[0]!.replayed).toBeUndefined();
  });

  it('does not key reads', async () => {
    const { tools } = bookingTools();
    const keys = new InMemoryToolCallKeys();
    await step(tools, ledger(keys), [call('count', {})]);
    expect(keys.rows.size).toBe(0);
  });
});

describe('a call cut off midway', () => {
  it('is not made blindly by the re-run: the agent is told to look first, and a second try after looking is made', async () => {
    const booking = bookingTools();
    const { tools, bookings } = booking;
    const keys = new InMemoryToolCallKeys();
    expect((await cutOffBooking(booking, keys)).toolCalls).toEqual([expect.objectContaining({ name: 'book', interrupted: true })]);

    // The process died with the call in flight: it never reports back.
    const again = await step(tools, ledger(keys, 'msg_1', 'turn_2'), [call('book', { name: 'Dana' }), call('count', {}), call('book', { name: 'Dana' })]);
    expect(again.toolCalls.map((record) => [record.name, record.isError])).toEqual([['book', true], ['count', false], ['book', false]]);
    expect(again.toolCalls[0]!.result).toContain('may have taken effect. Look it up first');
    expect(bookings).toEqual(['Dana']);
  });

  it('that finishes after the step gave up on it is kept: a re-run replays it', async () => {
    const booking = bookingTools();
    const { tools, bookings } = booking;
    const keys = new InMemoryToolCallKeys();
    await cutOffBooking(booking, keys);
    booking.release();
    // The late outcome is written by the abandoned call itself: no event reaches the test.
    await waitUntil(() => [...keys.rows.values()].some((row) => row.finishedAt !== undefined), 'the late booking recorded as done');

    const again = await step(tools, ledger(keys, 'msg_1', 'turn_2'), [call('book', { name: 'Dana' })]);
    expect(bookings).toEqual(['Dana']);
    expect(again.toolCalls).toEqual([expect.objectContaining({ replayed: true, result: { effect: 'created', booking: { id: 'b1', name: 'Dana' } } })]);
  });
});

describe('two steps running at once', () => {
  it('make the same call once; the one that waited gets its result', async () => {
    const { tools, bookings, hold, release } = bookingTools();
    const keys = new InMemoryToolCallKeys();
    const shared = ledger(keys);
    const underway = hold();
    const one = step(tools, shared, [call('book', { name: 'Dana' })], { stepId: 'a' });
    const two = step(tools, shared, [call('book', { name: 'Dana' })], { stepId: 'b' });
    await underway;
    release();
    const [first, second] = await Promise.all([one, two]);
    expect(bookings).toEqual(['Dana']);
    expect([first.toolCalls[0]!.replayed, second.toolCalls[0]!.replayed]).toEqual([undefined, true]);
  });
});
