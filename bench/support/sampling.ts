import { performance } from 'node:perf_hooks';
import type { ToolContext, ToolDefinition } from '../../src/tools/tool.js';

/**
 * Runs `action` `warmUp` times unmeasured (indexes -1, -2, …), then `runs` times measured
 * (indexes 0, 1, …); milliseconds per measured run. The index lets an action make each run
 * distinct (a new title per created event, say).
 */
export async function sampleMs(runs: number, warmUp: number, action: (index: number) => unknown): Promise<number[]> {
  for (let index = 0; index < warmUp; index += 1) await action(-1 - index);
  const samples: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    const started = performance.now();
    await action(index);
    samples.push(performance.now() - started);
  }
  return samples;
}

/** Runs a tool as an agent's loop does; a failure stops the benchmark (it would be measuring errors). */
export async function runTool(tool: ToolDefinition, input: unknown, context: ToolContext): Promise<unknown> {
  const result = await tool.run(tool.inputSchema.parse(input), context);
  if (result.isError) throw new Error(`${tool.name} failed: ${result.error}`);
  return result.output;
}
