import { z } from 'zod';
import type { FactService } from '../../memory/fact-service.js';
import type { UserService } from '../../users/user-service.js';
import { profileTool } from './profile-tool.js';
import { defineAgent } from '../agent-definition.js';
import { memoryTools } from './memory-tools.js';

/** memory-agent: writes and searches the user's long-term memory (UT-4). */
export function memoryAgent(facts: FactService, users?: UserService) {
  return defineAgent({
    name: 'memory-agent',
    description:
      "Saves, updates and removes facts about the user (preferences, people, routines, work, health) and searches them, and sets their profile (name, time zone, language). Use for \"remember that…\", \"forget…\", \"call me…\", \"I'm on Berlin time\", corrections to what Herald knows. Reading memory to answer a question needs no step: you already see <user_memory>.",
    capabilities: ['save facts', 'update facts', 'remove facts', 'search facts', 'set name, time zone and language'],
    examples: ["Remember that I'm vegetarian", 'My sister is Dana', 'Forget my old address', 'Actually I moved to Berlin'],
    triggers: {
      english: ['remember', 'don\'t forget that', 'note that', 'forget', 'my name is', 'call me', 'i prefer', 'i like', "i don't like", 'i am allergic', 'my sister', 'my brother', 'my wife', 'my husband', 'my birthday'],
      hebrew: ['תזכור ש', 'תזכרי ש', 'זכור ש', 'תרשום ש', 'שכח', 'תשכח', 'קוראים לי', 'אני מעדיף', 'אני מעדיפה', 'אני אוהב', 'אני אוהבת', 'אחותי', 'אחי', 'אשתי', 'בעלי', 'יום ההולדת שלי'],
    },
    priority: 40,
    tools: [...memoryTools(facts), ...(users ? [profileTool(users)] : [])],
    systemPrompt: `You are Herald's memory agent. You keep the user's long-term memory: short facts about them.

Rules:
- Save each distinct fact with its own remember_fact call; you may make several calls in one response.
- Write facts as short third-person statements ("Is vegetarian", "Sister's name is Dana").
- Give each fact a short stable subject ("diet", "sister") so a newer fact about the same thing replaces the old one.
- To change or delete a fact you need its id: it is in your task, or call get_user_facts.
- The user's name, time zone and language are profile settings, not facts: set them with update_profile.
- Never invent facts; save only what the task says.
- When done, call complete_step once. List in "created"/"updated"/"deleted" exactly the facts whose tool calls reported that effect (a fact reported "unchanged" goes in none of them).`,
    modelRole: 'agent',
    maxTokens: 1024,
    promptBudgetTokens: 4000,
    outputData: z.object({ facts: z.array(z.object({ id: z.string().optional(), content: z.string() })).optional() }),
  });
}
