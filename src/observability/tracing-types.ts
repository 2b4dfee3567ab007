/*
 * The tracing seam's types, apart from tracing.ts so that the OpenTelemetry implementation
 * (otel-tracing.ts, loaded by tracing.ts only when tracing is on) can use them without
 * importing the module that loads it.
 */

/** Span attribute values: never message text, a phone number, a user id or a secret. */
export type SpanAttributes = Record<string, string | number | boolean | string[] | undefined>;

/** A span being recorded. */
export interface TraceSpan {
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span failed with the error's kind (its class and blame, never its message: messages can quote people). */
  fail(error: unknown): void;
  /** This span as a W3C `traceparent`, to store with work that continues the trace elsewhere; undefined when not tracing. */
  readonly traceparent: string | undefined;
}

/** Where a span sits. */
export interface SpanOptions {
  attributes?: SpanAttributes;
  /**
   * A stored `traceparent` to continue (a turn continues its webhook's trace, even on another
   * instance after a crash); `null` starts a new trace; absent: the span in progress, if any.
   */
  parent?: string | null | undefined;
  kind?: 'server' | 'client' | 'internal';
}

/**
 * Herald's tracing seam. Without OTEL_EXPORTER_OTLP_ENDPOINT it is {@link noopTracing}, which
 * only calls the function it wraps: no OpenTelemetry module is even loaded. With it,
 * {@link startTracing} loads the OpenTelemetry SDK (otel-tracing.ts) and exports over OTLP/HTTP.
 */
export interface Tracing {
  readonly enabled: boolean;
  /** Runs `work` inside a new span, which ends (failed, if `work` throws) when `work` settles. */
  span<Result>(name: string, options: SpanOptions, work: (span: TraceSpan) => Promise<Result>): Promise<Result>;
  /** A span that already happened (a send timed by its caller), under `options.parent` or the span in progress. */
  record(name: string, options: SpanOptions & { startTime: number; endTime: number; failed?: boolean }): void;
  /** The span in progress as a `traceparent`, if any. */
  currentTraceparent(): string | undefined;
  /** Exports what is buffered (bounded in time) and stops. */
  shutdown(): Promise<void>;
}

/** What tracing needs to export. */
export interface TracingSettings {
  /** The OTLP/HTTP traces endpoint (…/v1/traces). */
  tracesUrl: string;
  headers: Record<string, string>;
  serviceName: string;
  /** Per export request; a slow collector is abandoned after this (default 5 s). */
  exportTimeoutMs?: number;
  /** How often buffered spans are sent (default 2 s). */
  exportDelayMs?: number;
}
