/**
 * The JSON Schema a model is shown for a tool: generated from the zod schema once and
 * shared, exactly what a fresh conversion gives (the request bytes, and so the prompt
 * cache prefix, do not depend on whether the cache was warm).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { planSchema } from '../../src/orchestrator/plan-schema.js';
import { defineTool } from '../../src/tools/tool.js';
import { toolSpecOf } from '../../src/tools/tool-spec.js';

const freshJsonSchema = (schema: z.ZodType) => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
};

const tool = defineTool({
  name: 'add_thing',
  description: 'Adds a thing.',
  mutates: true,
  inputSchema: z.object({ name: z.string().trim().min(1).describe('What to add'), count: z.number().int().default(1) }),
  run: async () => ({ isError: false, output: 'ok' }),
});

describe('toolSpecOf', () => {
  it('gives the same JSON Schema as a fresh conversion, without $schema', () => {
    const spec = toolSpecOf(tool);
    expect(spec).toEqual({ name: 'add_thing', description: 'Adds a thing.', inputSchema: freshJsonSchema(tool.inputSchema) });
    expect(spec.inputSchema).not.toHaveProperty('$schema');
  });

  it('converts a schema once and shares the frozen result between calls', () => {
    const first = toolSpecOf(tool);
    const second = toolSpecOf({ ...tool, name: 'renamed', description: 'Another name for the same input.' });
    expect(second.inputSchema).toBe(first.inputSchema);
    expect(second.name).toBe('renamed');
    expect(Object.isFrozen(first.inputSchema)).toBe(true);
    expect(Object.isFrozen((first.inputSchema.properties as Record<string, unknown>).name)).toBe(true);
  });

  it('shows modelSchema when a tool has one: refinements per call do not change what the model sees', () => {
    const refined = planSchema.superRefine((plan, issues) => {
      if (plan.steps.length > 2) issues.addIssue({ code: 'custom', path: ['steps'], message: 'at most 2 steps' });
    });
    const spec = toolSpecOf({ name: 'create_plan', description: 'Submit the plan.', inputSchema: refined, modelSchema: planSchema });
    expect(spec.inputSchema).toEqual(freshJsonSchema(refined));
    expect(spec.inputSchema).toBe(toolSpecOf({ name: 'create_plan', description: 'Submit the plan.', inputSchema: planSchema }).inputSchema);
  });
});
