import { createHmac, randomBytes } from 'node:crypto';

/**
 * Anthropic's server tools as the fake plays them: web search (`web_search_20260318`) and
 * web fetch (`web_fetch_20260318`), with the real block shapes (`server_tool_use`,
 * `web_search_tool_result`, `web_fetch_tool_result`, `web_search_result_location`
 * citations on text) and the real rules:
 *
 * - a tool definition must name a known version and its own name, a positive `max_uses`,
 *   not both `allowed_domains` and `blocked_domains`, an `approximate` user location with a
 *   two-letter country and an IANA time zone;
 * - in a later request, every `server_tool_use` must be followed, in the same assistant
 *   message, by its result, and results and citations must come back exactly as issued
 *   (their encrypted parts are verified);
 * - within a call, searches past `max_uses` get a `max_uses_exceeded` error result, and a
 *   fetch of a URL the request does not allow (`allowed_domains`, `url_sources`) gets
 *   `url_not_allowed` / `url_not_in_prior_context`;
 * - usage reports `server_tool_use.web_search_requests` and `web_fetch_requests`.
 *
 * A test scripts the model's use of a tool with {@link ServerTools.search} or
 * {@link ServerTools.fetch}; scripting one the request did not offer is a test (or Herald)
 * bug and is answered with a 500 that says so.
 */

/** One search result a test scripts: what the page says is visible only to the model. */
export interface ScriptedSearchResult {
  url: string;
  title: string;
  /** The page text the model reads (encrypted in the real API; Herald never sees it). */
  text: string;
  pageAge?: string;
}

type Block = { type: string; [field: string]: unknown };

const SEARCH_TYPES = new Set(['web_search_20250305', 'web_search_20260209', 'web_search_20260318']);
const FETCH_TYPES = new Set(['web_fetch_20250910', 'web_fetch_20260209', 'web_fetch_20260309', 'web_fetch_20260318']);

export class ServerTools {
  private readonly key = randomBytes(32);
  /** Result blocks issued, by tool_use_id, as JSON: handed back, they must be identical. */
  private readonly issuedResults = new Map<string, string>();
  /** Citation indexes issued, by URL. */
  private readonly citationIndex = new Map<string, string>();

  /** A web search the model "ran": its server_tool_use and web_search_tool_result blocks. */
  search(query: string, results: ScriptedSearchResult[]): Block[] {
    const id = `srvtoolu_${randomBytes(12).toString('hex')}`;
    const content = results.map((result) => {
      const encrypted = this.seal({ url: result.url, text: result.text });
      this.citationIndex.set(result.url, this.seal({ url: result.url, index: true }));
      return { type: 'web_search_result', url: result.url, title: result.title, encrypted_content: encrypted, page_age: result.pageAge ?? null };
    });
    const use = { type: 'server_tool_use', id, name: 'web_search', input: { query }, caller: { type: 'direct' } };
    const result = { type: 'web_search_tool_result', tool_use_id: id, content, caller: { type: 'direct' } };
    this.issuedResults.set(id, JSON.stringify(result));
    return [use, result];
  }

  /** A page the model fetched: its server_tool_use and web_fetch_tool_result blocks. */
  fetch(url: string, pageText: string, title = 'Fetched page'): Block[] {
    const id = `srvtoolu_${randomBytes(12).toString('hex')}`;
    const use = { type: 'server_tool_use', id, name: 'web_fetch', input: { url }, caller: { type: 'direct' } };
    const result = {
      type: 'web_fetch_tool_result',
      tool_use_id: id,
      caller: { type: 'direct' },
      content: {
        type: 'web_fetch_result',
        url,
        retrieved_at: new Date().toISOString(),
        content: { type: 'document', source: { type: 'text', media_type: 'text/plain', data: pageText }, title, citations: null },
      },
    };
    this.issuedResults.set(id, JSON.stringify(result));
    return [use, result];
  }

  /** Text citing a search result the fake issued (by its URL). */
  cite(text: string, url: string, title = 'Source'): Block {
    const index = this.citationIndex.get(url);
    if (!index) throw new Error(`ServerTools.cite: no search result for ${url} was scripted`);
    return { type: 'text', text, citations: [{ type: 'web_search_result_location', url, title, encrypted_index: index, cited_text: text.slice(0, 150) }] };
  }

