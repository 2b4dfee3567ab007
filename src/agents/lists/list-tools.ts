import { z } from 'zod';
import type { ListResult, ListService } from '../../lists/list-service.js';
import { defineTool, ok, toolError, type ToolDefinition, type ToolResult } from '../../tools/tool.js';

const listName = z.string().trim().min(1).max(80).optional().describe('The list\'s name ("shopping"); omit to use the only list');
const items = z.array(z.string().trim().min(1).max(200)).min(1).max(100);

function asToolResult<Value>(result: ListResult<Value>): ToolResult {
  return result.ok ? ok(result.value) : toolError(result.error);
}

/** list-agent's tools (contract names, plus delete_list). */
export function listTools(lists: ListService): ToolDefinition[] {
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
      run: async (input, context) => asToolResult(await lists.addItems(context.userId, input.list, input.items)),
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
      run: async (input, context) => asToolResult(await lists.checkItems(context.userId, input.list, input.items, input.checked)),
    }),
    defineTool({
      name: 'remove_list_items',
      description: 'Remove items from a list, by name. `effects.deleted` is how many were removed.',
      mutates: true,
      inputSchema: z.object({ list: listName, items }),
      run: async (input, context) => asToolResult(await lists.removeItems(context.userId, input.list, input.items)),
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
  ];
}
