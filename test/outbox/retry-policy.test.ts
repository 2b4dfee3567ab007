import { describe, expect, it } from 'vitest';
import { retryDelayMs, unknownOutcomeDelayMs, type RetryPolicy } from '../../src/outbox/retry-policy.js';

const policy: RetryPolicy = { retryForMs: 3_600_000, baseDelayMs: 500, maxDelayMs: 30_000 };

describe('retryDelayMs', () => {
  it('doubles the cap with each failed attempt, up to the maximum', () => {
    const top = (attempt: number) => retryDelayMs(policy, attempt, () => 1);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(top)).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
  });

  it('jitters between half the cap and the cap ("equal jitter")', () => {
    expect(retryDelayMs(policy, 3, () => 0)).toBe(1_000);
    expect(retryDelayMs(policy, 3, () => 0.5)).toBe(1_500);
    expect(retryDelayMs(policy, 3, () => 0.999999)).toBe(2_000);
    for (let index = 0; index < 200; index += 1) {
      const delay = retryDelayMs(policy, 4);
      expect(delay).toBeGreaterThanOrEqual(2_000);
      expect(delay).toBeLessThanOrEqual(4_000);
    }
  });

  it('spreads retries of many senders instead of moving them in lockstep', () => {
    const delays = new Set(Array.from({ length: 50 }, () => retryDelayMs(policy, 5)));
    expect(delays.size).toBeGreaterThan(10);
  });

  it("takes the server's Retry-After as a floor, even above the maximum", () => {
    expect(retryDelayMs(policy, 1, () => 0, 3_000)).toBe(3_000);
    expect(retryDelayMs(policy, 1, () => 1, 100)).toBe(500);
    expect(retryDelayMs(policy, 1, () => 1, 120_000)).toBe(120_000);
  });

  it('treats attempt 0 like attempt 1', () => {
    expect(retryDelayMs(policy, 0, () => 1)).toBe(500);
  });

  it('stays at the cap however many attempts an hour of retries makes', () => {
    expect(retryDelayMs(policy, 500, () => 1)).toBe(30_000);
    expect(retryDelayMs(policy, 5_000, () => 0)).toBe(15_000);
  });
});

describe('unknownOutcomeDelayMs', () => {
  it('gives Twilio five seconds to list a message it may have taken, or the backoff cap when smaller', () => {
    expect(unknownOutcomeDelayMs({ maxDelayMs: 30_000 })).toBe(5_000);
    expect(unknownOutcomeDelayMs({ maxDelayMs: 50 })).toBe(50);
  });
});
