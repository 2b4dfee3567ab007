import type { Logger } from '../logging/logger.js';
import type { TraceSpan, Tracing, TracingSettings } from './tracing-types.js';

export type {    Tracing, TracingSettings } from './tracing-types.js';

const noopSpan: TraceSpan = { setAttributes() {}, fail() {}, traceparent: undefined };

/** Tracing switched off: each span is just the call it wraps. */
export const noopTracing: Tracing = {
  enabled: false,
  span: (_name, _options, work) => work(noopSpan),
  record() {},
  currentTraceparent: () => undefined,
  async shutdown() {},
};

/**
 * Tracing for Herald: {@link noopTracing} when `settings` is undefined, otherwise the
 * OpenTelemetry SDK, imported here and only here, so an untraced Herald never loads it.
 */
export async function startTracing(settings: TracingSettings | undefined, logger: Logger): Promise<Tracing> {
  if (!settings) return noopTracing;
  const { createOtelTracing } = await import('./otel-tracing.js');
  return createOtelTracing(settings, logger);
}
