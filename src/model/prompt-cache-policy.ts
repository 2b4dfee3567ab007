import type { ModelClient, ModelRequest, ModelResponse } from './model-client.js';

/** How a request's stable prefix is cached: not at all, 5 minutes (the API's default), or 1 hour. */
export type CacheTtl = 'none' | '5m' | '1h';

const MINUTE = 60_000;
const FIVE_MINUTES = 5 * MINUTE;
const ONE_HOUR = 60 * MINUTE;

/**
 * What a use of a cached prefix costs, as a multiple of its tokens at the model's input
 * price (Anthropic's prompt-caching prices): not cached, 1; a 5-minute write, 1.25; a 1-hour
 * write, 2; any read, 0.1. A read refreshes the entry's lifetime.
 */
const CACHE_PRICE = { uncached: 1, write5m: 1.25, write1h: 2, read: 0.1 } as const;

/**
 * Chooses, per stable prompt prefix, the cache lifetime that costs least at the pace that
 * prefix is actually used. Each prefix (a model and a role: the planner's tools and
 * instructions, an agent's, the composer's) is used at its own pace: a busy deployment uses
 * the planner's every few seconds, a family's every half hour or two. With the gaps between
 * recent uses measured, the expected cost of one use is, for each choice:
 *
 *   none: 1
 *   5m:   1.25 × P(gap > 5 min) + 0.1 × P(gap ≤ 5 min)
 *   1h:   2    × P(gap > 1 h)   + 0.1 × P(gap ≤ 1 h)
 *
 * and the cheapest wins: 1 hour pays when most gaps fall between 5 and 60 minutes, 5 minutes
 * when they are shorter (or as likely longer as shorter), and no cache marker at all when the
 * prefix is almost never reused within an hour (a write would cost a quarter more than
 * sending it plainly). Until a prefix has a few gaps measured, one pseudo-gap under 5 minutes
 * and one over an hour stand in, which chooses the API's default, 5 minutes.
 */
export class PromptCachePolicy {
  private readonly lastUse = new Map<string, number>();
  private readonly gaps = new Map<string, number[]>();

  constructor(
    private readonly now: () => number = () => Date.now(),
    /** Gaps remembered per prefix: the most recent ones, so the choice follows a changing pace. */
    private readonly window = 40,
  ) {}

  /**
   * Records a use of `prefix` now and returns the lifetime to ask for. The lifetime decides
   * whether the next use finds the entry, so the gap just ended counts among the evidence.
   */
  choose(prefix: string): CacheTtl {
    this.record(prefix);
    return this.decide(prefix);
  }

  /** The cheapest lifetime for `prefix` at its measured pace (without recording a use). */
  decide(prefix: string): CacheTtl {
    const gaps = this.gaps.get(prefix) ?? [];
    const total = gaps.length + 2;
    const within5m = (gaps.filter((gap) => gap <= FIVE_MINUTES).length + 1) / total;
    const within1h = (gaps.filter((gap) => gap <= ONE_HOUR).length + 1) / total;
    const costs: Array<[CacheTtl, number]> = [
      ['5m', CACHE_PRICE.write5m * (1 - within5m) + CACHE_PRICE.read * within5m],
      ['1h', CACHE_PRICE.write1h * (1 - within1h) + CACHE_PRICE.read * within1h],
      ['none', CACHE_PRICE.uncached],
    ];
    return costs.reduce((best, candidate) => (candidate[1] < best[1] ? candidate : best))[0];
  }

  private record(prefix: string): void {
    const at = this.now();
    const last = this.lastUse.get(prefix);
    this.lastUse.set(prefix, at);
    if (last === undefined) return;
    const gaps = this.gaps.get(prefix) ?? [];
    gaps.push(Math.max(0, at - last));
    if (gaps.length > this.window) gaps.shift();
    this.gaps.set(prefix, gaps);
  }
}

/**
 * Sets each request's cache lifetime from the policy: the prefix is the model and the role
 * (`purpose`), whose system prompt and tools are the stable part. Requests with no block
 * marked for caching pass unchanged.
 */
export class PromptCacheTtlModel implements ModelClient {
  constructor(
    private readonly inner: ModelClient,
    private readonly policy: PromptCachePolicy,
  ) {}

  generate(request: ModelRequest): Promise<ModelResponse> {
    if (!request.system.some((block) => block.cache)) return this.inner.generate(request);
    return this.inner.generate({ ...request, cacheTtl: this.policy.choose(`${request.model}|${request.purpose ?? ''}`) });
  }
}
