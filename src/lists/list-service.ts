import type { List, ListItem, Prisma } from '../generated/prisma/client.js';
import type { PrismaClient, PrismaExecutor } from '../db/prisma-types.js';
import { lockUserRows } from '../db/user-lock.js';
import type { Clock } from '../shared/clock.js';

/** A list as tools show it. */
export interface ListView {
  name: string;
  items: Array<{ text: string; checked: boolean }>;
}

/** An expected failure, worded for the model (often: ask the user); `lists`: the user's lists, when it is unclear which one is meant. */
export type ListResult<Value> = { ok: true; value: Value } | { ok: false; error: string; lists?: string[] };

/** What a batch change did, per kind, for the verifier; plus what it could not find. */
export interface ListChange {
  list: ListView;
  effects: { created: number; updated: number; deleted: number };
  notFound: string[];
  alreadyThere: string[];
  /** Names that loosely matched several items ("egg": "eggs", "eggplant"): left alone, ask which. */
  ambiguous?: Array<{ name: string; matches: string[] }>;
}

const MAX_ITEMS_PER_LIST = 500;
const MAX_LISTS = 100;

/** "Shopping List " → "shopping". */
export function normalizeListName(name: string): string {
  return name
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/\b(?:list|the|my)\b/g, '')
    .replace(/(?:^|\s)רשימת\s*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function normalizeItem(text: string): string {
  return text.toLowerCase().replace(/[\p{P}\p{S}]+/gu, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * Named lists per user (seed 003's list resolver): "add milk" goes to the only list, or
 * asks which when there are several; items are matched by name, ignoring case.
 */
export class ListService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
  ) {}

  async lists(userId: string, name?: string): Promise<ListResult<ListView[]>> {
    const lists = await this.prisma.list.findMany({ where: { userId }, include: { items: { orderBy: { position: 'asc' } } }, orderBy: { createdAt: 'asc' } });
    if (!name) return { ok: true, value: lists.map(toView) };
    const wanted = normalizeListName(name);
    const found = lists.filter((list) => list.normalizedName === wanted);
    if (found.length === 0) return { ok: false, error: `There is no "${name}" list. Lists: ${lists.map((list) => list.name).join(', ') || 'none'}.` };
    return { ok: true, value: found.map(toView) };
  }

  async createList(userId: string, name: string): Promise<ListResult<{ effect: 'created' | 'unchanged'; list: ListView }>> {
    const existing = await this.findByName(this.prisma, userId, name);
    if (existing) return { ok: true, value: { effect: 'unchanged', list: toView(existing) } };
    const created = await this.prisma.$transaction(async (transaction) => {
      await lockUserRows(transaction, 'list', userId);
      return this.createRow(transaction, userId, name);
    });
    return created.ok ? { ok: true, value: { effect: created.value.created ? 'created' : 'unchanged', list: toView(created.value) } } : created;
  }

  /**
   * Creates the list row at `now`, or returns the one of that name made meanwhile (`created`
   * says which). Only in a transaction holding the user's list lock ({@link lockUserRows}), so
   * the count of lists is the one the insert lands on. A list made here is known to be empty
   * and is not read back.
   */
  private async createRow(transaction: Prisma.TransactionClient, userId: string, name: string, now = this.clock.now()): Promise<ListResult<List & { items: ListItem[]; created: boolean }>> {
    const existing = await this.findByName(transaction, userId, name);
    if (existing) return { ok: true, value: { ...existing, created: false } };
    if ((await transaction.list.count({ where: { userId } })) >= MAX_LISTS) return { ok: false, error: `The user already has ${MAX_LISTS} lists; ask them to delete one first.` };
    const normalizedName = normalizeListName(name) || name.trim().toLowerCase();
    const list = await transaction.list.create({ data: { userId, name: name.trim(), normalizedName, createdAt: now, updatedAt: now } });
    return { ok: true, value: { ...list, items: [], created: true } };
  }

  async deleteList(userId: string, name: string): Promise<ListResult<{ effect: 'deleted'; list: ListView }>> {
    const resolved = await this.resolve(this.prisma, userId, name);
    if (!resolved.ok) return resolved;
    await this.prisma.list.delete({ where: { id: resolved.value.id } });
    return { ok: true, value: { effect: 'deleted', list: toView(resolved.value) } };
  }

  /**
   * Adds items (skipping ones already unchecked on the list); a named list that does not exist
   * is created. The list is found (or made), its items read, and the new ones written in one
   * transaction under the user's list lock: steps adding at once never pass a limit together,
   * nor add the same item twice.
   */
  async addItems(userId: string, listName: string | undefined, items: string[]): Promise<ListResult<ListChange & { listCreated: boolean }>> {
    const now = this.clock.now();
    return this.prisma.$transaction(async (transaction): Promise<ListResult<ListChange & { listCreated: boolean }>> => {
      await lockUserRows(transaction, 'list', userId);
      const resolved: ListResult<List & { items: ListItem[]; created?: boolean }> = listName
        ? await this.createRow(transaction, userId, listName, now)
        : await this.resolve(transaction, userId, undefined);
      if (!resolved.ok) return resolved;
      const list = resolved.value;
      const listCreated = list.created === true;
      const present = new Set(list.items.filter((item) => !item.checked).map((item) => normalizeItem(item.text)));
      const fresh: string[] = [];
      const alreadyThere: string[] = [];
      for (const raw of items) {
        const text = raw.trim();
        const key = normalizeItem(text);
        if (!key) continue;
        if (present.has(key)) alreadyThere.push(text);
        else {
          present.add(key);
          fresh.push(text);
        }
      }
      if (list.items.length + fresh.length > MAX_ITEMS_PER_LIST) return { ok: false, error: `The ${list.name} list would have more than ${MAX_ITEMS_PER_LIST} items. Nothing was added.` };
      const start = list.items.reduce((highest, item) => Math.max(highest, item.position), -1) + 1;
      if (fresh.length > 0) {
        await transaction.listItem.createMany({ data: fresh.map((text, index) => ({ listId: list.id, text, position: start + index, createdAt: now, updatedAt: now })) });
        // A list made by this call already has updatedAt = now.
        if (!listCreated) await transaction.list.update({ where: { id: list.id }, data: { updatedAt: now } });
      }
      const view: ListView = { name: list.name, items: [...list.items.map((item) => ({ text: item.text, checked: item.checked })), ...fresh.map((text) => ({ text, checked: false }))] };
      return { ok: true, value: { list: view, effects: { created: fresh.length, updated: 0, deleted: 0 }, notFound: [], alreadyThere, listCreated } };
    });
  }

  /** Checks (or unchecks) items by name. */
  async checkItems(userId: string, listName: string | undefined, items: string[], checked: boolean): Promise<ListResult<ListChange>> {
    const resolved = await this.resolve(this.prisma, userId, listName);
    if (!resolved.ok) return resolved;
    const { matched, notFound, ambiguous } = matchItems(resolved.value.items, items);
    const toChange = matched.filter((item) => item.checked !== checked);
    await this.prisma.listItem.updateMany({ where: { id: { in: toChange.map((item) => item.id) } }, data: { checked, updatedAt: this.clock.now() } });
    return {
      ok: true,
      value: { list: await this.view(resolved.value.id), effects: { created: 0, updated: toChange.length, deleted: 0 }, notFound, alreadyThere: [], ...(ambiguous.length > 0 ? { ambiguous } : {}) },
    };
  }

  /** Removes items by name. */
  async removeItems(userId: string, listName: string | undefined, items: string[]): Promise<ListResult<ListChange>> {
    const resolved = await this.resolve(this.prisma, userId, listName);
    if (!resolved.ok) return resolved;
    const { matched, notFound, ambiguous } = matchItems(resolved.value.items, items);
    await this.prisma.listItem.deleteMany({ where: { id: { in: matched.map((item) => item.id) } } });
    return {
      ok: true,
      value: { list: await this.view(resolved.value.id), effects: { created: 0, updated: 0, deleted: matched.length }, notFound, alreadyThere: [], ...(ambiguous.length > 0 ? { ambiguous } : {}) },
    };
  }

  /**
   * The items of a list a bulk change would touch: every one (`all`), those whose text
   * contains the words of `match`, or only those already ticked (`checkedOnly`).
   */
  async selectItems(userId: string, listName: string | undefined, which: { match?: string | undefined; all?: boolean | undefined; checkedOnly?: boolean | undefined }): Promise<ListResult<{ list: string; items: Array<{ id: string; text: string; checked: boolean }> }>> {
    const resolved = await this.resolve(this.prisma, userId, listName);
    if (!resolved.ok) return resolved;
    const words = which.match ? normalizeItem(which.match).split(' ').filter(Boolean) : [];
    const items = resolved.value.items.filter((item) => {
      if (which.checkedOnly && !item.checked) return false;
      if (words.length > 0) return words.every((word) => ` ${normalizeItem(item.text)} `.includes(word));
      return which.all === true || which.checkedOnly === true;
    });
    return { ok: true, value: { list: resolved.value.name, items: items.map((item) => ({ id: item.id, text: item.text, checked: item.checked })) } };
  }

  /** Removes, or ticks (`checked`), exactly these items of the user's lists; how many changed. */
  async changeItemsById(userId: string, itemIds: string[], change: { remove: true } | { checked: boolean }): Promise<number> {
    const where = { id: { in: itemIds }, list: { userId } };
    if ('remove' in change) return (await this.prisma.listItem.deleteMany({ where })).count;
    return (await this.prisma.listItem.updateMany({ where: { ...where, checked: !change.checked }, data: { checked: change.checked, updatedAt: this.clock.now() } })).count;
  }

  /** The id of the user's list with this name (a page binds its checklist to it). */
  async findList(userId: string, name: string): Promise<ListResult<{ id: string; name: string }>> {
    const found = await this.findByName(this.prisma, userId, name);
    if (found) return { ok: true, value: { id: found.id, name: found.name } };
    const names = await this.prisma.list.findMany({ where: { userId }, select: { name: true }, orderBy: { createdAt: 'asc' } });
    return { ok: false, error: `There is no "${name}" list. Lists: ${names.map((list) => list.name).join(', ') || 'none'}.` };
  }

  /** A list's items with their ids, in order; undefined when the user has no such list. */
  async items(userId: string, listId: string): Promise<Array<{ id: string; text: string; checked: boolean }> | undefined> {
    const list = await this.prisma.list.findFirst({
      where: { id: listId, userId },
      select: { items: { orderBy: { position: 'asc' }, select: { id: true, text: true, checked: true } } },
    });
    return list?.items;
  }

  /**
   * Checks (or unchecks) one item by id, the way a page's tick does: the same change as
   * "check off milk", without matching names. The item must be on one of `listIds` and
   * those lists the user's own; otherwise nothing changes and an error says so.
   */
  async setItemChecked(userId: string, listIds: string[], itemId: string, checked: boolean): Promise<ListResult<{ effect: 'updated' | 'unchanged'; listId: string; item: { text: string; checked: boolean } }>> {
    const item = await this.prisma.listItem.findFirst({ where: { id: itemId, listId: { in: listIds }, list: { userId } }, select: { id: true, listId: true, text: true, checked: true } });
    if (!item) return { ok: false, error: 'There is no such item on this list. Nothing was changed.' };
    if (item.checked === checked) return { ok: true, value: { effect: 'unchanged', listId: item.listId, item: { text: item.text, checked } } };
    await this.prisma.listItem.update({ where: { id: item.id }, data: { checked, updatedAt: this.clock.now() } });
    return { ok: true, value: { effect: 'updated', listId: item.listId, item: { text: item.text, checked } } };
  }

  private findByName(db: PrismaExecutor, userId: string, name: string) {
    return db.list.findUnique({ where: { userId_normalizedName: { userId, normalizedName: normalizeListName(name) || name.trim().toLowerCase() } }, include: { items: { orderBy: { position: 'asc' } } } });
  }

  /** The named list, or the only list when no name is given; otherwise an error asking which. */
  private async resolve(db: PrismaExecutor, userId: string, name: string | undefined): Promise<ListResult<List & { items: ListItem[] }>> {
    if (name) {
      const found = await this.findByName(db, userId, name);
      if (found) return { ok: true, value: found };
    }
    const lists = await db.list.findMany({ where: { userId }, include: { items: { orderBy: { position: 'asc' } } }, orderBy: { createdAt: 'asc' } });
    if (name) return { ok: false, error: `There is no "${name}" list. Lists: ${lists.map((list) => list.name).join(', ') || 'none'}. Nothing was changed.` };
    if (lists.length === 1) return { ok: true, value: lists[0]! };
    if (lists.length === 0) return { ok: false, error: 'The user has no lists yet. Nothing was changed; ask which list to put it on (e.g. "shopping").' };
    return { ok: false, lists: lists.map((list) => list.name), error: `The user has several lists (${lists.map((list) => list.name).join(', ')}). Nothing was changed; Herald asks the user which one (complete with needsClarification).` };
  }

  private async view(listId: string): Promise<ListView> {
    return toView(await this.prisma.list.findUniqueOrThrow({ where: { id: listId }, include: { items: { orderBy: { position: 'asc' } } } }));
  }
}

/**
 * Items named by `wanted`: every item with exactly that name, else the one item whose
 * name contains it or is contained in it. A name that loosely fits several items
 * ("egg": "eggs" and "eggplant") matches none of them and is reported as ambiguous, and a
 * name with no letters matches nothing: a vague word never checks off or removes a batch.
 */
function matchItems(items: ListItem[], wanted: string[]): { matched: ListItem[]; notFound: string[]; ambiguous: Array<{ name: string; matches: string[] }> } {
  const matched = new Map<string, ListItem>();
  const notFound: string[] = [];
  const ambiguous: Array<{ name: string; matches: string[] }> = [];
  for (const name of wanted) {
    const key = normalizeItem(name);
    if (!key) {
      notFound.push(name);
      continue;
    }
    const exact = items.filter((item) => normalizeItem(item.text) === key);
    const loose = exact.length > 0 ? exact : items.filter((item) => normalizeItem(item.text).includes(key) || key.includes(normalizeItem(item.text)));
    if (loose.length === 0) notFound.push(name);
    else if (exact.length === 0 && new Set(loose.map((item) => normalizeItem(item.text))).size > 1) ambiguous.push({ name, matches: loose.map((item) => item.text) });
    else for (const item of loose) matched.set(item.id, item);
  }
  return { matched: [...matched.values()], notFound, ambiguous };
}

function toView(list: List & { items: ListItem[] }): ListView {
  return { name: list.name, items: list.items.map((item) => ({ text: item.text, checked: item.checked })) };
}
