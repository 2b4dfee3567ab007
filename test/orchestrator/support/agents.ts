import { z } from 'zod';
import { defineAgent, type AgentDefinition } from '../../../src/agents/agent-definition.js';
import { createAgentRegistry, type AgentRegistry } from '../../../src/agents/agent-registry.js';
import { defineTool, ok, toolError } from '../../../src/tools/tool.js';

/**
 * The in-memory world the test agents' tools act on. `journal` records every tool run in
 * order ("add_note:start:milk", "add_note:end:milk"), so tests can check what ran and when.
 */
export interface TestWorld {
  notes: Array<{ id: string; text: string }>;
  /** Results the lookup tool returns, by query; an unknown query finds nothing. */
  lookupResults: Record<string, string[]>;
  journal: string[];
}

export function createTestWorld(lookupResults: Record<string, string[]> = {}): TestWorld {
  return { notes: [], lookupResults, journal: [] };
}

/**
 * notes-agent's tools: `add_note` mutates (effect "created"); text containing FAIL is
 * refused; text containing HANG is saved and then hangs until the step is aborted.
 */
function notesTools(world: TestWorld) {
  const addNote = defineTool({
    name: 'add_note',
    description: 'Adds a note.',
    mutates: true,
    inputSchema: z.object({ text: z.string().min(1) }),
    async run({ text }, context) {
      world.journal.push(`add_note:start:${text}`);
      if (text.includes('HANG')) {
        // Takes effect, then hangs until the step is aborted (a slow backend cut off by a timeout).
        world.notes.push({ id: `note_${world.notes.length + 1}`, text });
        world.journal.push(`add_note:hanging:${text}`);
        await new Promise<never>((_, reject) => {
          if (context.signal?.aborted) reject(context.signal.reason);
          context.signal?.addEventListener('abort', () => reject(context.signal?.reason), { once: true });
        });
      }
      if (text.includes('FAIL')) {
        world.journal.push(`add_note:refused:${text}`);
        return toolError('the notes service refused that note');
      }
      const note = { id: `note_${world.notes.length + 1}`, text };
      world.notes.push(note);
      world.journal.push(`add_note:end:${text}`);
      return ok({ effect: 'created', id: note.id });
    },
  });
  const touchNote = defineTool({
    name: 'touch_note',
    description: 'Saves a note that already exists (nothing changes).',
    mutates: true,
    inputSchema: z.object({ text: z.string().min(1) }),
    async run({ text }) {
      world.journal.push(`touch_note:${text}`);
      return ok({ effect: 'unchanged' });
    },
  });
  const listNotes = defineTool({
    name: 'list_notes',
    description: 'Lists the notes.',
    mutates: false,
    inputSchema: z.object({}),
    async run() {
      world.journal.push('list_notes');
      return ok({ notes: world.notes });
    },
  });
  return [addNote, touchNote, listNotes];
}

/** lookup-agent's tools: a read that can come back empty (or, for "STUCK", never answer), and one that throws. */
function lookupTools(world: TestWorld) {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks something up.',
    mutates: false,
    inputSchema: z.object({ query: z.string().min(1) }),
    async run({ query }) {
      world.journal.push(`lookup:${query}`);
      // A backend that never answers and ignores the abort signal.
      if (query === 'STUCK') return new Promise<never>(() => {});
      return ok({ results: world.lookupResults[query] ?? [] });
    },
  });
  const explode = defineTool({
    name: 'explode',
    description: 'A tool with a bug: it always throws.',
    mutates: false,
    inputSchema: z.object({}),
    async run() {
      world.journal.push('explode');
      throw new Error('kaboom');
    },
  });
  return [lookup, explode];
}

const common = { modelRole: 'agent' as const, maxTokens: 512, promptBudgetTokens: 4000 };

/** The test agents: general-agent (fallback, no tools), notes-agent, lookup-agent. */
export function testAgents(world: TestWorld): AgentDefinition[] {
  return [
    defineAgent({
      ...common,
      name: 'general-agent',
      description: 'Answers general questions.',
      capabilities: ['answer questions'],
      examples: ['What is the capital of France?'],
      triggers: { english: ['explain'], hebrew: ['תסביר'] },
      priority: 10,
      tools: [],
      systemPrompt: 'GENERAL-AGENT-PROMPT: answer the task.',
      outputData: z.object({ text: z.string().optional() }),
    }),
    defineAgent({
      ...common,
      name: 'notes-agent',
      description: 'Keeps the user notes.',
      capabilities: ['add notes', 'list notes'],
      examples: ['Note that the plumber comes at 5'],
      triggers: { english: ['note', 'jot down', 'write down'], hebrew: ['פתק', 'תרשום'] },
      priority: 30,
      tools: notesTools(world),
      systemPrompt: 'NOTES-AGENT-PROMPT: you keep notes.',
      outputData: z.object({ noteIds: z.array(z.string()).optional() }),
    }),
    defineAgent({
      ...common,
      name: 'lookup-agent',
      description: 'Looks things up.',
      capabilities: ['look things up'],
      examples: ['Find my notes about the trip'],
      triggers: { english: ['look up', 'find', 'search'], hebrew: ['חפש', 'תמצא'] },
      priority: 20,
      tools: lookupTools(world),
      systemPrompt: 'LOOKUP-AGENT-PROMPT: you look things up.',
      outputData: z.object({ results: z.array(z.string()).optional() }),
    }),
  ];
}

/** A registry of the test agents over a fresh (or given) world. */
export function testRegistry(world: TestWorld = createTestWorld()): { registry: AgentRegistry; world: TestWorld } {
  return { registry: createAgentRegistry(testAgents(world)), world };
}

export const TEST_AGENT_NAMES = ['general-agent', 'notes-agent', 'lookup-agent'];
