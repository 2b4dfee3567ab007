import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { stableJson } from '../../src/shared/stable-json.js';
import { InMemoryToolCallKeys, PrismaToolCallKeys, type ClaimedCall } from '../../src/tool-calls/tool-call-keys.js';
import { callKey, ToolCallLedger } from '../../src/tool-calls/tool-call-ledger.js';
import type { KeyedCall } from '../../src/tools/keyed-calls.js';
import type { ToolResult } from '../../src/tools/tool.js';
import { capturingLogger } from '../helpers/herald-harness.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The tool-call ledger's exactly-once rules, directly (issue 32 item 8): the same call from two
 * steps at once runs once, a call cut off stays "started", a failed one is released, keys are
 * forgotten after a day to the millisecond, and the store's claim on real Postgres is one
 * insert however many make it at once.
 */
const DAY = 24 * 60 * 60 * 1000;
const scope = { userId: 'user_1', scope: 'message_1', turnId: 'turn_1' };

/** The in-memory store, recording what the ledger asked of it (and failing where told to). */
class RecordingKeys extends InMemoryToolCallKeys {
  readonly forgotten: Array<[string, Date]> = [];
  failClaim = false;
  failDone = false;

  override async claim(call: ClaimedCall) {
    if (this.failClaim) throw new Error('database gone');
    return super.claim(call);
  }
  override async done(key: string, result: unknown, at: Date) {
    if (this.failDone) throw new Error('could not write');
    return super.done(key, result, at);
  }
  override async forget(userId: string, before: Date) {
    this.forgotten.push([userId, before]);
    return super.forget(userId, before);
  }
}

function setup() {
  const clock = new ManualClock('2030-02-01T09:00:00Z');
  const keys = new RecordingKeys();
  const { logger, logs } = capturingLogger('debug');
  const ledger = new ToolCallLedger(keys, scope, clock, logger);
  return { clock, keys, ledger, logs };
}

const book = (name: string, extra: Partial<KeyedCall> = {}): KeyedCall => ({ tool: 'book', input: { name }, occurrence: 0, keep: (output) => output, ...extra });
const succeeded = (output: unknown): (() => Promise<ToolResult>) => async () => ({ isError: false, output });

