import { createHash } from 'node:crypto';
import { minimumCacheableTokens } from './model-rules.js';

/** How long a cache entry lives after its last use, by the breakpoint's `ttl` (the API's default is 5 minutes). */
const CACHE_TTL_MS = { '5m': 5 * 60 * 1000, '1h': 60 * 60 * 1000 } as const;

type Ttl = keyof typeof CACHE_TTL_MS;

/** What a request's prompt cost in cache terms. */
export interface CacheUsage {
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The writes by lifetime (`usage.cache_creation` in the API's answer). */
  cacheCreation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** Tokens the fake counts for a piece of the prompt: about four characters each, as JSON. */
export function fakeTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value ?? null).length / 4);
}

/**
 * What the API refuses in `cache_control` before anything runs: a type other than
 * "ephemeral", a ttl other than "5m" or "1h", or a 1-hour breakpoint after a 5-minute one
 * (longer lifetimes must come first in the prompt).
 */
export function cacheControlViolation(body: Record<string, unknown>): string | undefined {
  let seenShort = false;
  for (const block of promptBlocks(body)) {
    if (!block.marker) continue;
    const marker = block.marker as Record<string, unknown>;
    if (marker.type !== 'ephemeral') return `${block.where}.cache_control.type: Input should be 'ephemeral'`;
    if (marker.ttl !== undefined && marker.ttl !== '5m' && marker.ttl !== '1h') return `${block.where}.cache_control.ttl: Input should be '5m' or '1h'`;
    const ttl: Ttl = (marker.ttl as Ttl | undefined) ?? '5m';
    if (ttl === '1h' && seenShort) return 'a ttl=\'1h\' cache_control block must not come after a ttl=\'5m\' cache_control block';
    if (ttl === '5m') seenShort = true;
  }
  return undefined;
}

/**
 * The API's prompt cache, as the fake plays it: the prompt is tools, then system blocks,
 * then message blocks, in that order; each block marked `cache_control` is a breakpoint.
 * A breakpoint whose prefix is at least the model's minimum length is written on first
 * sight and read when the same model sees the byte-identical prefix again within the
 * entry's lifetime since its last use (`ttl`: 5 minutes by default, or 1 hour); each use
 * refreshes it, with the lifetime the using request asks for. Shorter marked prefixes are
 * silently not cached, as on the real service.
 */
export class PromptCache {
  private readonly entries = new Map<string, { lastUsed: number; ttl: Ttl }>();

  constructor(private readonly now: () => number) {}

  /** Reads and writes the cache for one request body; returns the cache part of its usage. */
  use(body: Record<string, unknown>): CacheUsage {
    const model = String(body.model);
    const floor = minimumCacheableTokens(model);
    const blocks = promptBlocks(body);
    const now = this.now();
    let read = 0;
    let covered = 0;
    const written = { '5m': 0, '1h': 0 };
    for (let index = 0; index < blocks.length; index += 1) {
      const marker = blocks[index]!.marker as { ttl?: Ttl } | undefined;
      if (!marker) continue;
      const ttl: Ttl = marker.ttl ?? '5m';
      const prefix = blocks.slice(0, index + 1).map((block) => block.content);
      const tokens = fakeTokens(prefix);
      if (tokens < floor) continue;
      const key = createHash('sha256').update(model).update('\0').update(JSON.stringify(prefix)).digest('hex');
      const entry = this.entries.get(key);
      if (entry !== undefined && now - entry.lastUsed <= CACHE_TTL_MS[entry.ttl]) read = Math.max(read, tokens);
      else written[ttl] += Math.max(0, tokens - Math.max(covered, read));
      covered = Math.max(covered, tokens);
      // A longer lifetime already granted is kept; a use asking for longer extends it.
      this.entries.set(key, { lastUsed: now, ttl: entry && now - entry.lastUsed <= CACHE_TTL_MS[entry.ttl] && entry.ttl === '1h' ? '1h' : ttl });
    }
    return {
      cacheReadTokens: read,
      cacheWriteTokens: written['5m'] + written['1h'],
      cacheCreation: { ephemeral_5m_input_tokens: written['5m'], ephemeral_1h_input_tokens: written['1h'] },
    };
  }

  /** Forgets every entry. */
  clear(): void {
    this.entries.clear();
  }
}

/** The prompt's blocks in cache order, each without its `cache_control`, with the marker it carried and where it is (for error messages). */
function promptBlocks(body: Record<string, unknown>): Array<{ content: unknown; marker: unknown; where: string }> {
  const blocks: Array<{ content: unknown; marker: unknown; where: string }> = [];
  const add = (kind: string, where: string, value: unknown) => {
    if (typeof value !== 'object' || value === null) {
      blocks.push({ content: [kind, value], marker: undefined, where });
      return;
    }
    const { cache_control: marker, ...rest } = value as Record<string, unknown>;
    blocks.push({ content: [kind, rest], marker: marker ?? undefined, where });
  };
  (Array.isArray(body.tools) ? body.tools : []).forEach((tool, index) => add('tool', `tools.${index}`, tool));
  if (typeof body.system === 'string') add('system', 'system', body.system);
  else (Array.isArray(body.system) ? body.system : []).forEach((block, index) => add('system', `system.${index}`, block));
  (Array.isArray(body.messages) ? (body.messages as Array<{ role?: unknown; content?: unknown }>) : []).forEach((message, messageIndex) => {
    const role = String(message.role);
    if (typeof message.content === 'string') add(role, `messages.${messageIndex}.content`, message.content);
    else (Array.isArray(message.content) ? message.content : []).forEach((block, blockIndex) => add(role, `messages.${messageIndex}.content.${blockIndex}`, block));
  });
  return blocks;
}
