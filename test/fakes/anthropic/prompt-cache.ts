import { createHash } from 'node:crypto';
import { minimumCacheableTokens } from './model-rules.js';

/** How long a cache entry lives after its last use (the API's default 5-minute TTL). */
export const CACHE_TTL_MS = 5 * 60 * 1000;

/** What a request's prompt cost in cache terms. */
export interface CacheUsage {
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** Tokens the fake counts for a piece of the prompt: about four characters each, as JSON. */
export function fakeTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value ?? null).length / 4);
}

/**
 * The API's prompt cache, as the fake plays it: the prompt is tools, then system blocks,
 * then message blocks, in that order; each block marked `cache_control` is a breakpoint.
 * A breakpoint whose prefix is at least the model's minimum length is written on first
 * sight and read when the same model sees the byte-identical prefix again within five
 * minutes of its last use (each read refreshes it). Shorter marked prefixes are silently
 * not cached, as on the real service.
 */
export class PromptCache {
  private readonly entries = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  /** Reads and writes the cache for one request body; returns the cache part of its usage. */
  use(body: Record<string, unknown>): CacheUsage {
    const model = String(body.model);
    const floor = minimumCacheableTokens(model);
    const blocks = promptBlocks(body);
    const now = this.now();
    let read = 0;
    let written = 0;
    for (let index = 0; index < blocks.length; index += 1) {
      if (!blocks[index]!.marked) continue;
      const prefix = blocks.slice(0, index + 1).map((block) => block.content);
      const tokens = fakeTokens(prefix);
      if (tokens < floor) continue;
      const key = createHash('sha256').update(model).update('\0').update(JSON.stringify(prefix)).digest('hex');
      const lastUsed = this.entries.get(key);
      if (lastUsed !== undefined && now - lastUsed <= CACHE_TTL_MS) read = Math.max(read, tokens);
      else written = Math.max(written, tokens);
      this.entries.set(key, now);
    }
    return { cacheReadTokens: read, cacheWriteTokens: Math.max(0, written - read) };
  }

  /** Forgets every entry. */
  clear(): void {
    this.entries.clear();
  }
}

/** The prompt's blocks in cache order, each without its `cache_control`, and whether it carried one. */
function promptBlocks(body: Record<string, unknown>): Array<{ content: unknown; marked: boolean }> {
  const blocks: Array<{ content: unknown; marked: boolean }> = [];
  const add = (where: string, value: unknown) => {
    if (typeof value !== 'object' || value === null) {
      blocks.push({ content: [where, value], marked: false });
      return;
    }
    const { cache_control: marker, ...rest } = value as Record<string, unknown>;
    blocks.push({ content: [where, rest], marked: marker !== undefined && marker !== null });
  };
  for (const tool of Array.isArray(body.tools) ? body.tools : []) add('tool', tool);
  if (typeof body.system === 'string') add('system', body.system);
  else for (const block of Array.isArray(body.system) ? body.system : []) add('system', block);
  for (const message of Array.isArray(body.messages) ? (body.messages as Array<{ role?: unknown; content?: unknown }>) : []) {
    const role = String(message.role);
    if (typeof message.content === 'string') add(role, message.content);
    else for (const block of Array.isArray(message.content) ? message.content : []) add(role, block);
  }
  return blocks;
}
