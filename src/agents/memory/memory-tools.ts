import { z } from 'zod';
import { factCategories, type FactService } from '../../memory/fact-service.js';
import { embeddingCostSink } from '../../search/embedding-indexer.js';
import { defineTool, ok, toolError, type ToolDefinition } from '../../tools/tool.js';

const category = z.enum(factCategories).describe(`One of: ${factCategories.join(', ')}`);
const factId = z.string().uuid().describe('The fact id, from get_user_facts or the task');

/** memory-agent's tools: the only way anything writes a user's memory (UT-4). */
export function memoryTools(facts: FactService): ToolDefinition[] {
  return [
    defineTool({
      name: 'remember_fact',
      description:
        'Save one fact about the user. Give a short stable `subject` (e.g. "diet", "sister", "employer") so a later fact about the same subject replaces this one. A fact that repeats a saved one is not duplicated (effect "unchanged").',
      mutates: true,
      inputSchema: z.object({
        category,
        subject: z.string().trim().min(1).max(80).optional().describe('Short key for what the fact is about'),
        content: z.string().trim().min(1).max(500).describe('The fact, as a short third-person statement, e.g. "Is vegetarian"'),
      }),
      run: async (input, context) => ok(await facts.remember(context.userId, input, embeddingCostSink(context))),
    }),
    defineTool({
      name: 'get_user_facts',
      description: 'List the facts saved about the user, optionally only one category.',
      mutates: false,
      inputSchema: z.object({ category: category.optional() }),
      run: async (input, context) => {
        const found = await facts.list(context.userId, input.category);
        return ok({ facts: found, count: found.length });
      },
    }),
    defineTool({
      name: 'update_fact',
      description: 'Change a saved fact (its content and/or category) by id.',
      mutates: true,
      inputSchema: z
        .object({ factId, content: z.string().trim().min(1).max(500).optional(), category: category.optional() })
        .refine((input) => input.content !== undefined || input.category !== undefined, 'give content or category to change'),
      run: async (input, context) => {
        const result = await facts.update(context.userId, input.factId, input);
        return result ? ok(result) : toolError(`No saved fact has id ${input.factId}. Call get_user_facts to see the ids.`);
      },
    }),
    defineTool({
      name: 'remove_fact',
      description: 'Delete a saved fact by id.',
      mutates: true,
      inputSchema: z.object({ factId }),
      run: async (input, context) => {
        const result = await facts.remove(context.userId, input.factId);
        return result ? ok(result) : toolError(`No saved fact has id ${input.factId}. Call get_user_facts to see the ids.`);
      },
    }),
  ];
}
