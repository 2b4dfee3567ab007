import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  TextCitationParam,
  Tool,
  ToolUnion,
  WebFetchTool20260318,
  WebSearchTool20260318,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { estimateTokens } from '../shared/tokens.js';
import type { ContentBlock, ModelMessage, ModelRequest, ServerToolSpec, ToolSpec } from './model-client.js';
import type { ModelProfile } from './model-profiles.js';

/**
 * The Messages API body for a request, built from the profile of the model it goes to:
 * settings the model refuses are left out (sampling parameters, effort) or relaxed
 * (forced tool choice becomes auto), and a cache breakpoint is placed only where the
 * prefix reaches the model's minimum cacheable length. Herald never sends `thinking`:
 * current models think adaptively by default and refuse budgets and "disabled".
 */
export function messageParams(request: ModelRequest, profile: ModelProfile): MessageCreateParamsNonStreaming {
  const last = request.messages[request.messages.length - 1];
  // A turn the API paused mid server tool (pause_turn) is continued by sending it back: not a prefill.
  const paused = last?.role === 'assistant' && Array.isArray(last.content) && last.content.some((block) => block.type === 'server_tool_use' || block.type === 'server_tool_result');
  if (last?.role === 'assistant' && !profile.accepts.assistantPrefill && !paused) {
    // Nothing in Herald prefills; a request that does is a bug, not something to send.
    throw new Error(`a request to ${request.model} ends with an assistant message (prefill), which the model refuses`);
  }
  const allTools: ToolUnion[] = [...(request.tools ?? []).map(toToolParam), ...(request.serverTools ?? []).map(toServerToolParam)];
  const tools = allTools.length > 0 ? allTools : undefined;
  const toolChoice = tools && request.toolChoice && (request.toolChoice.type === 'auto' || profile.accepts.forcedToolChoice) ? request.toolChoice : undefined;
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    system: systemParams(request, profile),
    messages: request.messages.map(toMessageParam),
    ...(tools ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    // SDK 1.x no longer types sampling parameters (current models refuse them); models that
    // still take them get `temperature` as a plain body field.
    ...(request.temperature !== undefined && profile.accepts.samplingParameters ? { temperature: request.temperature } : {}),
    ...(request.effort && profile.accepts.effort ? { output_config: { effort: request.effort } } : {}),
  };
}

/**
 * System blocks, with `cache_control` on a block marked `cache` only when everything up to
 * and including it (the tools, then the system blocks) is long enough to be cached. A
 * shorter marked prefix would not be cached anyway; leaving the marker off keeps requests
 * honest about what they ask for.
 */
function systemParams(request: ModelRequest, profile: ModelProfile): TextBlockParam[] {
  let prefixTokens = request.tools && request.tools.length > 0 ? estimateTokens(JSON.stringify(request.tools.map(toToolParam))) : 0;
  return request.system.map((block): TextBlockParam => {
    prefixTokens += estimateTokens(block.text);
    const cacheable = block.cache === true && request.cacheTtl !== 'none' && prefixTokens >= profile.minimumCacheableTokens;
    if (!cacheable) return { type: 'text', text: block.text };
    return { type: 'text', text: block.text, cache_control: request.cacheTtl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' } };
  });
}

function toMessageParam(message: ModelMessage): MessageParam {
  if (typeof message.content === 'string') return { role: message.role, content: message.content };
  return { role: message.role, content: message.content.map(toContentBlockParam) };
}

/**
 * Thinking blocks go back exactly as they came: same text, same signature, same place; so do
 * server tool blocks (search results, fetched pages) and the citations on text that quotes them.
 */
function toContentBlockParam(block: ContentBlock): ContentBlockParam {
  switch (block.type) {
    case 'text':
      return block.citations && block.citations.length > 0
        ? { type: 'text', text: block.text, citations: block.citations as TextCitationParam[] }
        : { type: 'text', text: block.text };
    case 'image':
      return { type: 'image', source: { type: 'base64', media_type: block.mediaType, data: block.data } };
    case 'document':
      return { type: 'document', source: { type: 'base64', media_type: block.mediaType, data: block.data }, ...(block.title ? { title: block.title } : {}) };
    case 'server_tool_use':
    case 'server_tool_result':
      return block.raw as unknown as ContentBlockParam;
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'tool_result':
      return { type: 'tool_result', tool_use_id: block.toolUseId, content: block.content, ...(block.isError ? { is_error: true } : {}) };
  }
}

function toToolParam(tool: ToolSpec): Tool {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema as Tool['input_schema'] };
}

/** Anthropic's 2026 web tools (`web_search_20260318`, `web_fetch_20260318`). */
function toServerToolParam(tool: ServerToolSpec): WebSearchTool20260318 | WebFetchTool20260318 {
  if (tool.type === 'web_search') {
    const location = tool.userLocation && (tool.userLocation.timezone || tool.userLocation.country) ? tool.userLocation : undefined;
    return {
      type: 'web_search_20260318',
      name: 'web_search',
      max_uses: tool.maxUses,
      ...(location
        ? { user_location: { type: 'approximate', ...(location.timezone ? { timezone: location.timezone } : {}), ...(location.country ? { country: location.country } : {}) } }
        : {}),
    };
  }
  return {
    type: 'web_fetch_20260318',
    name: 'web_fetch',
    max_uses: tool.maxUses,
    allowed_domains: tool.allowedDomains,
    // Only URLs the user wrote may be fetched: never one from a tool's result (a search hit, an
    // email a tool read), so nothing but the user can make Herald open a page.
    url_sources: { user_input: { type: 'all' }, client_tool_results: { type: 'none' }, server_tool_results: { type: 'none' } },
  };
}
