import type { ToolResult } from './tool.js';

/** One mutating call about to run, as the tool loop hands it over. */
export interface KeyedCall {
  tool: string;
  /** The validated arguments. */
  input: unknown;
  /** How many identical calls (same tool, same arguments) the same step attempt made before this one. */
  occurrence: number;
  /** What of a successful output is kept for a re-run (the tool's `recordOutput`, else all of it). */
  keep: (output: unknown) => unknown;
  /** The step's signal: a call cut off by it may still have taken effect. */
  signal?: AbortSignal | undefined;
}

/** What happened to a keyed call. */
export type KeyedOutcome =
  /** It ran now. */
  | { kind: 'ran'; result: ToolResult }
  /** This request already made it (an earlier attempt, step or run): its output, not run again. */
  | { kind: 'replayed'; output: unknown }
  /** An earlier run of it was cut off before it reported back: it may have taken effect, so it did not run. */
  | { kind: 'uncertain' };

/**
 * The seam between the tool loop and src/tool-calls: every mutating call of a step runs
 * through it, keyed by the request, the tool, its arguments and its occurrence, so that a
 * request run again (a retried or replanned step, a turn taken over after a crash) does not
 * make a call it already made. `execute` runs the tool; it resolves once the tool has, even
 * when the step was cut off meanwhile, so a late success is still kept.
 */
export interface KeyedToolCalls {
  run(call: KeyedCall, execute: () => Promise<ToolResult>): Promise<KeyedOutcome>;
}
