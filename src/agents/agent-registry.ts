import type { AgentDefinition } from './agent-definition.js';

/** The agents the orchestrator can delegate to, by name. */
export interface AgentRegistry {
  get(name: string): AgentDefinition | undefined;
  list(): AgentDefinition[];
  /** The fallback for requests no specialist fits. */
  readonly fallback: string;
}

/** Builds the registry; names must be unique and the fallback must be registered. */
export function createAgentRegistry(agents: AgentDefinition[], fallback = 'general-agent'): AgentRegistry {
  const byName = new Map<string, AgentDefinition>();
  for (const agent of agents) {
    if (byName.has(agent.name)) throw new Error(`agent "${agent.name}" is registered twice`);
    byName.set(agent.name, agent);
  }
  if (!byName.has(fallback)) throw new Error(`the fallback agent "${fallback}" is not registered`);
  return {
    get: (name) => byName.get(name),
    list: () => [...byName.values()],
    fallback,
  };
}