  /** What the API refuses in the request's tool definitions; undefined when they pass. */
  checkTools(body: Record<string, unknown>): string | undefined {
    const tools = Array.isArray(body.tools) ? (body.tools as Block[]) : [];
    for (const [index, tool] of tools.entries()) {
      const type = typeof tool.type === 'string' ? tool.type : undefined;
      if (type === undefined || type === 'custom') continue;
      const where = `tools.${index}`;
      const search = SEARCH_TYPES.has(type);
      const fetch = FETCH_TYPES.has(type);
      if (!search && !fetch) {
        if (/^web_(search|fetch)_/.test(type)) return `${where}: Input tag '${type}' found using 'type' does not match any of the expected tags`;
        continue;
      }
      const name = search ? 'web_search' : 'web_fetch';
      if (tool.name !== name) return `${where}.name: Input should be '${name}'`;
      if (tool.max_uses !== undefined && tool.max_uses !== null && !(Number.isInteger(tool.max_uses) && (tool.max_uses as number) > 0)) {
        return `${where}.max_uses: Input should be greater than 0`;
      }
      if (tool.allowed_domains && tool.blocked_domains) return `${where}: Cannot specify both allowed_domains and blocked_domains`;
      if (search && tool.user_location) {
        const location = tool.user_location as Block;
        if (location.type !== 'approximate') return `${where}.user_location.type: Input should be 'approximate'`;
        if (location.country !== undefined && !(typeof location.country === 'string' && /^[A-Z]{2}$/.test(location.country))) {
          return `${where}.user_location.country: String should be a two-letter ISO 3166-1 alpha-2 code`;
        }
        if (location.timezone !== undefined && !validZone(location.timezone)) return `${where}.user_location.timezone: Invalid IANA time zone`;
      }
      if (fetch && tool.url_sources) {
        const sources = tool.url_sources as Record<string, { type?: unknown } | undefined>;
        for (const [key, value] of Object.entries(sources)) {
          if (!['user_input', 'client_tool_results', 'server_tool_results'].includes(key)) return `${where}.url_sources.${key}: Extra inputs are not permitted`;
          const allowed = key === 'user_input' ? ['all', 'none'] : ['all', 'none', 'only', 'except'];
          if (!allowed.includes(String(value?.type))) return `${where}.url_sources.${key}.type: Input should be ${allowed.map((item) => `'${item}'`).join(' or ')}`;
        }
      }
    }
    return undefined;
  }

