/**
 * What the real Messages API refuses in any request, whatever the model, as the fake
 * enforces it, each with the API's own 400 message:
 *
 * - a message whose role is not "user" or "assistant" (a "system" message most of all:
 *   the system prompt is the top-level `system` parameter);
 * - a message with no content, and a text block that is empty or only whitespace (in the
 *   system prompt, a message, or a tool result);
 * - an assistant `tool_use` whose `tool_result` is not in the very next (user) message, a
 *   `tool_result` with no `tool_use` in the message before it, and text before the tool
 *   results in the message that carries them;
 * - a tool name outside `^[a-zA-Z0-9_-]{1,128}$`, and two tools of one name;
 * - more than four blocks marked `cache_control`.
 */

import type { RuleViolation } from './model-rules.js';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const MAX_CACHE_BREAKPOINTS = 4;

type Block = Record<string, unknown>;
type MessageLike = { role?: unknown; content?: unknown };

/** Checks a Messages request body against the API's shape rules; undefined when it passes. */
export function checkRequestRules(body: Record<string, unknown>): RuleViolation | undefined {
  const messages = Array.isArray(body.messages) ? (body.messages as MessageLike[]) : [];
  return checkRoles(messages) ?? checkTools(body.tools) ?? checkText(body.system, messages) ?? checkToolPairs(messages) ?? checkCacheBreakpoints(body, messages);
}

function checkRoles(messages: MessageLike[]): RuleViolation | undefined {
  for (const [index, message] of messages.entries()) {
    if (message.role === 'system') {
      return { message: 'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.' };
    }
    if (message.role !== 'user' && message.role !== 'assistant') return { message: `messages.${index}.role: Input should be 'user' or 'assistant'` };
    const empty = message.content === '' || (Array.isArray(message.content) && message.content.length === 0);
    const finalAssistant = message.role === 'assistant' && index === messages.length - 1;
    if (empty && !finalAssistant) return { message: `messages.${index}: all messages must have non-empty content except for the optional final assistant message` };
  }
  return undefined;
}

function checkTools(tools: unknown): RuleViolation | undefined {
  if (!Array.isArray(tools)) return undefined;
  const seen = new Set<string>();
  for (const [index, tool] of (tools as Block[]).entries()) {
    // Server tools (web search…) carry a `type` and fixed names; the rules are for the caller's own.
    if (typeof tool.type === 'string' && tool.type !== 'custom') continue;
    const name = tool.name;
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
      return { message: `tools.${index}.custom.name: String should match pattern '${TOOL_NAME.source}'` };
    }
    if (seen.has(name)) return { message: 'tools: Tool names must be unique.' };
    seen.add(name);
  }
  return undefined;
}

function checkText(system: unknown, messages: MessageLike[]): RuleViolation | undefined {
  if (Array.isArray(system)) {
    const problem = textProblem(system as Block[]);
    if (problem) return { message: `system: ${problem}` };
  }
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    const blocks = message.content as Block[];
    const nested = blocks.flatMap((block) => (block.type === 'tool_result' && Array.isArray(block.content) ? (block.content as Block[]) : []));
    const problem = textProblem([...blocks, ...nested]);
    if (problem) return { message: `messages: ${problem}` };
  }
  return undefined;
}

function textProblem(blocks: Block[]): string | undefined {
  for (const block of blocks) {
    if (block.type !== 'text' || typeof block.text !== 'string') continue;
    if (block.text.length === 0) return 'text content blocks must be non-empty';
    if (block.text.trim().length === 0) return 'text content blocks must contain non-whitespace text';
  }
  return undefined;
}

function checkToolPairs(messages: MessageLike[]): RuleViolation | undefined {
  for (const [index, message] of messages.entries()) {
    const blocks = Array.isArray(message.content) ? (message.content as Block[]) : [];
    if (message.role === 'assistant') {
      const ids = blocks.filter((block) => block.type === 'tool_use').map((block) => String(block.id));
      if (ids.length === 0) continue;
      const next = messages[index + 1];
      const answered = new Set(next?.role === 'user' && Array.isArray(next.content) ? leadingToolResults(next.content as Block[]) : []);
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return {
          message: `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        };
      }
    } else {
      const previous = messages[index - 1];
      const asked = new Set(
        previous?.role === 'assistant' && Array.isArray(previous.content)
          ? (previous.content as Block[]).filter((block) => block.type === 'tool_use').map((block) => String(block.id))
          : [],
      );
      for (const [blockIndex, block] of blocks.entries()) {
        if (block.type !== 'tool_result' || asked.has(String(block.tool_use_id))) continue;
        return {
          message: `messages.${index}.content.${blockIndex}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        };
      }
    }
  }
  return undefined;
}

/** The ids of the tool results a user message starts with: results after other content do not count. */
function leadingToolResults(blocks: Block[]): string[] {
  const ids: string[] = [];
  for (const block of blocks) {
    if (block.type !== 'tool_result') break;
    ids.push(String(block.tool_use_id));
  }
  return ids;
}

function checkCacheBreakpoints(body: Record<string, unknown>, messages: MessageLike[]): RuleViolation | undefined {
  const marked = (value: unknown): number => {
    if (typeof value !== 'object' || value === null) return 0;
    const block = value as Block;
    const own = block.cache_control !== undefined && block.cache_control !== null ? 1 : 0;
    return own + (Array.isArray(block.content) ? block.content.reduce((total: number, inner) => total + marked(inner), 0) : 0);
  };
  let count = 0;
  for (const tool of Array.isArray(body.tools) ? body.tools : []) count += marked(tool);
  for (const block of Array.isArray(body.system) ? body.system : []) count += marked(block);
  for (const message of messages) for (const block of Array.isArray(message.content) ? message.content : []) count += marked(block);
  if (count > MAX_CACHE_BREAKPOINTS) return { message: `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${count}.` };
  return undefined;
}
