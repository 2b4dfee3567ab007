import { ModelError } from '../shared/errors.js';
import type { ModelClient, ModelRequest, ModelResponse } from './model-client.js';
import { abortableSleep } from '../shared/abortable-sleep.js';

/** How patiently a rate-limited call waits. */
export interface RateLimitPatienceOptions {
  /** The most one call waits in all for the limit to lift before its failure stands (default 60 s). */
  maxWaitMs?: number;
  /** The wait when the service names none (default 2 s). */
  defaultWaitMs?: number;
  /** Told of every wait, before it starts (metrics). */
  onWait?: (model: string, milliseconds: number) => void;
  sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

/**
 * Rate limits are a queue, not a failure: a call refused with 429 (after the SDK's own
 * retries and every fallback model) waits for the service's `retry-after`, with a little
 * jitter so a burst of turns does not return in lockstep, and tries again, until the
 * request's own deadline (its step and plan time limits) or `maxWaitMs` runs out. The turn
 * keeps its place in the queue and its lease (the worker's heartbeat goes on meanwhile):
 * a burst of people texting at once gets slower replies, not apologies.
 */
export class RateLimitPatience implements ModelClient {
  private readonly maxWaitMs: number;
  private readonly defaultWaitMs: number;
  private readonly sleep: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;

  constructor(
    private readonly inner: ModelClient,
    private readonly options: RateLimitPatienceOptions = {},
  ) {
    this.maxWaitMs = options.maxWaitMs ?? 60_000;
    this.defaultWaitMs = options.defaultWaitMs ?? 2_000;
    this.sleep = options.sleep ?? abortableSleep;
    this.random = options.random ?? Math.random;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    let waited = 0;
    for (;;) {
      try {
        return await this.inner.generate(request);
      } catch (error) {
        if (!(error instanceof ModelError) || error.reason !== 'rate_limited' || request.signal?.aborted) throw error;
        const wait = Math.round((error.retryAfterMs ?? this.defaultWaitMs) * (1 + 0.25 * this.random()));
        if (waited + wait > this.maxWaitMs) throw error;
        this.options.onWait?.(request.model, wait);
        try {
          await this.sleep(wait, request.signal);
        } catch {
          // The step or plan ran out of time while waiting: the limit is what failed.
          throw error;
        }
        waited += wait;
      }
    }
  }
}

