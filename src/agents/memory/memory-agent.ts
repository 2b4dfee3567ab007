import { z } from 'zod';
import type { FactService } from '../../memory/fact-service.js';
import type { TravelTrips } from '../../reminders/travel-trips.js';
import type { UserService } from '../../users/user-service.js';
import { profileTool } from './profile-tool.js';
import { defineAgent } from '../agent-definition.js';
import { memoryTools } from './memory-tools.js';
import type { NoteService } from '../../notes/note-service.js';
import type { PageService } from '../../pages/page-service.js';
import type { MemorySearch } from '../../search/memory-search.js';
import { noteTools } from './note-tools.js';
import { searchMemoryTool } from './search-tool.js';

/** The second brain memory-agent grows into: notes, and one search over notes and facts. */
export interface BrainServices {
  notes: NoteService;
  search: MemorySearch;
  pages?: PageService | undefined;
}

/**
 * memory-agent: writes and searches the user's long-term memory (UT-4): short facts, and
 * with the second brain, notes. One agent for both, so "what was the restaurant Dana
 * recommended?" is one search whether the answer was saved as a fact or a note.
 */
export function memoryAgent(facts: FactService, users?: UserService, brain?: BrainServices, trips?: TravelTrips) {
  return defineAgent({
    name: 'memory-agent',
    description: brain
      ? "Saves, updates and removes facts about the user (preferences, people, routines, work, health); keeps their notes (\"note: …\", \"save this\", recipes, ideas, pasted text: saved, listed, shown, edited, deleted); searches notes and facts by meaning; sets their profile (name, time zone, language). Use for \"remember that…\", \"note…\", \"save this\", \"what did I note about…\", \"what was the … Dana recommended?\", \"forget…\", \"call me…\". Notes are NOT in <user_memory>: any question a note may answer needs this agent's search."
      : "Saves, updates and removes facts about the user (preferences, people, routines, work, health) and searches them, and sets their profile (name, time zone, language). Use for \"remember that…\", \"forget…\", \"call me…\", \"I'm on Berlin time\", corrections to what Herald knows. Reading memory to answer a question needs no step: you already see <user_memory>.",
    capabilities: ['save facts', 'update facts', 'remove facts', 'search facts', 'set name, time zone and language', 'travel: a time zone until a return date, then home again', ...(brain ? ['save, list, show, edit and delete notes', 'search notes and facts by meaning'] : [])],
    examples: ["Remember that I'm vegetarian", 'My sister is Dana', 'Forget my old address', 'Actually I moved to Berlin', "I'm in Tokyo until Friday", ...(brain ? ["note: the wifi at mom's is Lemon-Tree-42", 'What was the restaurant Dana recommended?'] : [])],
    triggers: {
      english: ['remember', 'don\'t forget that', 'note that', 'note:', 'save this', 'my notes', 'what did i note', 'forget', 'my name is', 'call me', 'i prefer', 'i like', "i don't like", 'i am allergic', 'my sister', 'my brother', 'my wife', 'my husband', 'my birthday'],
      hebrew: ['פתק', 'תרשום לי', 'שמור את זה', 'תזכור ש', 'תזכרי ש', 'זכור ש', 'תרשום ש', 'שכח', 'תשכח', 'קוראים לי', 'אני מעדיף', 'אני מעדיפה', 'אני אוהב', 'אני אוהבת', 'אחותי', 'אחי', 'אשתי', 'בעלי', 'יום ההולדת שלי'],
    },
    priority: 40,
    tools: [
      ...memoryTools(facts),
      ...(users ? [profileTool(users, trips)] : []),
      ...(brain ? [searchMemoryTool(brain.search, brain.notes, facts), ...noteTools(brain.notes, brain.pages)] : []),
    ],
    systemPrompt: `You are Herald's memory agent. You keep the user's long-term memory: short facts about them.

Rules:
- Save each distinct fact with its own remember_fact call; you may make several calls in one response.
- Write facts as short third-person statements ("Is vegetarian", "Sister's name is Dana").
- Give each fact a short stable subject ("diet", "sister") so a newer fact about the same thing replaces the old one.
- To change or delete a fact you need its id: it is in your task, or call get_user_facts.
- The user's name, time zone and language are profile settings, not facts: set them with update_profile.
- Travel with an end date ("I'm in Tokyo until Friday"): update_profile with the timezone and returnOn, the last day there as YYYY-MM-DD worked out from the current time you are given (Friday's date); Herald returns them to their home zone by itself the next morning, so do not save it as a fact. "I'm staying until next Wednesday": returnOn alone. "I'm back home": backHome. A move with no end ("I moved to Berlin"): timezone alone.
- Never invent facts; save only what the task says.${brain ? NOTE_RULES : ''}
- When done, call complete_step once. List in "created"/"updated"/"deleted" exactly the facts whose tool calls reported that effect (a fact reported "unchanged" goes in none of them).`,
    modelRole: 'agent',
    maxTokens: 1024,
    promptBudgetTokens: 4000,
    outputData: z.object({ facts: z.array(z.object({ id: z.string().optional(), content: z.string() })).optional() }),
  });
}

const NOTE_RULES = `
- Notes are for things to keep and look up later (a password, a recipe, an idea, a pasted article): save_note with the user's own words, a short title and a few tags. A short fact about the user (diet, sister's name) is a fact, not a note.
- To answer a question from memory, call search_memory once with 2-4 phrasings (the question and its key words). Answer only from what it returns; when nothing matches, say so plainly.
- A note too long for a text comes back as a page link: give the link with one line about the note.
- To change or delete a note you need its id: from the task, search_memory or list_notes. delete_note asks the user for YES itself.`;
