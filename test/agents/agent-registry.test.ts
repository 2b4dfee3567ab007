/** The agent registry (NFR-6): adding an agent is adding one entry. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, type AgentDefinition } from '../../src/agents/agent-definition.js';
import { createAgentRegistry } from '../../src/agents/agent-registry.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { orchestrate } from '../../src/orchestrator/orchestrate.js';
import { defineTool, ok } from '../../src/tools/tool.js';
import { complete, createPlan, makeContext, makeDeps, step, testAgents, createTestWorld, callTool } from '../orchestrator/support/index.js';

function agent(name: string, overrides: Partial<AgentDefinition> = {}): AgentDefinition {
  return defineAgent({
    name,
    description: `${name} does things.`,
    capabilities: ['things'],
    examples: ['do a thing'],
    triggers: { english: [], hebrew: [] },
    priority: 0,
    tools: [],
    systemPrompt: `${name} prompt`,
    modelRole: 'agent',
    maxTokens: 256,
    promptBudgetTokens: 2000,
    outputData: z.object({}),
    ...overrides,
  });
}

describe('createAgentRegistry', () => {
  it('finds agents by name, lists them in order and names the fallback', () => {
    const registry = createAgentRegistry([agent('general-agent'), agent('weather-agent')]);
    expect(registry.get('weather-agent')?.systemPrompt).toBe('weather-agent prompt');
    expect(registry.get('nobody')).toBeUndefined();
    expect(registry.list().map((entry) => entry.name)).toEqual(['general-agent', 'weather-agent']);
    expect(registry.fallback).toBe('general-agent');
  });

  it('refuses a name registered twice', () => {
    expect(() => createAgentRegistry([agent('general-agent'), agent('general-agent')])).toThrow('agent "general-agent" is registered twice');
  });

  it('refuses a registry without its fallback agent', () => {
    expect(() => createAgentRegistry([agent('weather-agent')])).toThrow('the fallback agent "general-agent" is not registered');
    expect(createAgentRegistry([agent('weather-agent')], 'weather-agent').fallback).toBe('weather-agent');
  });

  it('makes a new agent plannable and runnable with nothing but a registry entry (NFR-6)', async () => {
    const forecasts: string[] = [];
    const weather = agent('weather-agent', {
      description: 'Gives WEATHER-AGENT-DESCRIPTION forecasts.',
      triggers: { english: ['forecast'], hebrew: ['תחזית'] },
      tools: [
        defineTool({
          name: 'get_forecast',
          description: 'Gets the forecast.',
          mutates: false,
          inputSchema: z.object({ city: z.string() }),
          async run({ city }) {
            forecasts.push(city);
            return ok({ forecast: 'sunny' });
          },
        }),
      ],
    });
    const registry = createAgentRegistry([...testAgents(createTestWorld()), weather]);
    const model = new ScriptedModel([
      createPlan([step('step_1', 'weather-agent', 'Get the forecast for Lisbon')]),
      callTool('get_forecast', { city: 'Lisbon' }),
      complete({ summary: 'Sunny in Lisbon', reply: 'Sunny in Lisbon today.' }),
    ]);

    const result = await orchestrate(makeContext({ text: 'forecast for Lisbon?' }), makeDeps({ model, registry }));

    expect(result).toMatchObject({ status: 'succeeded', reply: 'Sunny in Lisbon today.', modelCalls: 3 });
    const planner = model.calls[0]!;
    expect(planner.system[0]!.text).toContain('<agent name="weather-agent">\nGives WEATHER-AGENT-DESCRIPTION forecasts.');
    expect(planner.system[1]!.text).toContain('<hint agent="weather-agent" matched="forecast"/>');
    expect(model.calls[1]!.tools!.map((tool) => tool.name)).toEqual(['get_forecast', 'complete_step']);
    expect(forecasts).toEqual(['Lisbon']);
  });
});
