import { z } from 'zod';
import type { ToolSpec } from '../model/model-client.js';
import type { ToolDefinition } from './tool.js';

/**
 * The JSON Schema the model sees for a tool, generated from its zod schema (the single
 * source of truth). `$schema` is dropped: the Messages API wants a bare object schema.
 */
export function toolSpecOf(tool: Pick<ToolDefinition, 'name' | 'description' | 'inputSchema'>): ToolSpec {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.inputSchema, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, inputSchema: schema };
}

/** A readable, model-facing description of why arguments were rejected. */
export function describeValidationError(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(input)'}: ${issue.message}`)
    .join('; ');
}
