import { addUsage, emptyUsage, type ModelClient, type ModelRequest, type ModelResponse, type TokenUsage } from './model-client.js';

/**
 * Wraps a model to count every call and its tokens, whichever component made it, so a
 * turn's totals are exact even when a step fails midway.
 */
export class CountingModel implements ModelClient {
  calls = 0;
  usage: TokenUsage = emptyUsage();
  /** Time spent waiting for the model, in milliseconds (benchmarks subtract it). */
  waitingMs = 0;

  constructor(
    private readonly inner: ModelClient,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async generate(request: ModelRequest): Promise<ModelResponse> {
    this.calls += 1;
    const started = this.now();
    try {
      const response = await this.inner.generate(request);
      this.usage = addUsage(this.usage, response.usage);
      return response;
    } finally {
      this.waitingMs += this.now() - started;
    }
  }
}
