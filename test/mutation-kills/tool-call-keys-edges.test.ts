import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../src/db/prisma-types.js';
import { InMemoryToolCallKeys, PrismaToolCallKeys, type ClaimedCall } from '../../src/tool-calls/tool-call-keys.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The tool-call key stores at their edges (issue 32 item 8), both of them, directly: a key
 * released between a claim's insert and its read is claimed again, a key finished by hand
 * (no result kept) answers done, any output comes back as it was kept; and the in-memory
 * store (unit tests, benchmarks) keeps the same rules: done or release of a key nobody
 * claimed changes nothing, a finished key is never released, and only the user's keys
 * created before the cut-off are forgotten, not one made at it.
 */
const at = new Date('2030-02-01T09:00:00Z');
const call = (key: string, fields: Partial<ClaimedCall> = {}): ClaimedCall => ({ key, userId: 'user_1', scope: 'm', turnId: 't', stepId: 's', tool: 'book', at, ...fields });

describe('tool-call keys on Postgres, at the edges', () => {
  let database: TestDatabase;
  let store: PrismaToolCallKeys;
  let userId: string;

  beforeAll(async () => {
    database = await createTestDatabase(4);
    store = new PrismaToolCallKeys(database.prisma);
    userId = (await database.prisma.user.create({ data: { phone: '+14155557481', timezone: 'UTC', updatedAt: at } })).id;
  });
  afterAll(async () => {
    await database?.drop();
  });
  const claimed = (key: string) => call(key, { userId });

  it('a key released between the claim’s insert and its read (the call failed) is claimed again, not misread', async () => {
    await store.claim(claimed('released'));
    // The holder's failed call releases the key just as this claim comes to read it.
    let released = false;
    const extension = {
      query: {
        toolCallKey: {
          async findUnique({ args, query }: { args: unknown; query: (args: unknown) => Promise<unknown> }) {
            if (!released) {
              released = true;
              await store.release('released');
            }
            return query(args);
          },
        },
      },
    } as unknown as Parameters<PrismaClient['$extends']>[0];
    const racing = new PrismaToolCallKeys(database.prisma.$extends(extension) as unknown as PrismaClient);
    expect(await racing.claim(claimed('released'))).toEqual({ kind: 'claimed' });
    expect(released).toBe(true);
    expect(await database.prisma.toolCallKey.findUniqueOrThrow({ where: { key: 'released' } })).toMatchObject({ finishedAt: null, result: null });
  });

  it('a key an operator marked finished by hand, with no result kept, answers done with nothing', async () => {
    await store.claim(claimed('by-hand'));
    await database.prisma.toolCallKey.update({ where: { key: 'by-hand' }, data: { finishedAt: at } });
    expect(await store.claim(claimed('by-hand'))).toEqual({ kind: 'done', result: undefined });
  });

  it('gives back a kept output as it was: an object, a list, a number, false', async () => {
    for (const [key, output] of [
      ['object', { id: 'evt_1', when: '09:00' }],
      ['list', [1, 2]],
      ['number', 0],
      ['false', false],
    ] as const) {
      await store.claim(claimed(key));
      await store.done(key, output, at);
      expect(await store.claim(claimed(key))).toEqual({ kind: 'done', result: output });
    }
    expect((await database.prisma.toolCallKey.findUniqueOrThrow({ where: { key: 'object' } })).result).toEqual({ output: { id: 'evt_1', when: '09:00' } });
  });
});

describe('tool-call keys in memory', () => {
  it('a first claim claims; a second finds it started; once done, its result', async () => {
    const store = new InMemoryToolCallKeys();
    expect(await store.claim(call('a'))).toEqual({ kind: 'claimed' });
    expect(await store.claim(call('a'))).toEqual({ kind: 'started' });
    await store.done('a', { id: 1 }, at);
    expect(await store.claim(call('a'))).toEqual({ kind: 'done', result: { id: 1 } });
    expect(store.rows.get('a')).toMatchObject({ key: 'a', tool: 'book', finishedAt: at, result: { id: 1 } });
  });

  it('done for a key nobody claimed records nothing: a later claim is still the first', async () => {
    const store = new InMemoryToolCallKeys();
    await store.done('never', { id: 2 }, at);
    expect(store.rows.has('never')).toBe(false);
    expect(await store.claim(call('never'))).toEqual({ kind: 'claimed' });
  });

  it('release frees a started key, keeps a finished one, and ignores one nobody claimed', async () => {
    const store = new InMemoryToolCallKeys();
    await store.claim(call('started'));
    await store.release('started');
    expect(await store.claim(call('started'))).toEqual({ kind: 'claimed' });
    await store.claim(call('finished'));
    await store.done('finished', 'ok', at);
    await store.release('finished');
    expect(await store.claim(call('finished'))).toEqual({ kind: 'done', result: 'ok' });
    await expect(store.release('unknown')).resolves.toBeUndefined();
    expect([...store.rows.keys()].sort()).toEqual(['finished', 'started']);
  });

  it('forgets only the user’s keys created before the cut-off: not one made at it, not another user’s', async () => {
    const store = new InMemoryToolCallKeys();
    await store.claim(call('old', { at: new Date(at.getTime() - 1) }));
    await store.claim(call('edge', { at }));
    await store.claim(call('other', { userId: 'user_2', at: new Date(at.getTime() - 1) }));
    await store.forget('user_1', at);
    expect([...store.rows.keys()].sort()).toEqual(['edge', 'other']);
    expect(await store.claim(call('old'))).toEqual({ kind: 'claimed' });
    expect(await store.claim(call('edge'))).toEqual({ kind: 'started' });
  });
});
