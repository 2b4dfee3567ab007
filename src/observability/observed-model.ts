import type { ModelClient, ModelRequest, ModelResponse } from '../model/model-client.js';
import { costOfUsage } from '../model/model-cost.js';
import { ModelError } from '../shared/errors.js';
import type { HeraldMetrics } from './metrics.js';
import type { Tracing } from './tracing.js';

/**
 * Wraps the model adapter so every call (each attempt: a fallback model is its own call)
 * is counted in metrics (calls, duration, tokens, cost by model and role) and traced as an
 * OpenTelemetry GenAI client span (`chat <model>`, with the semantic conventions' model,
 * token and finish-reason attributes; never the prompt or the answer). Returns `inner`
 * itself when neither metrics nor tracing is on.
 */
export function observedModel(inner: ModelClient, metrics: HeraldMetrics, tracing: Tracing, now: () => number = () => performance.now()): ModelClient {
  if (!metrics.enabled && !tracing.enabled) return inner;
  return {
    generate(request: ModelRequest): Promise<ModelResponse> {
      const role = request.purpose ?? 'unknown';
      return tracing.span(
        `chat ${request.model}`,
        {
          kind: 'client',
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.provider.name': 'anthropic',
            'gen_ai.request.model': request.model,
            'gen_ai.request.max_tokens': request.maxTokens,
            'herald.model.role': role,
          },
        },
        async (span) => {
          const started = now();
          try {
            const response = await inner.generate(request);
            const model = response.model || request.model;
            const { usage } = response;
            const costUsd = costOfUsage(model, usage);
            metrics.modelCall({
              model,
              role,
              outcome: 'ok',
              seconds: (now() - started) / 1000,
              tokens: { input: usage.inputTokens, output: usage.outputTokens, cacheRead: usage.cacheReadTokens, cacheWrite: usage.cacheWriteTokens },
              costUsd,
            });
            span.setAttributes({
              'gen_ai.response.model': model,
              // The conventions count cached prompt tokens within input tokens, and separately too.
              'gen_ai.usage.input_tokens': usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
              'gen_ai.usage.output_tokens': usage.outputTokens,
              'gen_ai.usage.cache_read.input_tokens': usage.cacheReadTokens,
              'gen_ai.usage.cache_creation.input_tokens': usage.cacheWriteTokens,
              'gen_ai.response.finish_reasons': [response.stopReason],
              'herald.model.cost_usd': costUsd,
            });
            return response;
          } catch (error) {
            const rateLimited = error instanceof ModelError && error.reason === 'rate_limited';
            metrics.modelCall({ model: request.model, role, outcome: rateLimited ? 'rate_limited' : 'error', seconds: (now() - started) / 1000 });
            if (error instanceof ModelError) span.setAttributes({ 'error.type': error.reason, ...(error.status !== undefined ? { 'http.response.status_code': error.status } : {}) });
            throw error;
          }
        },
      );
    },
  };
}
