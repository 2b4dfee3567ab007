import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfirmationService } from '../../src/confirmations/confirmation-service.js';
import type { PendingAction } from '../../src/confirmations/pending-action.js';
import type { PrismaClient } from '../../src/db/prisma-types.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { ManualClock } from '../../src/shared/clock.js';
import { defineTool, ok, type ToolDefinition } from '../../src/tools/tool.js';
import { withReadBarrier } from '../helpers/read-barrier.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The claim of a pending confirmation, as a race (DESIGN.md step 6: YES runs the held
 * actions exactly once). In a real turn the per-user lease serialises two answers before
 * the claim is ever contended; here two respond() calls meet directly, both having read the
 * row as pending, and only the atomic claim stands between the action and a second run.
 */
describe('ConfirmationService: two answers to one pending confirmation at once', () => {
  let database: TestDatabase;
  const clock = new ManualClock('2026-03-02T15:00:00Z');
  const TTL_MS = 10 * 60_000;
  let phoneCounter = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  /** A held action that counts its runs. */
  function countingTool(): { tool: ToolDefinition; runs: Array<{ item: string }> } {
    const runs: Array<{ item: string }> = [];
    const tool = defineTool({
      name: 'remove_item',
      description: 'Removes an item',
      inputSchema: z.object({ item: z.string() }),
      mutates: true,
      run: async (input) => {
        runs.push(input);
        return ok({ removed: input.item });
      },
    });
    return { tool, runs };
  }

  /** A user with one pending confirmation of `actions`, staged as a turn stages it. */
  async function pending(service: ConfirmationService, actions: PendingAction[]): Promise<string> {
    phoneCounter += 1;
    const user = await database.prisma.user.create({ data: { phone: `+1415555${String(7100 + phoneCounter)}`, timezone: 'UTC', updatedAt: new Date() } });
    const turn = await database.prisma.turn.create({ data: { userId: user.id, startedAt: clock.now() } });
    await database.prisma.$transaction((transaction) => service.stage(transaction, user.id, turn.id, { actions, question: actions.map((action) => action.question).join(' ') }));
    return user.id;
  }

  /** The service, over a client whose reads of pending confirmations wait for each other. */
  function racing(tool: ToolDefinition, prisma: PrismaClient = withReadBarrier(database.prisma, 'pendingConfirmation', 'findFirst', 2)) {
    return new ConfirmationService(prisma, (agent, name) => (agent === 'lists-agent' && name === tool.name ? tool : undefined), clock, createSilentLogger(), TTL_MS);
  }

  const removeMilk: PendingAction = { agent: 'lists-agent', tool: 'remove_item', input: { item: 'milk' }, question: 'Remove "milk"?', done: 'Removed "milk".' };

  it('two YES that both read it as pending run the action once; the other is told it is being done', async () => {
    const { tool, runs } = countingTool();
    const service = racing(tool);
    const userId = await pending(service, [removeMilk]);
    const turn = (text: string) => ({ userId, timezone: 'UTC', language: null, text });

    const outcomes = await Promise.all([service.respond(turn('yes')), service.respond(turn('YES'))]);

    expect(runs).toEqual([{ item: 'milk' }]);
    const replies = outcomes.map((outcome) => outcome?.reply);
    expect(replies.filter((reply) => reply === 'Removed "milk".')).toHaveLength(1);
    // The loser met a row claimed (still running, or just done): never a second "Removed".
    const other = outcomes[replies.indexOf('Removed "milk".') === 0 ? 1 : 0];
    expect(other?.reply).not.toBe('Removed "milk".');
    expect(other?.reply).toBeTruthy();
    const [row] = await database.prisma.pendingConfirmation.findMany({ where: { userId } });
    expect(row).toMatchObject({ status: 'done', outcome: [{ tool: 'remove_item', ok: true }] });
  });

  it('a YES and a NO at once: whichever claims it decides, and neither answer says otherwise', async () => {
    const { tool, runs } = countingTool();
    const service = racing(tool);
    const userId = await pending(service, [removeMilk]);
    const turn = (text: string) => ({ userId, timezone: 'UTC', language: null, text });

    const [yes, no] = await Promise.all([service.respond(turn('yes')), service.respond(turn('no'))]);

    const [row] = await database.prisma.pendingConfirmation.findMany({ where: { userId } });
    if (row!.status === 'cancelled') {
      // The NO claimed it: nothing ran, and the YES is told it was called off.
      expect(runs).toEqual([]);
      expect([yes?.reply, no?.reply]).toEqual(["OK, I won't do that.", "OK, I won't do that."]);
    } else {
      // The YES claimed it: it ran once, and the NO is not told "I won't do that".
      expect(row!.status).toBe('done');
      expect(runs).toEqual([{ item: 'milk' }]);
      expect(yes?.reply).toBe('Removed "milk".');
      expect(no?.reply).not.toBe("OK, I won't do that.");
    }
  });

  it('three YES at once, on a confirmation of two actions: each action runs once, in order', async () => {
    const { tool, runs } = countingTool();
    const service = racing(tool, withReadBarrier(database.prisma, 'pendingConfirmation', 'findFirst', 3));
    const removeEggs: PendingAction = { ...removeMilk, input: { item: 'eggs' }, question: 'Remove "eggs"?', done: 'Removed "eggs".' };
    const userId = await pending(service, [removeMilk, removeEggs]);
    const turn = (text: string) => ({ userId, timezone: 'UTC', language: null, text });

    const outcomes = await Promise.all([service.respond(turn('yes')), service.respond(turn('Yes!')), service.respond(turn('ok'))]);

    expect(runs).toEqual([{ item: 'milk' }, { item: 'eggs' }]);
    expect(outcomes.filter((outcome) => outcome?.reply === 'Removed "milk".\nRemoved "eggs".')).toHaveLength(1);
  });
});
