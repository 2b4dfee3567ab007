/** How failed sends are retried. */
export interface RetryPolicy {
  /** Attempts in total before a message is given up as failed. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * Delay before attempt `attempt + 1`, after `attempt` failures: exponential backoff with
 * "equal jitter" (half the exponential cap plus a random share of the other half), so
 * many instances retrying
 * after one Twilio hiccup do not retry in lockstep. A server's Retry-After is a floor.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random, retryAfterMs?: number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const jittered = Math.round(cap / 2 + (random() * cap) / 2);
  return Math.max(jittered, retryAfterMs ?? 0);
}
