/**
 * What the real Messages API refuses, per model generation, as the fake enforces it. This
 * is the service's side of the contract and deliberately written apart from Herald's own
 * profile table (src/model/model-profiles.ts): a fake that reused Herald's table could
 * only ever agree with it.
 *
 * The 5.x generation (Anthropic's Sonnet 5.5 migration guide) answers 400 to: sampling
 * parameters, forced tool choice, thinking budgets, `thinking: {type: "disabled"}`, and
 * assistant prefill. Effort is `output_config.effort`; models before it reject that field.
 */

/** A 400 the fake answers, worded like the API's. */
export interface RuleViolation {
  message: string;
}

const fifthGeneration = /^claude-(opus|sonnet|haiku|fable|mythos)-5(-\d)?(-\d{8})?$/;
/** Last-generation models that already accept `output_config.effort`. */
const effortBeforeFifth = /^claude-(opus-4-[5-9]|sonnet-4-6)(-\d{8})?$/;

/** Whether a model name is of the 5.x generation (strict settings, thinks by default). */
export function isFifthGeneration(model: string): boolean {
  return fifthGeneration.test(model);
}

/** Minimum cacheable prefix, in tokens, per model family: shorter marked prefixes are silently not cached. */
export function minimumCacheableTokens(model: string): number {
  const family = model.replace(/-\d{8}$/, '');
  const floors: Record<string, number> = {
    'claude-opus-5': 512,
    'claude-opus-5-5': 1024,
    'claude-sonnet-5': 1024,
    'claude-sonnet-5-5': 1024,
    'claude-haiku-5-5': 2048,
    'claude-sonnet-4-6': 1024,
    'claude-sonnet-4-5': 1024,
    'claude-opus-4-6': 4096,
    'claude-haiku-4-5': 4096,
  };
  return floors[family] ?? 1024;
}

/** Checks a Messages request body against its model's rules; undefined when it passes. */
export function checkModelRules(body: Record<string, unknown>): RuleViolation | undefined {
  const model = String(body.model);
  const strict = isFifthGeneration(model);
  for (const parameter of ['temperature', 'top_p', 'top_k']) {
    if (strict && body[parameter] !== undefined) {
      return { message: `${parameter}: sampling parameters are not supported for ${model}; remove ${parameter} (use output_config.effort to control how much the model works)` };
    }
  }
  const toolChoice = body.tool_choice as { type?: unknown } | undefined;
  if (strict && toolChoice && (toolChoice.type === 'any' || toolChoice.type === 'tool')) {
    return { message: `tool_choice: forced tool use ("${String(toolChoice.type)}") is not supported for ${model}; use "auto" or "none"` };
  }
  const thinking = body.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
  if (strict && thinking) {
    if (thinking.type === 'disabled') return { message: `thinking: "disabled" is not supported for ${model}; thinking is adaptive` };
    if (thinking.type === 'enabled' || thinking.budget_tokens !== undefined) {
      return { message: `thinking.budget_tokens: thinking budgets are not supported for ${model}; use {"type": "adaptive"} with output_config.effort` };
    }
  }
  const effort = (body.output_config as { effort?: unknown } | undefined)?.effort;
  if (effort !== undefined && effort !== null) {
    if (!strict && !effortBeforeFifth.test(model)) return { message: `output_config.effort: effort is not supported for ${model}` };
    if (!['low', 'medium', 'high', 'xhigh', 'max'].includes(String(effort))) {
      return { message: `output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'` };
    }
  }
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: unknown }>) : [];
  if (strict && messages.at(-1)?.role === 'assistant') {
    return { message: `This model does not support assistant message prefill. The conversation must end with a user message.` };
  }
  return undefined;
}
