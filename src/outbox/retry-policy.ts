/** How failed sends are retried. */
export interface RetryPolicy {
  /**
   * How long a part that keeps failing with retryable errors (5xx, 429, no answer) is tried,
   * counted from when it was written (OUTBOX_RETRY_FOR_MS, default an hour): past it, the next
   * such failure marks it failed. Only a permanent error ends it sooner.
   */
  retryForMs: number;
  baseDelayMs: number;
  /** The longest wait between two attempts (OUTBOX_RETRY_MAX_MS, default 30 s); a Retry-After may ask for more. */
  maxDelayMs: number;
}

/**
 * Delay before attempt `attempt + 1`, after `attempt` failures: exponential backoff with
 * "equal jitter" (half the exponential cap plus a random share of the other half), so
 * many instances retrying
 * after one Twilio hiccup do not retry in lockstep. A server's Retry-After is a floor.
 */
export function retryDelayMs(policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, attempt: number, random: () => number = Math.random, retryAfterMs?: number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(40, Math.max(0, attempt - 1)));
  const jittered = Math.round(cap / 2 + (random() * cap) / 2);
  return Math.max(jittered, retryAfterMs ?? 0);
}

/**
 * After an attempt whose outcome is unknown, the look-up waits at least this long (or the
 * backoff cap, when smaller): a message Twilio has just taken may take a moment to show in
 * its Messages list.
 */
export function unknownOutcomeDelayMs(policy: Pick<RetryPolicy, 'maxDelayMs'>): number {
  return Math.min(policy.maxDelayMs, 5_000);
}
