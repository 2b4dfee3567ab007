/**
 * How long a real model takes to answer, for the fake Anthropic server: the time to the first
 * token, then the answer's output tokens (thinking included) at the model's output speed. The
 * Messages API is called without streaming, so the whole answer is waited for.
 *
 * Defaults, per model Herald uses by default (the 5.x models are taken to be as fast as the
 * 4.5 models they follow, the latest with published measurements):
 * - claude-sonnet-5-5 (planner): 1.80 s to the first token, 63 output tokens/s: Claude Sonnet
 *   4.5 on Anthropic's API as measured by Artificial Analysis (artificialanalysis.ai), quoted
 *   in lattice.uptownhr.com/claude-opus-4-5/speed-analysis (Nov 2025).
 * - claude-haiku-5-5 (agents, composer, light planner): 0.60 s to the first token, Claude
 *   Haiku 4.5's 597 ms on a medium prompt (kunalganglani.com/blog/llm-api-latency-benchmarks-2026,
 *   Mar 2026); 68 output tokens/s, Claude 3.5 Haiku on Anthropic's API by Artificial Analysis
 *   (artificialanalysis.ai/models/claude-3-5-haiku/providers): no measurement of Haiku 4.5's
 *   output speed was at hand, and its predecessor's is a floor (Anthropic calls 4.5 faster).
 *
 * `BENCH_MODEL_TIMING` overrides them: `model=ttftMs:tokensPerSecond`, comma-separated, e.g.
 * `claude-sonnet-5-5=1200:80,claude-haiku-5-5=400:150`.
 */
export interface ModelTiming {
  /** Milliseconds to the first token. */
  firstTokenMs: number;
  outputTokensPerSecond: number;
}

const DEFAULT_MODEL_TIMINGS: Readonly<Record<string, ModelTiming>> = {
  'claude-sonnet-5-5': { firstTokenMs: 1800, outputTokensPerSecond: 63 },
  'claude-haiku-5-5': { firstTokenMs: 600, outputTokensPerSecond: 68 },
};

/** The timings in force: the defaults, with `BENCH_MODEL_TIMING`'s entries over them. */
export function modelTimings(spec = process.env.BENCH_MODEL_TIMING): Record<string, ModelTiming> {
  const timings: Record<string, ModelTiming> = { ...DEFAULT_MODEL_TIMINGS };
  for (const entry of (spec ?? '').split(',').map((part) => part.trim()).filter(Boolean)) {
    const match = /^([\w.-]+)=(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(entry);
    if (!match) throw new Error(`BENCH_MODEL_TIMING: "${entry}" is not model=ttftMs:tokensPerSecond`);
    timings[match[1]!] = { firstTokenMs: Number(match[2]), outputTokensPerSecond: Number(match[3]) };
  }
  return timings;
}

/** How long `model` takes to answer with `outputTokens` tokens; a model without a timing answers at once. */
export function answerDelayMs(timings: Record<string, ModelTiming>, model: string, outputTokens: number): number {
  const timing = timings[model];
  if (!timing) return 0;
  return Math.round(timing.firstTokenMs + (outputTokens / timing.outputTokensPerSecond) * 1000);
}

/** The output tokens of an answer as the fake counts them (about four characters each). */
export function outputTokensOf(answer: { text?: string; thinking?: string; toolCalls?: Array<{ input: unknown }> }): number {
  const characters = (answer.text ?? '').length + (answer.thinking ?? '').length + (answer.toolCalls ?? []).reduce((sum, call) => sum + JSON.stringify(call.input).length, 0);
  return Math.ceil(characters / 4);
}
