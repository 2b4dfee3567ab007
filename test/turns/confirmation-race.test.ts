import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionRunner } from '../../src/questions/action-runner.js';
import type { PendingAction } from '../../src/questions/pending-action.js';
import type { PrismaClient } from '../../src/db/prisma-types.js';
import type { Message } from '../../src/generated/prisma/client.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { confirmationQuestion } from '../../src/questions/pending-question.js';
import { PendingQuestions, type LatestQuestion } from '../../src/questions/pending-questions.js';
import { ManualClock } from '../../src/shared/clock.js';
import { SequentialIds } from '../../src/shared/ids.js';
import { defineTool, ok, type ToolDefinition } from '../../src/tools/tool.js';
import { confirmationAnswer } from '../../src/turns/answers/confirmation-answer.js';
import type { IncomingTurn } from '../../src/turns/answers/turn-answer.js';
import { withReadBarrier } from '../helpers/read-barrier.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The claim of a pending confirmation, as a race (docs/ARCHITECTURE.md "The orchestrator", step 6: YES runs the held
 * actions exactly once). In a real turn the per-user lease serialises two answers before
 * the claim is ever contended; here two answers meet directly, both having read the question
 * as pending, and only the atomic claim stands between the action and a second run.
 */
describe('the YES/NO answer: two answers to one pending confirmation at once', () => {
  let database: TestDatabase;
  const clock = new ManualClock('2026-03-02T15:00:00Z');
  const TTL_MS = 10 * 60_000;
  // One id generator for the file: questions' short ids are unique across users.
  const ids = new SequentialIds();
  let counter = 0;

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

  /** The answer over a client whose reads of pending questions wait until `parties` of them happened. */
  function racing(tool: ToolDefinition, parties: number) {
    const prisma: PrismaClient = withReadBarrier(database.prisma, 'pendingQuestion', 'findMany', parties);
    const questions = new PendingQuestions(prisma, clock, ids, TTL_MS);
    const runner = new ActionRunner((agent, name) => (agent === 'lists-agent' && name === tool.name ? tool : undefined), clock, createSilentLogger());
    return { questions, answer: confirmationAnswer({ questions, runner, clock }) };
  }

  /** A user with one pending confirmation of `actions`, staged as a turn's commit stages it. */
  async function pending(questions: PendingQuestions, actions: PendingAction[]): Promise<string> {
    counter += 1;
    const user = await database.prisma.user.create({ data: { phone: `+1415555${String(7100 + counter)}`, timezone: 'UTC', updatedAt: clock.now() } });
    const question = actions.map((action) => action.question).join(' ');
    await database.prisma.$transaction((transaction) => questions.stage(transaction, { userId: user.id, channel: 'sms' }, [confirmationQuestion({ actions, question })]));
    return user.id;
  }

  /** One inbound message answering, as the turn runner hands it to the answers. */
  async function turnFor(userId: string, text: string, questions: PendingQuestions): Promise<IncomingTurn> {
    const message = await database.prisma.message.create({ data: { userId, role: 'user', content: text, channel: 'sms', tokenCount: 1, inboundStatus: 'pending' } });
    let read: Promise<LatestQuestion[]> | undefined;
    return {
      turnId: message.id,
      user: { id: userId, phone: '+14155550000', name: null, timezone: 'UTC', timezoneSource: 'user', timezoneAskedAt: null, language: null, optedOut: false, isNew: false, quietHours: null },
      batch: [message as Message],
      latest: message as Message,
      channel: 'sms',
      text,
      keyword: undefined,
      command: undefined,
      carriesMedia: false,
      language: 'en',
      logger: createSilentLogger(),
      questions: () => (read ??= questions.latest(userId)),
    };
  }

  const removeMilk: PendingAction = { agent: 'lists-agent', tool: 'remove_item', input: { item: 'milk' }, question: 'Remove "milk"?', done: 'Removed "milk".' };

  it('two YES that both read it as pending run the action once; the other is told it is being done or done', async () => {
    const { tool, runs } = countingTool();
    const { questions, answer } = racing(tool, 2);
    const userId = await pending(questions, [removeMilk]);

    const outcomes = await Promise.all([answer.answer(await turnFor(userId, 'yes', questions)), answer.answer(await turnFor(userId, 'YES', questions))]);

    expect(runs).toEqual([{ item: 'milk' }]);
    const replies = outcomes.map((outcome) => outcome?.reply);
    expect(replies.filter((reply) => reply === 'Removed "milk".')).toHaveLength(1);
    // The loser met a question claimed (still running, or just done): never a second "Removed".
    const other = replies.find((reply) => reply !== 'Removed "milk".');
    expect(['I started that earlier but can\'t tell whether it finished. Please check, and ask again if needed.', 'That is already done.']).toContain(other);
    const [row] = await database.prisma.pendingQuestion.findMany({ where: { userId } });
    expect(row).toMatchObject({ status: 'done', outcome: [{ tool: 'remove_item', ok: true }] });
  });

  it('a YES and a NO at once: whichever claims it decides, and neither answer says otherwise', async () => {
    const { tool, runs } = countingTool();
    const { questions, answer } = racing(tool, 2);
    const userId = await pending(questions, [removeMilk]);

    const [yes, no] = await Promise.all([answer.answer(await turnFor(userId, 'yes', questions)), answer.answer(await turnFor(userId, 'no', questions))]);

    const [row] = await database.prisma.pendingQuestion.findMany({ where: { userId } });
    if (row!.status === 'cancelled') {
      // The NO took it: nothing ran, and the YES is told it was called off.
      expect(runs).toEqual([]);
      expect([yes?.reply, no?.reply]).toEqual(["OK, I won't do that.", "OK, I won't do that."]);
    } else {
      // The YES took it: it ran once, and the NO is not told "I won't do that".
      expect(row!.status).toBe('done');
      expect(runs).toEqual([{ item: 'milk' }]);
      expect(yes?.reply).toBe('Removed "milk".');
      expect(no?.reply).not.toBe("OK, I won't do that.");
    }
  });

  it('three YES at once, on a confirmation of two actions: each action runs once, in order', async () => {
    const { tool, runs } = countingTool();
    const { questions, answer } = racing(tool, 3);
    const removeEggs: PendingAction = { ...removeMilk, input: { item: 'eggs' }, question: 'Remove "eggs"?', done: 'Removed "eggs".' };
    const userId = await pending(questions, [removeMilk, removeEggs]);

    const turns = [await turnFor(userId, 'yes', questions), await turnFor(userId, 'Yes!', questions), await turnFor(userId, 'ok', questions)];
    const outcomes = await Promise.all(turns.map((turn) => answer.answer(turn)));

    expect(runs).toEqual([{ item: 'milk' }, { item: 'eggs' }]);
    expect(outcomes.filter((outcome) => outcome?.reply === 'Removed "milk".\nRemoved "eggs".')).toHaveLength(1);
  });
});