  /** What the API refuses in server tool blocks handed back; undefined when they pass. */
  checkMessages(body: Record<string, unknown>): string | undefined {
    const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: unknown; content?: unknown }>) : [];
    for (const [messageIndex, message] of messages.entries()) {
      if (!Array.isArray(message.content)) continue;
      const blocks = message.content as Block[];
      for (const [blockIndex, block] of blocks.entries()) {
        const where = `messages.${messageIndex}.content.${blockIndex}`;
        const type = String(block.type);
        if (type === 'server_tool_use' || type.endsWith('_tool_result') && type !== 'tool_result') {
          if (message.role !== 'assistant') return `${where}: ${type} blocks may only appear in assistant messages`;
        }
        if (type === 'server_tool_use') {
          const resultType = `${String(block.name)}_tool_result`;
          const paired = blocks.slice(blockIndex + 1).some((other) => other.type === resultType && other.tool_use_id === block.id);
          if (!paired) return `messages.${messageIndex}: \`${String(block.name)}\` tool use with id \`${String(block.id)}\` was found without a corresponding \`${resultType}\` block`;
        }
        if (type === 'web_search_tool_result' || type === 'web_fetch_tool_result') {
          const issued = this.issuedResults.get(String(block.tool_use_id));
          if (!issued || !sameJson(issued, block)) return `${where}: the ${type} block does not match the one the API returned; pass it back unchanged`;
        }
        if (type === 'text' && Array.isArray(block.citations)) {
          for (const citation of block.citations as Block[]) {
            if (citation.type !== 'web_search_result_location') continue;
            if (this.citationIndex.get(String(citation.url)) !== citation.encrypted_index) return `${where}.citations: invalid encrypted_index`;
          }
        }
      }
    }
    return undefined;
  }

  /**
   * Plays the scripted server tool blocks against the request: searches past `max_uses`
   * and fetches the request does not allow get the API's error results. Returns the
   * content to send and the server tool usage, or a scripting error.
   */
  apply(body: Record<string, unknown>, content: Block[]): { content: Block[]; webSearches: number; webFetches: number } | { error: string } {
    const tools = Array.isArray(body.tools) ? (body.tools as Block[]) : [];
    const searchTool = tools.find((tool) => SEARCH_TYPES.has(String(tool.type)));
    const fetchTool = tools.find((tool) => FETCH_TYPES.has(String(tool.type)));
    let webSearches = 0;
    let webFetches = 0;
    const out: Block[] = [];
    for (const block of content) {
      if (block.type !== 'web_search_tool_result' && block.type !== 'web_fetch_tool_result') {
        if (block.type === 'server_tool_use') {
          const tool = block.name === 'web_search' ? searchTool : fetchTool;
          if (!tool) return { error: `FakeAnthropicServer: the script used ${String(block.name)}, but the request offered no ${String(block.name)} tool` };
        }
        out.push(block);
        continue;
      }
      let result = block;
      if (block.type === 'web_search_tool_result') {
        const max = typeof searchTool?.max_uses === 'number' ? searchTool.max_uses : Number.POSITIVE_INFINITY;
        if (webSearches >= max) result = this.errorResult(block, 'web_search_tool_result_error', 'max_uses_exceeded');
        else webSearches += 1;
      } else {
        const max = typeof fetchTool?.max_uses === 'number' ? fetchTool.max_uses : Number.POSITIVE_INFINITY;
        const url = String(((block.content as Block | undefined)?.url as string | undefined) ?? '');
        const refusal = webFetches >= max ? 'max_uses_exceeded' : this.fetchRefusal(url, fetchTool!, body);
        if (refusal) result = this.errorResult(block, 'web_fetch_tool_result_error', refusal);
        else webFetches += 1;
      }
      out.push(result);
    }
    return { content: out, webSearches, webFetches };
  }

  /** Why the API would not fetch this URL for this request, or undefined. */
  private fetchRefusal(url: string, tool: Block, body: Record<string, unknown>): string | undefined {
    let host: string;
    try {
      host = new URL(url).hostname.toLowerCase();
    } catch {
      return 'invalid_tool_input';
    }
    const allowed = Array.isArray(tool.allowed_domains) ? (tool.allowed_domains as string[]) : undefined;
    if (allowed && !allowed.some((domain) => host === domain || host.endsWith(`.${domain}`))) return 'url_not_allowed';
    const blocked = Array.isArray(tool.blocked_domains) ? (tool.blocked_domains as string[]) : [];
    if (blocked.some((domain) => host === domain || host.endsWith(`.${domain}`))) return 'url_not_allowed';
    const sources = (tool.url_sources ?? {}) as Record<string, { type?: string } | undefined>;
    const context = priorContext(body, {
      userInput: (sources.user_input?.type ?? 'all') === 'all',
      clientToolResults: (sources.client_tool_results?.type ?? 'all') === 'all',
      serverToolResults: (sources.server_tool_results?.type ?? 'all') === 'all',
    });
    return context.includes(url) ? undefined : 'url_not_in_prior_context';
  }

  private errorResult(block: Block, type: string, code: string): Block {
    const result = { type: block.type, tool_use_id: block.tool_use_id, caller: { type: 'direct' }, content: { type, error_code: code } };
    this.issuedResults.set(String(block.tool_use_id), JSON.stringify(result));
    return result;
  }

  private seal(value: unknown): string {
    const payload = Buffer.from(JSON.stringify(value)).toString('base64');
    return `${payload}.${createHmac('sha256', this.key).update(payload).digest('base64url')}`;
  }
}

/** The text URLs may come from: user messages' own text, tool results, server tool results, as allowed. */
function priorContext(body: Record<string, unknown>, allow: { userInput: boolean; clientToolResults: boolean; serverToolResults: boolean }): string {
  const parts: string[] = [];
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: unknown; content?: unknown }>) : [];
  for (const message of messages) {
    if (typeof message.content === 'string') {
      if (message.role === 'user' && allow.userInput) parts.push(message.content);
      continue;
    }
    for (const block of Array.isArray(message.content) ? (message.content as Block[]) : []) {
      if (block.type === 'text' && message.role === 'user' && allow.userInput) parts.push(String(block.text));
      if (block.type === 'tool_result' && allow.clientToolResults) parts.push(JSON.stringify(block.content));
      if ((block.type === 'web_search_tool_result' || block.type === 'web_fetch_tool_result') && allow.serverToolResults) parts.push(JSON.stringify(block.content));
    }
  }
  return parts.join('\n');
}

function sameJson(issued: string, block: Block): boolean {
  return canonical(JSON.parse(issued)) === canonical(block);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([left], [right]) => left.localeCompare(right))
      .map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function validZone(zone: unknown): boolean {
  if (typeof zone !== 'string') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
