import { z } from 'zod';
import type { ToolSpec } from '../model/model-client.js';
import type { ToolDefinition } from './tool.js';

/**
 * JSON Schemas already generated, by the zod schema they came from. A schema never
 * changes once built and the conversion is pure, but it walks the whole schema each time
 * (a few tenths of a millisecond per agent's tools): every tool loop of every turn would
 * pay it again for the same tools.
 */
const jsonSchemas = new WeakMap<z.ZodType, Readonly<Record<string, unknown>>>();

/**
 * The JSON Schema the model sees for a tool, generated from its zod schema (the single
 * source of truth; `modelSchema` when the tool has one) once per schema. `$schema` is dropped: the Messages API wants a bare
 * object schema. The result is shared between requests, so it is frozen.
 */
export function toolSpecOf(tool: Pick<ToolDefinition, 'name' | 'description' | 'inputSchema' | 'modelSchema'>): ToolSpec {
  const shown = tool.modelSchema ?? tool.inputSchema;
  let schema = jsonSchemas.get(shown);
  if (!schema) {
    // $schema is dropped: the API takes the schema bare.
    const { $schema: _ignored, ...generated } = z.toJSONSchema(shown, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    schema = deepFreeze(generated);
    jsonSchemas.set(shown, schema);
  }
  return { name: tool.name, description: tool.description, inputSchema: schema };
}

/** Freezes a plain JSON value and everything in it. */
function deepFreeze<Value>(value: Value): Value {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const nested of Object.values(value)) deepFreeze(nested);
  }
  return value;
}

/** A readable, model-facing description of why arguments were rejected. */
export function describeValidationError(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(input)'}: ${issue.message}`)
    .join('; ');
}