describe('the tool-call ledger', () => {
  it('keys a call by its request, tool, canonical arguments and occurrence, nothing else', () => {
    expect(callKey('m1', 'book', { b: 1, a: 2 }, 0)).toBe(createHash('sha256').update(JSON.stringify(['m1', 'book', stableJson({ a: 2, b: 1 }), 0])).digest('hex'));
    expect(callKey('m1', 'book', { b: 1, a: 2 }, 0)).toBe(callKey('m1', 'book', { a: 2, b: 1 }, 0));
    expect(new Set([callKey('m1', 'book', {}, 0), callKey('m1', 'book', {}, 1), callKey('m2', 'book', {}, 0), callKey('m1', 'cancel', {}, 0)]).size).toBe(4);
  });

  it('records a run call as done, with what the tool keeps, at the time it finished, for the step that made it', async () => {
    const { clock, keys, ledger } = setup();
    const execute = async (): Promise<ToolResult> => {
      clock.advance(5_000);
      return { isError: false, output: { id: 'b1', detail: 'long' } };
    };
    const outcome = await ledger.forStep('step_7').run(book('Dana', { keep: (output) => ({ id: (output as { id: string }).id }) }), execute);
    expect(outcome).toEqual({ kind: 'ran', result: { isError: false, output: { id: 'b1', detail: 'long' } } });
    await ledger.flush();
    const row = keys.rows.get(callKey('message_1', 'book', { name: 'Dana' }, 0));
    expect(row).toMatchObject({ ...scope, stepId: 'step_7', tool: 'book', at: new Date('2030-02-01T09:00:00Z'), result: { id: 'b1' }, finishedAt: new Date('2030-02-01T09:00:05Z') });
  });

  it('replays a done call and reports a started one as uncertain, without running either', async () => {
    const { clock, keys, ledger, logs } = setup();
    await keys.claim({ key: callKey('message_1', 'book', { name: 'Ann' }, 0), ...scope, stepId: 's', tool: 'book', at: clock.now() });
    await keys.done(callKey('message_1', 'book', { name: 'Ann' }, 0), { id: 'b9' }, clock.now());
    await keys.claim({ key: callKey('message_1', 'book', { name: 'Bo' }, 0), ...scope, stepId: 's', tool: 'book', at: clock.now() });
    let ran = 0;
    const execute = async (): Promise<ToolResult> => {
      ran += 1;
      return { isError: false, output: {} };
    };
    expect(await ledger.forStep('s2').run(book('Ann'), execute)).toEqual({ kind: 'replayed', output: { id: 'b9' } });
    expect(await ledger.forStep('s2').run(book('Bo'), execute)).toEqual({ kind: 'uncertain' });
    expect(ran).toBe(0);
    expect(logs.lines.map((line) => line.event)).toEqual(expect.arrayContaining(['tool_call_replayed', 'tool_call_uncertain']));
  });

  it('releases a call that came back as an error or threw, so it may be made again', async () => {
    const { keys, ledger } = setup();
    expect(await ledger.forStep('s').run(book('Full'), async () => ({ isError: true, error: 'fully booked' }))).toMatchObject({ kind: 'ran', result: { isError: true } });
    await expect(ledger.forStep('s').run(book('Boom'), async () => Promise.reject(new Error('network')))).rejects.toThrow('network');
    await ledger.flush();
    expect(keys.rows.size).toBe(0);
    expect((await ledger.forStep('s').run(book('Full'), succeeded({ id: 'b2' }))).kind).toBe('ran');
  });

  it('keeps a call cut off by its step’s signal "started": the next run of it is uncertain', async () => {
    const { ledger } = setup();
    const controller = new AbortController();
    const execute = async (): Promise<ToolResult> => {
      controller.abort();
      throw new Error('step timed out');
    };
    await expect(ledger.forStep('s').run(book('Cut', { signal: controller.signal }), execute)).rejects.toThrow('step timed out');
    await ledger.flush();
    expect(await ledger.forStep('s').run(book('Cut'), succeeded({}))).toEqual({ kind: 'uncertain' });
  });

  it('runs the same call from two steps at once once: the later waits for the earlier’s outcome and replays it', async () => {
    const { ledger } = setup();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const execute = async (): Promise<ToolResult> => {
      runs += 1;
      await held;
      return { isError: false, output: { id: 'b3' } };
    };
    const first = ledger.forStep('a').run(book('Cy'), execute);
    const second = ledger.forStep('b').run(book('Cy'), execute);
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    expect(await first).toMatchObject({ kind: 'ran' });
    expect(await second).toEqual({ kind: 'replayed', output: { id: 'b3' } });
    expect(runs).toBe(1);
    // A different call does not wait for it.
    expect((await ledger.forStep('c').run(book('Other'), succeeded({}))).kind).toBe('ran');
  });

  it('a waiting call goes on once the earlier is cut off (and finds it started), and once its claim failed', async () => {
    const { keys, ledger } = setup();
    const controller = new AbortController();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = ledger.forStep('a').run(book('Di', { signal: controller.signal }), async () => {
      await held;
      return { isError: false, output: { id: 'late' } };
    });
    const second = ledger.forStep('b').run(book('Di'), succeeded({ id: 'never' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    expect(await second).toEqual({ kind: 'uncertain' });
    release();
    expect(await first).toMatchObject({ kind: 'ran' });

    keys.failClaim = true;
    await expect(ledger.forStep('a').run(book('Ed'), succeeded({}))).rejects.toThrow('database gone');
    keys.failClaim = false;
    expect((await ledger.forStep('b').run(book('Ed'), succeeded({}))).kind).toBe('ran');
  });

  it('forgets the user’s keys older than a day, once per turn', async () => {
    const { clock, keys, ledger } = setup();
    await ledger.forStep('s').run(book('A'), succeeded({}));
    clock.advance(60_000);
    await ledger.forStep('s').run(book('B'), succeeded({}));
    await ledger.flush();
    expect(keys.forgotten).toEqual([['user_1', new Date(Date.parse('2030-02-01T09:00:00Z') - DAY)]]);
  });

  it('a record that cannot be written is logged, not thrown; flush still ends', async () => {
    const { keys, ledger, logs } = setup();
    keys.failDone = true;
    expect((await ledger.forStep('s').run(book('F'), succeeded({}))).kind).toBe('ran');
    await ledger.flush();
    expect(logs.lines.some((line) => line.msg === 'could not record a tool call as done')).toBe(true);
    // The key stays started: a re-run checks rather than repeats.
    keys.failDone = false;
    expect(await ledger.forStep('s').run(book('F'), succeeded({}))).toEqual({ kind: 'uncertain' });
  });
});

describe('tool-call keys on Postgres', () => {
  let database: TestDatabase;
  let store: PrismaToolCallKeys;
  let userId: string;
  const at = new Date('2030-02-01T09:00:00Z');

  beforeAll(async () => {
    database = await createTestDatabase(8);
    store = new PrismaToolCallKeys(database.prisma);
    userId = (await database.prisma.user.create({ data: { phone: '+14155550981', timezone: 'UTC', updatedAt: at } })).id;
  });
  afterAll(async () => {
    await database.drop();
  });
  const claimed = (key: string, when = at): ClaimedCall => ({ key, userId, scope: 'm', turnId: 't', stepId: 's', tool: 'book', at: when });

  it('a key claimed by eight at once is claimed once; the others find it started', async () => {
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => store.claim(claimed('race'))));
    expect(outcomes.filter((outcome) => outcome.kind === 'claimed')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'started')).toHaveLength(7);
  });

  it('done keeps any output (nothing at all as null); release frees only an unfinished key', async () => {
    await store.claim(claimed('text'));
    await store.done('text', 'booked', at);
    expect(await store.claim(claimed('text'))).toEqual({ kind: 'done', result: 'booked' });
    await store.claim(claimed('nothing'));
    await store.done('nothing', undefined, at);
    expect(await store.claim(claimed('nothing'))).toEqual({ kind: 'done', result: null });
    await store.release('text');
    expect((await store.claim(claimed('text'))).kind).toBe('done');
    await store.claim(claimed('free'));
    await store.release('free');
    expect(await store.claim(claimed('free'))).toEqual({ kind: 'claimed' });
  });

  it('forgets only the user’s keys created before the cut-off, not one made at it', async () => {
    await store.claim(claimed('old', new Date(at.getTime() - 1)));
    await store.claim(claimed('edge', at));
    await store.forget(userId, at);
    expect(await store.claim(claimed('old'))).toEqual({ kind: 'claimed' });
    expect(await store.claim(claimed('edge'))).toEqual({ kind: 'started' });
  });
});
