/**
 * What each supported Claude model family accepts and costs. The Anthropic adapter builds
 * every request from the profile of the model it is sending to, so no role ever sends a
 * setting its model answers with 400 (the 5.x generation rejects sampling parameters,
 * forced tool choice, thinking budgets, `thinking: {type: "disabled"}` and assistant
 * prefill). Cost accounting reads the prices from here too.
 *
 * Sources: Anthropic's model overview pages and migration guides (Nov 2026). Prices are
 * USD per million tokens at the 5-minute cache TTL. Keep this table the one place these
 * facts live; an unknown model name gets {@link conservativeProfile} and a start-up warning.
 */

/** `output_config.effort` levels Herald uses. */
export type Effort = 'low' | 'medium' | 'high';

/** USD per million tokens. */
export interface TokenPrices {
  input: number;
  output: number;
  /** Writing a 5-minute cache entry. */
  cacheWrite: number;
  cacheRead: number;
}

/** One model family's rules and prices. */
export interface ModelProfile {
  /** The family id, e.g. "claude-sonnet-5-5"; dated snapshots ("…-20251001") share it. */
  family: string;
  /** Same family, one generation back: the default fallback. */
  previousGeneration?: string;
  accepts: {
    /** temperature / top_p / top_k. */
    samplingParameters: boolean;
    /** tool_choice "any" or a named tool. */
    forcedToolChoice: boolean;
    /** `output_config.effort`. */
    effort: boolean;
    /** A final assistant message the model continues. */
    assistantPrefill: boolean;
    /** Thinking modes the `thinking` parameter may name (Herald sends none; this says what would be refused). */
    thinkingModes: ReadonlyArray<'adaptive' | 'enabled' | 'disabled'>;
  };
  /** Whether responses may carry thinking blocks without asking (adaptive thinking on by default). */
  thinksByDefault: boolean;
  /** Shortest prefix, in tokens, that the API will cache; shorter marked prefixes are silently not cached. */
  minimumCacheableTokens: number;
  prices: TokenPrices;
  /** Prices for prompts longer than `aboveTokens` (Haiku 5.5 bills long prompts higher). */
  longPromptPrices?: TokenPrices & { aboveTokens: number };
}

const fifthGeneration = {
  samplingParameters: false,
  forcedToolChoice: false,
  effort: true,
  assistantPrefill: false,
  thinkingModes: ['adaptive'],
} as const;

/** The supported families, current generation first. */
export const modelProfiles: readonly ModelProfile[] = [
  {
    family: 'claude-opus-5-5',
    previousGeneration: 'claude-opus-4-6',
    accepts: fifthGeneration,
    thinksByDefault: true,
    minimumCacheableTokens: 1024,
    prices: { input: 4, output: 20, cacheWrite: 5, cacheRead: 0.2 },
  },
  {
    family: 'claude-sonnet-5-5',
    previousGeneration: 'claude-sonnet-4-6',
    accepts: fifthGeneration,
    thinksByDefault: true,
    minimumCacheableTokens: 1024,
    prices: { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.1 },
  },
  {
    family: 'claude-haiku-5-5',
    previousGeneration: 'claude-haiku-4-5',
    accepts: fifthGeneration,
    thinksByDefault: true,
    minimumCacheableTokens: 2048,
    prices: { input: 0.1, output: 0.5, cacheWrite: 0.125, cacheRead: 0.01 },
    longPromptPrices: { aboveTokens: 100_000, input: 0.5, output: 2.5, cacheWrite: 0.625, cacheRead: 0.05 },
  },
  {
    family: 'claude-sonnet-5',
    previousGeneration: 'claude-sonnet-4-6',
    accepts: fifthGeneration,
    thinksByDefault: true,
    minimumCacheableTokens: 1024,
    prices: { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 },
  },
  {
    family: 'claude-opus-5',
    previousGeneration: 'claude-opus-4-6',
    accepts: fifthGeneration,
    thinksByDefault: true,
    minimumCacheableTokens: 512,
    prices: { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  },
  {
    family: 'claude-sonnet-4-6',
    accepts: { samplingParameters: true, forcedToolChoice: true, effort: true, assistantPrefill: true, thinkingModes: ['adaptive', 'enabled', 'disabled'] },
    thinksByDefault: false,
    minimumCacheableTokens: 1024,
    prices: { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  },
  {
    family: 'claude-opus-4-6',
    accepts: { samplingParameters: true, forcedToolChoice: true, effort: true, assistantPrefill: true, thinkingModes: ['adaptive', 'enabled', 'disabled'] },
    thinksByDefault: false,
    minimumCacheableTokens: 4096,
    prices: { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  },
  {
    family: 'claude-haiku-4-5',
    accepts: { samplingParameters: true, forcedToolChoice: true, effort: false, assistantPrefill: true, thinkingModes: ['enabled', 'disabled'] },
    thinksByDefault: false,
    minimumCacheableTokens: 4096,
    prices: { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
  },
  {
    family: 'claude-sonnet-4-5',
    accepts: { samplingParameters: true, forcedToolChoice: true, effort: false, assistantPrefill: true, thinkingModes: ['enabled', 'disabled'] },
    thinksByDefault: false,
    minimumCacheableTokens: 1024,
    prices: { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  },
];

/**
 * For a model Herald does not know: send nothing optional (no sampling parameters, no
 * forced tool choice, no effort, no thinking setting, no prefill), cache only long
 * prefixes, and count cost at the highest current-generation prices so a budget errs on
 * the safe side.
 */
export const conservativeProfile: ModelProfile = {
  family: 'unknown',
  accepts: { samplingParameters: false, forcedToolChoice: false, effort: false, assistantPrefill: false, thinkingModes: [] },
  thinksByDefault: true,
  minimumCacheableTokens: 4096,
  prices: { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
};

const byFamily = new Map(modelProfiles.map((profile) => [profile.family, profile]));

/** The family a model name belongs to: the name itself, or a dated snapshot of it ("claude-haiku-4-5-20251001"). */
function familyOf(model: string): string {
  return model.trim().replace(/-\d{8}$/, '');
}

/** The profile of a model name; unknown names get the conservative profile. */
export function profileFor(model: string): ModelProfile {
  return byFamily.get(familyOf(model)) ?? conservativeProfile;
}

/** Whether Herald has a profile for this model name. */
export function isKnownModel(model: string): boolean {
  return byFamily.has(familyOf(model));
}

/** The default fallback list for a model: the previous generation of the same tier, when there is one. */
export function defaultFallbacks(model: string): string[] {
  const previous = byFamily.get(familyOf(model))?.previousGeneration;
  return previous ? [previous] : [];
}
