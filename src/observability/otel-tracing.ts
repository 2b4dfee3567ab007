import { context, isSpanContextValid, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { Logger } from '../logging/logger.js';
import { blameOf } from '../shared/errors.js';
import type { SpanAttributes, SpanOptions, TraceSpan, Tracing, TracingSettings } from './tracing-types.js';

/** The most often an export failure is logged. */
const WARN_EVERY_MS = 60_000;

let contextManagerInstalled = false;

/**
 * Installs the AsyncLocalStorage context manager once per process (OpenTelemetry's context
 * API is process-wide; several Heralds in one process, as in benchmarks, share it).
 */
function installContextManager(): void {
  if (contextManagerInstalled) return;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  contextManagerInstalled = true;
}

/**
 * The exporter, wrapped so that a collector that is down, slow or failing costs nothing
 * but the spans: the batch processor drops what it cannot send, and this says so at most
 * once a minute (with how many were dropped), never per span.
 */
class QuietExporter implements SpanExporter {
  private lastWarnedAt = Number.NEGATIVE_INFINITY;
  private droppedSinceWarning = 0;

  constructor(
    private readonly inner: SpanExporter,
    private readonly logger: Logger,
    private readonly now: () => number = () => Date.now(),
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) {
        this.droppedSinceWarning += spans.length;
        if (this.now() - this.lastWarnedAt >= WARN_EVERY_MS) {
          this.logger.warn({ droppedSpans: this.droppedSinceWarning, error: result.error?.message?.slice(0, 200) }, 'could not export traces to the OTLP endpoint; spans dropped (turns are unaffected)');
          this.lastWarnedAt = this.now();
          this.droppedSinceWarning = 0;
        }
      }
      resultCallback(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

const kinds = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;

/** Drops undefined attributes (OpenTelemetry would warn about each). */
function cleanAttributes(attributes: SpanAttributes | undefined): Record<string, string | number | boolean | string[]> {
  const clean: Record<string, string | number | boolean | string[]> = {};
  for (const [key, value] of Object.entries(attributes ?? {})) if (value !== undefined) clean[key] = value;
  return clean;
}

/** Reads the one header a parent context is carried in. */
const traceparentGetter: TextMapGetter<{ traceparent: string }> = {
  get: (carrier, key) => (key === 'traceparent' ? carrier.traceparent : undefined),
  keys: () => ['traceparent'],
};

/** OpenTelemetry tracing over OTLP/HTTP (JSON), with a batch processor. */
export function createOtelTracing(settings: TracingSettings, logger: Logger): Tracing {
  installContextManager();
  const exporter = new QuietExporter(
    new OTLPTraceExporter({ url: settings.tracesUrl, headers: settings.headers, timeoutMillis: settings.exportTimeoutMs ?? 5_000 }),
    logger.child({ component: 'tracing' }),
  );
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        scheduledDelayMillis: settings.exportDelayMs ?? 2_000,
        exportTimeoutMillis: settings.exportTimeoutMs ?? 5_000,
        // A collector that is away cannot make Herald hold more than this many spans.
        maxQueueSize: 4096,
        maxExportBatchSize: 512,
      }),
    ],
  });
  const tracer = provider.getTracer('herald');
  const propagator = new W3CTraceContextPropagator();

  const parentContext = (parent: string | null | undefined): Context => {
    if (parent === undefined) return context.active();
    if (parent === null) return ROOT_CONTEXT;
    return propagator.extract(ROOT_CONTEXT, { traceparent: parent }, traceparentGetter);
  };
  // W3C traceparent, written directly (it is on the webhook's hot path): version 00, ids, flags.
  const traceparentOf = (span: Span): string | undefined => {
    const spanContext = span.spanContext();
    if (!isSpanContextValid(spanContext)) return undefined;
    return `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  };
  const markFailed = (span: Span, error: unknown) => {
    span.setAttributes({ 'error.type': error instanceof Error ? error.constructor.name : typeof error, 'herald.error.blame': blameOf(error) });
    span.setStatus({ code: SpanStatusCode.ERROR, message: blameOf(error) });
  };

  return {
    enabled: true,
    async span(name, options: SpanOptions, work) {
      const span = tracer.startSpan(name, { kind: kinds[options.kind ?? 'internal'], attributes: cleanAttributes(options.attributes) }, parentContext(options.parent));
      const handle: TraceSpan = {
        setAttributes: (attributes) => span.setAttributes(cleanAttributes(attributes)),
        fail: (error) => markFailed(span, error),
        get traceparent() {
          return traceparentOf(span);
        },
      };
      try {
        return await context.with(trace.setSpan(parentContext(options.parent), span), () => work(handle));
      } catch (error) {
        markFailed(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
    record(name, options) {
      const span = tracer.startSpan(name, { kind: kinds[options.kind ?? 'internal'], attributes: cleanAttributes(options.attributes), startTime: options.startTime }, parentContext(options.parent));
      if (options.failed) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(options.endTime);
    },
    currentTraceparent() {
      const span = trace.getActiveSpan();
      return span ? traceparentOf(span) : undefined;
    },
    async shutdown() {
      // A collector that is down must not hold up a shutdown: bounded, then whatever is left is dropped.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        provider.shutdown().catch(() => undefined),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, (settings.exportTimeoutMs ?? 5_000) + 1_000);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
    },
  };
}
