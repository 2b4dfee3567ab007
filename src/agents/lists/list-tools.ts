import { z } from 'zod';
import type { ListResult, ListService } from '../../lists/list-service.js';
import { defineTool, ok, toolError, type ToolDefinition, type ToolResult } from '../../tools/tool.js';
import { BULK_MAX_ITEMS, bulkQuestion, bulkTooMany, toolLanguage, type BulkPage } from '../../tools/bulk-change.js';
import { say } from '../../texts/texts.js';

const listName = z.string().trim().min(1).max(80).optional().describe('The list\'s name ("shopping"); omit to use the only list');
const items = z.array(z.string().trim().min(1).max(200)).min(1).max(100);

/**
 * A service result as the model reads it. When it is unclear which list is meant, or a
 * name fits several items ("egg": eggs, eggplant), Herald itself asks "Which one?",
 * numbered: each candidate carries this call's arguments pinned to it.
 */
function asToolResult<Value>(result: ListResult<Value>, call?: Record<string, unknown>): ToolResult {
  if (!result.ok) {
    const choice = call && result.lists?.length ? { candidates: result.lists.map((name) => ({ label: name, input: { ...call, list: name } })) } : undefined;
    return toolError(result.error, { choice });
  }
  const ambiguous = (result.value as { ambiguous?: Array<{ name: string; matches: string[] }>; effects?: { updated: number; deleted: number } }).ambiguous;
  const effects = (result.value as { effects?: { updated: number; deleted: number } }).effects;
  if (call && ambiguous?.length === 1 && effects && effects.updated + effects.deleted === 0 && Array.isArray(call.items) && call.items.length === 1) {
    const [only] = ambiguous;
    return toolError(`"${only!.name}" fits several items (${only!.matches.join(', ')}). Nothing was changed; Herald asks the user which one (complete with needsClarification).`, {
      choice: { candidates: only!.matches.map((text) => ({ label: text, input: { ...call, items: [text] } })) },
    });
  }
  return ok(result.value);
}

