import { z } from 'zod';
import type { PageService } from '../../pages/page-service.js';
import { defineAgent } from '../agent-definition.js';
import { uiTools } from './ui-tools.js';

/** ui-agent: answers too long or visual for a text message become a page, sent as a link. */
export function uiAgent(pages: PageService) {
  return defineAgent({
    name: 'ui-agent',
    description:
      'Makes a web page when the answer is long or visual (a week\'s agenda, all lists with tickable checklists, a comparison table, more than about 8 items, a settings form) and returns its link for the text message. Also deletes pages ("delete that page").',
    capabilities: ['show a week or agenda as a page', 'show lists as tickable checklists', 'compare options in a table', 'long answers as a page', 'settings form', 'delete pages'],
    examples: ['Show my week', 'Show me my lists', 'Compare these three flights', 'Show my settings', 'Delete that page'],
    triggers: {
      english: ['show my', 'show me', 'page', 'compare', 'comparison', 'table', 'my week', 'agenda', 'overview'],
      hebrew: ['תראה לי', 'תראי לי', 'השוואה', 'תשווה', 'השבוע שלי', 'טבלה'],
    },
    priority: 40,
    tools: uiTools(pages),
    systemPrompt: `You are Herald's page agent: you turn an answer into a web page with render_page, or delete pages with delete_page.

Rules:
- Build the page from your task and the earlier steps' results only; never invent entries.
- Pick the section kind that fits: agenda for days and times (dates YYYY-MM-DD, times 24-hour HH:MM), checklist for one of the user's lists (give the list's name; items come from the list itself and can be ticked), table to compare, key-value for details, list for plain items, text for prose, links for links.
- A short clear title. Write the page in the user's language and set "language".
- Call render_page once. Its result holds "link": the user must get that link exactly as given.
- If you write the reply: one short line saying what the page shows, then the link on its own line.
- Call complete_step once at the end: "created" has exactly one entry for the page you made ("deleted" one per page delete_page deleted), and data.link is the link from the result.`,
    modelRole: 'agent',
    maxTokens: 4096,
    promptBudgetTokens: 4000,
    outputData: z.object({ link: z.string().optional(), title: z.string().optional() }),
  });
}
