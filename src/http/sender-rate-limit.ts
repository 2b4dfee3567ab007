import { parseTwilioAddress } from '../channels/phone-number.js';

/** Whether a sender is within its allowance, and when its window ends if not. */
export type RateDecision = { limited: false } | { limited: true; resetAt: Date };

/** Senders tracked at most before expired windows are pruned. */
const PRUNE_AT = 10_000;

/**
 * The per-sender webhook rate limit (WEBHOOK_RATE_LIMIT_PER_MINUTE), keyed on the sender's
 * E.164 number: `+14155550100`, `whatsapp:+14155550100` and `tel:+1 (415) 555-0100` are one
 * sender, as they are one user. It only decides; the route decides what "limited" costs,
 * and it never costs the sender's text (Twilio does not retry a refused messaging
 * webhook, so a 429 would silently drop it). In memory, per instance, as a fixed window.
 */
export class SenderRateLimit {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly maxPerWindow: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one delivery from `from` (the webhook's raw From) and says whether it is over the allowance. */
  check(from: string): RateDecision {
    const key = senderKey(from);
    const now = this.now();
    if (this.windows.size >= PRUNE_AT) {
      for (const [candidate, window] of this.windows) if (window.resetAt <= now) this.windows.delete(candidate);
    }
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return window.count > this.maxPerWindow ? { limited: true, resetAt: new Date(window.resetAt) } : { limited: false };
  }
}

/** The sender as one key: its E.164 number when it has one, else the raw value trimmed and lower-cased. */
function senderKey(from: string): string {
  return parseTwilioAddress(from)?.phone ?? from.trim().toLowerCase();
}