/** list-agent's tools (contract names, plus delete_list and the bulk change_list_items). */
export function listTools(lists: ListService, page?: BulkPage): ToolDefinition[] {
  const bulkInput = z
    .object({
      list: listName,
      action: z.enum(['remove', 'check', 'uncheck']),
      match: z.string().trim().min(1).max(200).optional().describe('Words every item to change contains'),
      all: z.boolean().optional().describe('Every item of the list'),
      checkedOnly: z.boolean().optional().describe('Only items already ticked ("remove everything checked")'),
      itemIds: z.array(z.string().uuid()).max(BULK_MAX_ITEMS).optional().describe('Never set this: Herald pins the confirmed items here'),
    })
    .refine((input) => input.match || input.all || input.checkedOnly || input.itemIds, 'give match, all or checkedOnly');
  return [
    defineTool({
      name: 'create_list',
      description: 'Create a named list. An existing list of that name is left as it is (effect "unchanged").',
      mutates: true,
      inputSchema: z.object({ name: z.string().trim().min(1).max(80) }),
      run: async (input, context) => asToolResult(await lists.createList(context.userId, input.name)),
    }),
    defineTool({
      name: 'add_list_items',
      description:
        'Add one or more items to a list. With no list name the user\'s only list is used; with several lists nothing is added and you are told to ask which. A named list that does not exist is created. Items already on the list are skipped. `effects.created` is how many items were added.',
      mutates: true,
      inputSchema: z.object({ list: listName, items }),
      run: async (input, context) => asToolResult(await lists.addItems(context.userId, input.list, input.items), input),
    }),
    defineTool({
      name: 'get_lists',
      description: "Show the user's lists with their items (or one list by name).",
      mutates: false,
      inputSchema: z.object({ name: listName }),
      run: async (input, context) => {
        const result = await lists.lists(context.userId, input.name);
        if (!result.ok) return toolError(result.error);
        const isEmpty = result.value.length === 0 || result.value.every((list) => list.items.length === 0);
        return ok({ lists: result.value, isEmpty });
      },
    }),
    defineTool({
      name: 'check_list_items',
      description: 'Check off items (or uncheck them with checked: false), by name. `effects.updated` is how many changed.',
      mutates: true,
      inputSchema: z.object({ list: listName, items, checked: z.boolean().default(true) }),
      run: async (input, context) => asToolResult(await lists.checkItems(context.userId, input.list, input.items, input.checked), input),
    }),
    defineTool({
      name: 'remove_list_items',
      description: 'Remove items from a list, by name. `effects.deleted` is how many were removed.',
      mutates: true,
      inputSchema: z.object({ list: listName, items }),
      run: async (input, context) => asToolResult(await lists.removeItems(context.userId, input.list, input.items), input),
    }),
    defineTool({
      name: 'delete_list',
      description: 'Delete a whole list and its items. A list that still has items is only deleted after the user confirms (Herald asks them).',
      mutates: true,
      inputSchema: z.object({ name: z.string().trim().min(1).max(80) }),
      // Destructive: a list with items goes only after the user's YES. An empty or unknown one needs no question.
      confirmation: async (input, context) => {
        const found = await lists.lists(context.userId, input.name);
        const list = found.ok ? found.value[0] : undefined;
        if (!list || list.items.length === 0) return undefined;
        const count = list.items.length;
        return { question: `Delete the "${list.name}" list and its ${count} item${count === 1 ? '' : 's'}?`, done: `Deleted the "${list.name}" list.` };
      },
      run: async (input, context) => asToolResult(await lists.deleteList(context.userId, input.name)),
    }),
    defineTool({
      name: 'change_list_items',
      description:
        'Remove, tick or untick SEVERAL items of a list in one call: those containing the words of `match`, every item (all: true), or only ticked ones (checkedOnly). Held for ONE YES that lists them; the count comes back after it. Refused above 500.',
      mutates: true,
      inputSchema: bulkInput,
      modelSchema: z.object({ list: bulkInput.shape.list, action: bulkInput.shape.action, match: bulkInput.shape.match, all: bulkInput.shape.all, checkedOnly: bulkInput.shape.checkedOnly }),
      confirmation: async (input, context) => {
        if (input.itemIds) return undefined;
        const chosen = await lists.selectItems(context.userId, input.list, input);
        if (!chosen.ok) return undefined;
        const items = chosen.value.items.filter((item) => (input.action === 'check' ? !item.checked : input.action === 'uncheck' ? item.checked : true));
        if (items.length === 0 || items.length > BULK_MAX_ITEMS) return undefined;
        const language = toolLanguage(context);
        const key = input.action === 'remove' ? 'bulkRemoveItems' : 'bulkCheckItems';
        const doneKey = input.action === 'remove' ? 'bulkRemovedItems' : 'bulkCheckedItems';
        return {
          question: await bulkQuestion(context, key, { list: chosen.value.list }, items.map((item) => item.text), page, chosen.value.list),
          done: say(language, doneKey, { count: items.length }),
          input: { list: chosen.value.list, action: input.action, itemIds: items.map((item) => item.id) },
        };
      },
      run: async (input, context) => {
        if (!context.confirmed || !input.itemIds) {
          const chosen = await lists.selectItems(context.userId, input.list, input);
          if (!chosen.ok) return asToolResult(chosen, input);
          if (chosen.value.items.length > BULK_MAX_ITEMS) return toolError(bulkTooMany(context, chosen.value.items.length));
          return toolError(chosen.value.items.length === 0 ? 'No item matches. Nothing was changed.' : 'Changing several items needs the user\'s confirmation. Nothing was changed.');
        }
        const count = await lists.changeItemsById(context.userId, input.itemIds, input.action === 'remove' ? { remove: true } : { checked: input.action === 'check' });
        const language = toolLanguage(context);
        return ok({
          effect: input.action === 'remove' ? 'deleted' : 'updated',
          effects: { created: 0, updated: input.action === 'remove' ? 0 : count, deleted: input.action === 'remove' ? count : 0 },
          reply: say(language, input.action === 'remove' ? 'bulkRemovedItems' : 'bulkCheckedItems', { count }),
        });
      },
    }),
  ];
}
