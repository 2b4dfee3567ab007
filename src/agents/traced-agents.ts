import type { AgentDefinition } from './agent-definition.js';
import type { AgentRegistry } from './agent-registry.js';
import type { ToolDefinition } from '../tools/tool.js';
import type { Tracing } from '../observability/tracing.js';

/**
 * The registry with every tool's run traced as an `execute_tool <name>` span (the GenAI
 * conventions' tool span: its name, its agent and whether it failed; never its arguments
 * or output, which hold what people wrote). The registry itself when tracing is off.
 */
export function tracedRegistry(registry: AgentRegistry, tracing: Tracing): AgentRegistry {
  if (!tracing.enabled) return registry;
  const traced = new Map<string, AgentDefinition>();
  const wrap = (agent: AgentDefinition): AgentDefinition => {
    let copy = traced.get(agent.name);
    if (!copy) {
      copy = { ...agent, tools: agent.tools.map((tool) => tracedTool(tool, agent.name, tracing)) };
      traced.set(agent.name, copy);
    }
    return copy;
  };
  return {
    get: (name) => {
      const agent = registry.get(name);
      return agent && wrap(agent);
    },
    list: () => registry.list().map(wrap),
    fallback: registry.fallback,
  };
}

function tracedTool(tool: ToolDefinition, agent: string, tracing: Tracing): ToolDefinition {
  return {
    ...tool,
    run: (input, context) =>
      tracing.span(
        `execute_tool ${tool.name}`,
        { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool.name, 'gen_ai.agent.name': agent, 'herald.tool.mutates': tool.mutates, 'herald.tool.confirmed': Boolean(context.confirmed) } },
        async (span) => {
          const result = await tool.run(input, context);
          span.setAttributes({ 'herald.tool.is_error': result.isError });
          return result;
        },
      ),
  };
}
