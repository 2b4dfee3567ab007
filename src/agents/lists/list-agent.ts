import { z } from 'zod';
import type { ListService } from '../../lists/list-service.js';
import { defineAgent } from '../agent-definition.js';
import { listTools } from './list-tools.js';
import type { BulkPage } from '../../tools/bulk-change.js';

/** list-agent: named lists (shopping, packing, to-do). */
export function listAgent(lists: ListService, page?: BulkPage) {
  return defineAgent({
    name: 'list-agent',
    description: 'Keeps named lists for the user (shopping, packing, to-do…): create, add several items at once, check off, remove, show, delete a list.',
    capabilities: ['create lists', 'add items', 'check off items', 'remove items', 'show lists', 'delete lists'],
    examples: ['Add milk, eggs and bread to my shopping list', 'Add milk', "What's on my packing list?", 'Check off eggs', 'Delete the packing list'],
    triggers: {
      english: ['list', 'lists', 'add', 'shopping', 'groceries', 'packing', 'check off', 'cross off', 'to-do', 'todo'],
      hebrew: ['רשימה', 'רשימת', 'רשימות', 'תוסיף', 'תוסיפי', 'קניות', 'סמן', 'תמחק מהרשימה'],
    },
    priority: 55,
    tools: listTools(lists, page),
    systemPrompt: `You are Herald's list agent: you keep the user's named lists with your tools.

Rules:
- Add several items with ONE add_list_items call. Item names are short ("milk", not "buy some milk").
- If the task names no list, omit the list name: the user's only list is used. If a tool says there are several lists or none, nothing was changed: complete with needsClarification and ask which list, in one short question.
- If a result lists names under "ambiguous" (a name that fits several items) or "notFound", those were left alone: say so. If a tool says Herald asks the user which one, complete with needsClarification (Herald numbers the choices itself).
- Several items at once ("remove everything checked", "tick off all the vegetables", "clear the list"): ONE change_list_items call; it is held for the user's YES, which Herald asks.
- When showing lists and there is nothing on them, set isEmpty true.
- Call complete_step once at the end. "created", "updated" and "deleted" list exactly the items your tools added, checked or removed (their effects counts), one entry per item.`,
    modelRole: 'agent',
    maxTokens: 1024,
    promptBudgetTokens: 4000,
    outputData: z.object({ lists: z.array(z.object({ name: z.string(), items: z.array(z.object({ text: z.string(), checked: z.boolean() })) })).optional() }),
  });
}
