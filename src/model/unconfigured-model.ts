import { ConfigurationError } from '../shared/errors.js';
import type { ModelClient, ModelResponse } from './model-client.js';

/**
 * Stands in for the model when ANTHROPIC_API_KEY is not set, so Herald still runs
 * end to end locally: every call fails with a configuration error, which the
 * orchestrator turns into a reply saying exactly that.
 */
export class UnconfiguredModel implements ModelClient {
  async generate(): Promise<ModelResponse> {
    throw new ConfigurationError('ANTHROPIC_API_KEY is not set, so Herald cannot call its model');
  }
}
