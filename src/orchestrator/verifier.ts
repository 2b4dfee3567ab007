import type { ToolCallRecord } from '../agents/tool-loop.js';
import type { AgentOutput } from './plan-schema.js';

const kinds = ['created', 'updated', 'deleted'] as const;

/**
 * Counts what successful mutating tool calls actually did, by the `effect` they reported
 * ("created", "updated", "deleted", "unchanged") or, for batch tools, their `effects` counts.
 */
export function actualEffects(toolCalls: ToolCallRecord[]): Record<(typeof kinds)[number], number> & { unknown: number } {
  const counts = { created: 0, updated: 0, deleted: 0, unknown: 0 };
  for (const call of toolCalls) {
    if (!call.mutates || call.isError) continue;
    const result = call.result as { effect?: unknown; effects?: Partial<Record<(typeof kinds)[number], number>> } | null;
    if (result?.effects) {
      // Batch tools (add three items at once) report a count per kind.
      for (const kind of kinds) counts[kind] += result.effects[kind] ?? 0;
      continue;
    }
    const effect = result?.effect;
    if (effect === 'created' || effect === 'updated' || effect === 'deleted') counts[effect] += 1;
    else if (effect !== 'unchanged') counts.unknown += 1;
  }
  return counts;
}

/**
 * An agent never claims an action it did not perform: the items a step reports as
 * created, updated or deleted must match, kind by kind, the mutating tool calls that
 * succeeded in that step. (A mutating tool that reports no effect may account for any
 * one claimed item.) Returns why not, or undefined when the claims hold.
 */
export function verifyClaims(output: AgentOutput, toolCalls: ToolCallRecord[]): string | undefined {
  const actual = actualEffects(toolCalls);
  let slack = actual.unknown;
  const problems: string[] = [];
  for (const kind of kinds) {
    const claimed = output[kind]?.length ?? 0;
    const difference = claimed - actual[kind];
    if (difference === 0) continue;
    if (difference > 0 && difference <= slack) {
      slack -= difference;
      continue;
    }
    problems.push(`claimed ${claimed} ${kind} but ${actual[kind]} tool call(s) actually ${kind} something`);
  }
  return problems.length > 0 ? `The report does not match what was done: ${problems.join('; ')}.` : undefined;
}
