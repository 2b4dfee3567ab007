import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listTools } from '../../src/agents/lists/list-tools.js';
import type { ToolCallRecord } from '../../src/agents/tool-loop.js';
import { ListService, normalizeListName } from '../../src/lists/list-service.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { verifyClaims } from '../../src/orchestrator/verifier.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { ToolContext } from '../../src/tools/tool.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * Named lists (issue 4, seed 003's list resolver) on the real database: several items at
 * once, duplicates skipped, "add milk" to the only list or a question when there are
 * several, check off, remove, show, delete; and the verifier's view of what the batch
 * tools did.
 */
describe('ListService', () => {
  let database: TestDatabase;
  let lists: ListService;
  const clock = new ManualClock('2026-03-02T15:00:00Z');
  let userId: string;
  let counter = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    lists = new ListService(database.prisma, clock);
  });
  beforeEach(async () => {
    counter += 1;
    userId = (await database.prisma.user.create({ data: { phone: `+1415555${String(2000 + counter)}`, timezone: 'America/New_York', updatedAt: new Date() } })).id;
  });
  afterAll(async () => {
    await database.drop();
  });

  const items = async (name: string) => {
    const result = await lists.lists(userId, name);
    if (!result.ok) throw new Error(result.error);
    return result.value[0]!.items;
  };

  it('names lists loosely: "Shopping List", "my shopping list" and "shopping" are one list', async () => {
    expect(normalizeListName('Shopping List ')).toBe('shopping');
    expect(normalizeListName('my  shopping list')).toBe('shopping');
    expect(normalizeListName('רשימת קניות')).toBe('קניות');
    expect(await lists.createList(userId, 'Shopping List')).toMatchObject({ ok: true, value: { effect: 'created', list: { name: 'Shopping List', items: [] } } });
    expect(await lists.createList(userId, 'shopping')).toMatchObject({ ok: true, value: { effect: 'unchanged' } });
    expect(await database.prisma.list.count({ where: { userId } })).toBe(1);
  });

  it('adds several items in one call, skipping ones already on the list (ignoring case and punctuation)', async () => {
    await lists.createList(userId, 'shopping');
    const first = await lists.addItems(userId, 'shopping', ['milk', 'eggs', 'bread']);
    expect(first).toMatchObject({ ok: true, value: { effects: { created: 3, updated: 0, deleted: 0 }, alreadyThere: [], listCreated: false } });
    const second = await lists.addItems(userId, 'shopping', ['Milk!', 'butter', 'butter', '  ']);
    expect(second).toMatchObject({ ok: true, value: { effects: { created: 1 }, alreadyThere: ['Milk!', 'butter'] } });
    expect((await items('shopping')).map((item) => item.text)).toEqual(['milk', 'eggs', 'bread', 'butter']);
  });

  it('"add milk" with no list named goes to the only list', async () => {
    await lists.createList(userId, 'groceries');
    expect(await lists.addItems(userId, undefined, ['milk'])).toMatchObject({ ok: true, value: { list: { name: 'groceries', items: [{ text: 'milk', checked: false }] }, effects: { created: 1 } } });
  });

  it('"add milk" with several lists asks which, adding nothing; with none, asks which list to start', async () => {
    const none = await lists.addItems(userId, undefined, ['milk']);
    expect(none).toEqual({ ok: false, error: 'The user has no lists yet. Nothing was changed; ask which list to put it on (e.g. "shopping").' });
    await lists.createList(userId, 'shopping');
    await lists.createList(userId, 'packing');
    const several = await lists.addItems(userId, undefined, ['milk']);
    // The lists come with it: Herald asks the user which, numbered.
    expect(several).toEqual({ ok: false, lists: ['shopping', 'packing'], error: 'The user has several lists (shopping, packing). Nothing was changed; Herald asks the user which one (complete with needsClarification).' });
    expect(await database.prisma.listItem.count({ where: { list: { userId } } })).toBe(0);
  });

  it('adding to a named list that does not exist creates it', async () => {
    const added = await lists.addItems(userId, 'packing', ['passport', 'charger']);
    expect(added).toMatchObject({ ok: true, value: { listCreated: true, effects: { created: 2 }, list: { name: 'packing' } } });
  });

  it('checks items off by name, and unchecks them; counts only real changes', async () => {
    await lists.addItems(userId, 'shopping', ['milk', 'eggs', 'bread']);
    expect(await lists.checkItems(userId, undefined, ['Eggs', 'bread'], true)).toMatchObject({ ok: true, value: { effects: { updated: 2 }, notFound: [] } });
    expect(await lists.checkItems(userId, undefined, ['eggs', 'jam'], true)).toMatchObject({ ok: true, value: { effects: { updated: 0 }, notFound: ['jam'] } });
    expect((await items('shopping')).map((item) => [item.text, item.checked])).toEqual([
      ['milk', false],
      ['eggs', true],
      ['bread', true],
    ]);
    expect(await lists.checkItems(userId, 'shopping', ['bread'], false)).toMatchObject({ ok: true, value: { effects: { updated: 1 } } });
    // A checked-off item added again is a new thing to buy.
    expect(await lists.addItems(userId, undefined, ['eggs'])).toMatchObject({ ok: true, value: { effects: { created: 1 } } });
  });

  it('removes items by name; a partial name that fits one item finds it', async () => {
    await lists.addItems(userId, 'shopping', ['oat milk', 'eggs', 'bread']);
    const removed = await lists.removeItems(userId, 'shopping', ['milk', 'bread', 'caviar']);
    expect(removed).toMatchObject({ ok: true, value: { effects: { deleted: 2 }, notFound: ['caviar'] } });
    expect((await items('shopping')).map((item) => item.text)).toEqual(['eggs']);
  });

  it('a name that loosely fits several items, or has no letters at all, changes nothing', async () => {
    await lists.addItems(userId, 'shopping', ['eggs', 'eggplant', 'milk']);
    const vague = await lists.removeItems(userId, 'shopping', ['egg']);
    expect(vague).toMatchObject({ ok: true, value: { effects: { deleted: 0 }, ambiguous: [{ name: 'egg', matches: ['eggs', 'eggplant'] }] } });
    const empty = await lists.removeItems(userId, 'shopping', ['!!!']);
    expect(empty).toMatchObject({ ok: true, value: { effects: { deleted: 0 }, notFound: ['!!!'] } });
    expect(await lists.checkItems(userId, 'shopping', ['…'], true)).toMatchObject({ ok: true, value: { effects: { updated: 0 } } });
    expect((await items('shopping')).map((item) => [item.text, item.checked])).toEqual([
      ['eggs', false],
      ['eggplant', false],
      ['milk', false],
    ]);
    // The exact name still picks its item.
    expect(await lists.removeItems(userId, 'shopping', ['eggs'])).toMatchObject({ ok: true, value: { effects: { deleted: 1 } } });
  });

  it('shows lists; get_lists says isEmpty when there is nothing on them', async () => {
    const tools = Object.fromEntries(listTools(lists).map((tool) => [tool.name, tool]));
    const context = toolContext(userId);
    expect(await tools.get_lists!.run({}, context)).toEqual({ isError: false, output: { lists: [], isEmpty: true } });
    await lists.createList(userId, 'packing');
    expect(await tools.get_lists!.run({ name: 'packing' }, context)).toEqual({ isError: false, output: { lists: [{ name: 'packing', items: [] }], isEmpty: true } });
    await lists.addItems(userId, 'shopping', ['milk']);
    expect(await tools.get_lists!.run({}, context)).toEqual({
      isError: false,
      output: { lists: [{ name: 'packing', items: [] }, { name: 'shopping', items: [{ text: 'milk', checked: false }] }], isEmpty: false },
    });
    expect(await tools.get_lists!.run({ name: 'groceries' }, context)).toEqual({ isError: true, error: 'There is no "groceries" list. Lists: packing, shopping.' });
  });

  it('deletes a list with its items; a list that does not exist is an error that changes nothing', async () => {
    await lists.addItems(userId, 'packing', ['passport']);
    await lists.addItems(userId, 'shopping', ['milk']);
    expect(await lists.deleteList(userId, 'camping')).toMatchObject({ ok: false });
    expect(await lists.deleteList(userId, 'the packing list')).toMatchObject({ ok: true, value: { effect: 'deleted', list: { name: 'packing' } } });
    expect(await database.prisma.list.findMany({ where: { userId }, select: { name: true } })).toEqual([{ name: 'shopping' }]);
    expect(await database.prisma.listItem.count({ where: { list: { userId } } })).toBe(1);
  });

  it('keeps each user\'s lists apart', async () => {
    await lists.addItems(userId, 'shopping', ['milk']);
    const other = await database.prisma.user.create({ data: { phone: '+14155559999', timezone: 'UTC', updatedAt: new Date() } });
    expect(await lists.lists(other.id)).toEqual({ ok: true, value: [] });
    expect(await lists.removeItems(other.id, 'shopping', ['milk'])).toMatchObject({ ok: false });
    expect(await items('shopping')).toHaveLength(1);
  });

  describe('the verifier, given what the list tools really did', () => {
    async function run(name: string, input: unknown): Promise<ToolCallRecord> {
      const tool = listTools(lists).find((candidate) => candidate.name === name)!;
      const parsed = tool.inputSchema.parse(input);
      const result = await tool.run(parsed, toolContext(userId));
      return { name, input: parsed, mutates: tool.mutates, isError: result.isError, result: result.isError ? result.error : result.output };
    }
    const claim = (count: number) => ({ summary: 'Added', created: Array.from({ length: count }, (_, index) => ({ description: `item ${index + 1}` })) });

    it('accepts an add of 3 items claimed as 3 created, and rejects a claim of 4', async () => {
      await lists.createList(userId, 'shopping');
      const calls = [await run('add_list_items', { items: ['milk', 'eggs', 'bread'] })];
      expect(verifyClaims(claim(3), calls)).toBeUndefined();
      expect(verifyClaims(claim(4), calls)).toBe('The report does not match what was done: claimed 4 created but 3 tool call(s) actually created something.');
    });

    it('counts only what was added: duplicates skipped are not "created"', async () => {
      await lists.addItems(userId, 'shopping', ['milk']);
      const calls = [await run('add_list_items', { list: 'shopping', items: ['milk', 'eggs'] })];
      expect(verifyClaims(claim(1), calls)).toBeUndefined();
      expect(verifyClaims(claim(2), calls)).toMatch(/claimed 2 created but 1/);
    });

    it('a refused add counts for nothing; check and remove count as updated and deleted', async () => {
      await lists.createList(userId, 'shopping');
      await lists.createList(userId, 'packing');
      const refused = [await run('add_list_items', { items: ['milk'] })];
      expect(refused[0]?.isError).toBe(true);
      expect(verifyClaims(claim(1), refused)).toMatch(/claimed 1 created but 0/);
      await lists.addItems(userId, 'shopping', ['milk', 'eggs']);
      const changes = [await run('check_list_items', { list: 'shopping', items: ['milk'] }), await run('remove_list_items', { list: 'shopping', items: ['eggs'] })];
      expect(verifyClaims({ summary: 'Done', updated: [{ description: 'milk' }], deleted: [{ description: 'eggs' }] }, changes)).toBeUndefined();
      expect(verifyClaims({ summary: 'Done', updated: [{ description: 'milk' }, { description: 'eggs' }] }, changes)).toBeDefined();
    });
  });

  function toolContext(user: string): ToolContext {
    return { userId: user, timezone: 'America/New_York', clock, logger: createSilentLogger() };
  }
});
