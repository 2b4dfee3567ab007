import type { TokenUsage } from './model-client.js';
import { profileFor, type TokenPrices } from './model-profiles.js';

/** Anthropic's web search: $10 per 1,000 searches, on top of the tokens its results add (web fetch costs tokens only). */
const WEB_SEARCH_PRICE_USD = 10 / 1000;

/**
 * What one call (or a sum of calls to one model) cost, in USD, from the model's profile.
 * `inputTokens` is what the API bills at the full input rate: it excludes the prompt
 * tokens read from or written to the cache, which have their own rates. Web searches are
 * billed per search.
 */
export function costOfUsage(model: string, usage: TokenUsage): number {
  const profile = profileFor(model);
  const promptTokens = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  const prices: TokenPrices =
    profile.longPromptPrices && promptTokens > profile.longPromptPrices.aboveTokens ? profile.longPromptPrices : profile.prices;
  // One-hour cache writes cost twice the input price (5-minute ones are the profile's cacheWrite).
  const hourWrites = Math.min(usage.cacheWrite1hTokens ?? 0, usage.cacheWriteTokens);
  const dollars =
    usage.inputTokens * prices.input +
    usage.outputTokens * prices.output +
    (usage.cacheWriteTokens - hourWrites) * prices.cacheWrite +
    hourWrites * prices.input * 2 +
    usage.cacheReadTokens * prices.cacheRead;
  return dollars / 1_000_000 + (usage.webSearches ?? 0) * WEB_SEARCH_PRICE_USD;
}

/** USD rounded to micro-dollars, the precision Herald stores. */
export function roundUsd(dollars: number): number {
  return Math.round(dollars * 1_000_000) / 1_000_000;
}
