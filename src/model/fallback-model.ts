import type { Logger } from '../logging/logger.js';
import { describeError, ModelError, TimeoutError } from '../shared/errors.js';
import type { ModelClient, ModelRequest, ModelResponse } from './model-client.js';

/**
 * Tries a request's fallback models in order when its model is unavailable. The inner
 * client (the Anthropic adapter) has already spent the SDK's own retries by the time an
 * error reaches here, so the next model is tried at once, shaped by its own profile.
 * Only unavailability falls back (rate limited, overloaded, 5xx, a timeout, a model the
 * account cannot use); a request the API refuses as malformed, a bad key, or our own
 * cancellation (a step or plan time limit) would fail the same way on any model.
 */
export class FallbackModel implements ModelClient {
  constructor(
    private readonly inner: ModelClient,
    private readonly logger: Logger,
  ) {}

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const models = [request.model, ...(request.fallbackModels ?? [])];
    let lastError: unknown;
    for (const [index, model] of models.entries()) {
      try {
        return await this.inner.generate({ ...request, model, fallbackModels: [] });
      } catch (error) {
        lastError = error;
        const next = models[index + 1];
        if (next === undefined || request.signal?.aborted || !isUnavailability(error)) throw error;
        this.logger.warn({ purpose: request.purpose, model, next, error: describeError(error) }, 'model unavailable; trying the next one');
      }
    }
    throw lastError;
  }
}

/** Failures another model might not have. */
function isUnavailability(error: unknown): boolean {
  if (error instanceof TimeoutError) return true;
  return error instanceof ModelError && ['unavailable', 'rate_limited', 'overloaded', 'model_not_found'].includes(error.reason);
}
