import type { z } from 'zod';
import type { ToolDefinition } from '../tools/tool.js';

/**
 * Everything the orchestrator knows about an agent. Adding an agent is adding one of
 * these to the registry (NFR-6): the planner reads the description, capabilities and
 * examples; the pre-router reads the triggers; the executor runs the system prompt with
 * exactly these tools and checks the output against the schema.
 */
export interface AgentDefinition {
  /** The contract name the planner uses, e.g. "memory-agent". */
  name: string;
  /** One or two sentences for the planner: when to use this agent. */
  description: string;
  capabilities: string[];
  /** Requests this agent handles, for the planner. */
  examples: string[];
  /** Phrases that suggest this agent (seed 003 pre-routing), English and Hebrew. */
  triggers: { english: string[]; hebrew: string[] };
  /** Breaks ties between agents whose triggers match equally. */
  priority: number;
  tools: ToolDefinition[];
  /** The agent's own instructions; it never sees memory or history (FR-7, FR-8). */
  systemPrompt: string;
  /** Which configured model runs it. */
  modelRole: 'agent' | 'planner';
  /** Output token cap per model call. */
  maxTokens: number;
  /** Prompt budget (CTX-6): earlier steps' outputs are truncated to fit. */
  promptBudgetTokens: number;
  /** Schema of the `data` this agent reports (the rest of the output is the common envelope). */
  outputData: z.ZodType;
  /** Offered Anthropic's web search (and fetch, for links the user wrote), when WEB_SEARCH is on. */
  webAccess?: boolean;
  /**
   * Its output carries text from outside (mail): later prompts that show it are never offered
   * web fetch, so an email cannot make Herald open a page.
   */
  untrustedOutput?: boolean;
}

/** Declares an agent (keeps the type in one place). */
export function defineAgent(definition: AgentDefinition): AgentDefinition {
  return definition;
}
