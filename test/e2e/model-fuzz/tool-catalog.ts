import type { HeraldHarness } from '../../helpers/herald-harness.js';
import type { JsonSchema } from './json-schema-arbitrary.js';
import type { ToolCatalog } from './model-program.js';

/**
 * Reads the tools Herald offers each role off one warm-up turn from `phone`, whose plan has a
 * step per agent the planner is told of: what the fuzz's calls are generated from is exactly
 * what the model is shown (names and JSON Schemas), and an agent added later is fuzzed too.
 */
export async function readToolCatalog(harness: HeraldHarness, phone: string): Promise<ToolCatalog> {
  const schemas = new Map<string, JsonSchema>();
  const catalog: ToolCatalog = { schemas, planner: [], agents: {} };
  let agents: string[] = [];
  const record = (tools: unknown, key: (name: string) => string): string[] => {
    const named = (Array.isArray(tools) ? tools : []).filter((tool): tool is { name: string; input_schema: JsonSchema } => typeof tool?.name === 'string' && tool.input_schema !== undefined);
    for (const tool of named) schemas.set(key(tool.name), tool.input_schema);
    return named.map((tool) => tool.name);
  };
  harness.anthropic.reset();
  harness.anthropic.setFallback((request) => {
    if (request.toolNames().includes('create_plan')) {
      for (const name of record(request.body.tools, (tool) => tool)) if (!catalog.planner.includes(name)) catalog.planner.push(name);
      // The light planner hands the first message on, so both planners' tools are seen.
      if (request.toolNames().includes('hand_to_planner')) return { toolCalls: [{ name: 'hand_to_planner', input: { reason: 'warm-up' } }] };
      agents = [...request.systemText().matchAll(/<agent name="([^"]+)">/g)].map((match) => match[1]!);
      return { toolCalls: [{ name: 'create_plan', input: { analysis: 'warm-up', goal: 'warm-up', steps: agents.map((agent, index) => ({ id: `w${index}`, agent, task: `warm-up ${agent}`, dependsOn: [] })) } }] };
    }
    if (request.systemText().includes('<composing>')) return { text: 'Warmed up.' };
    const agent = /warm-up (\S+)/.exec(request.lastUserText())?.[1];
    if (agent) catalog.agents[agent] = record(request.body.tools, (tool) => (tool === 'complete_step' ? `complete_step@${agent}` : tool));
    return { toolCalls: [{ name: 'complete_step', input: { summary: 'Warmed up.' } }] };
  });
  await harness.exchange(phone, 'hello');
  await harness.idle(phone);
  harness.anthropic.rethrowScriptErrors();
  const missing = agents.filter((agent) => !catalog.agents[agent]);
  if (agents.length === 0 || missing.length > 0 || !catalog.planner.includes('hand_to_planner')) {
    throw new Error(`the warm-up turn did not reach ${missing.join(', ') || 'both planners'} (a plan has at most MAX_PLAN_STEPS steps: more agents need a second warm-up turn)`);
  }
  return catalog;
}
