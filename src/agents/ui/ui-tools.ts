import { z } from 'zod';
import type { PageInput } from '../../pages/page-spec.js';
import { pageInputSchema } from '../../pages/page-spec.js';
import type { PageService } from '../../pages/page-service.js';
import { defineTool, ok, toolError, type ToolDefinition } from '../../tools/tool.js';

/** ui-agent's tools: `render_page` (the contract name) and `delete_page`. */
export function uiTools(pages: PageService): ToolDefinition[] {
  const forms = pages.forms.list();
  return [
    defineTool({
      name: 'render_page',
      description: [
        'Make a web page for the user and get its link. Fill in the page; Herald renders it (never write HTML).',
        "Section kinds: text (Markdown), list, checklist (one of the user's lists by name: its items can be ticked on the page), table, agenda (days with timed entries), key-value, links" +
          (forms.length > 0 ? `, form (${forms.map((form) => `"${form.id}": ${form.description}`).join('; ')})` : '') +
          '.',
        'Very long content is cut to fit and the page says so.',
        'The result\'s "link" must go to the user exactly as given.',
      ].join(' '),
      mutates: true,
      inputSchema: pageInputSchema(forms.map((form) => form.id)),
      run: async (input, context) => {
        const result = await pages.create(context.userId, context.timezone, input as PageInput);
        return result.ok ? ok(result.value) : toolError(result.error);
      },
    }),
    defineTool({
      name: 'delete_page',
      description: 'Delete a page Herald made (its link stops working at once): the newest one whose title contains `title`, else the newest page; or every page with all: true. `effects.deleted` is how many were deleted.',
      mutates: true,
      inputSchema: z.object({
        title: z.string().trim().min(1).max(120).optional().describe('Words of the page title; omit for the most recent page'),
        all: z.boolean().optional().describe('Delete every page of the user'),
      }),
      run: async (input, context) => {
        const result = await pages.remove(context.userId, input);
        return result.ok ? ok(result.value) : toolError(result.error);
      },
    }),
  ];
}
