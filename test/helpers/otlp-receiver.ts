import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** A span as an OTLP/HTTP JSON export carries it, flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  serviceName: string | undefined;
}

/** How the receiver answers exports. */
export type ReceiverMode = 'ok' | 'fail500' | 'hang';

/**
 * An in-process OTLP/HTTP trace receiver (`POST /v1/traces`, JSON, as a collector takes it):
 * it validates the export's shape strictly (a malformed one is a test failure, answered 400),
 * keeps the spans, and can be told to fail (500) or never answer, as a collector that is
 * broken or overloaded would.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every export request received, whatever it was answered. */
  requests = 0;
  readonly errors: string[] = [];
  mode: ReceiverMode = 'ok';
  private readonly waiters: Array<{ predicate: () => boolean; resolve: () => void }> = [];
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<OtlpReceiver> {
    let receiver: OtlpReceiver | undefined;
    const server = createServer((request, response) => void receiver!.handle(request, response));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    receiver = new OtlpReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  /** Resolves once `predicate` holds (checked after every export), or rejects after `timeoutMs`. */
  until(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`OtlpReceiver: condition not met within ${timeoutMs} ms (${this.spans.length} spans, ${this.requests} requests)`)), timeoutMs);
      this.waiters.push({ predicate, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    this.server.close();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    this.requests += 1;
    this.notify();
    if (this.mode === 'hang') {
      this.hanging.add(response);
      return;
    }
    if (this.mode === 'fail500') {
      response.writeHead(500, { 'content-type': 'application/json' }).end('{"code":13,"message":"collector failed"}');
      return;
    }
    if (request.method !== 'POST' || request.url !== '/v1/traces') return this.refuse(response, 404, `no route for ${request.method} ${request.url}`);
    if (!String(request.headers['content-type']).startsWith('application/json')) return this.refuse(response, 415, `content-type ${request.headers['content-type']}`);
    let raw = Buffer.concat(chunks);
    if (request.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
    try {
      this.spans.push(...parseExport(JSON.parse(raw.toString('utf8'))));
    } catch (error) {
      return this.refuse(response, 400, String(error));
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    this.notify();
  }

  private refuse(response: ServerResponse, status: number, message: string): void {
    this.errors.push(message);
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ message }));
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) {
      if (waiter.predicate()) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };

function anyValue(value: AnyValue): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  if ('arrayValue' in value) return (value.arrayValue?.values ?? []).map(anyValue);
  throw new Error(`unsupported attribute value ${JSON.stringify(value)}`);
}

function attributes(list: unknown): Record<string, unknown> {
  if (list === undefined) return {};
  if (!Array.isArray(list)) throw new Error('attributes must be an array');
  return Object.fromEntries(list.map((entry: { key: string; value: AnyValue }) => [entry.key, anyValue(entry.value)]));
}

/** OTLP JSON ids are hex strings (the protobuf JSON mapping's exception for trace and span ids). */
function hexId(value: unknown, length: number, what: string): string {
  if (typeof value !== 'string' || !new RegExp(`^[0-9a-f]{${length}}$`).test(value)) throw new Error(`${what} must be ${length} hex digits, got ${JSON.stringify(value)}`);
  return value;
}

function parseExport(body: { resourceSpans?: unknown }): ReceivedSpan[] {
  if (!Array.isArray(body.resourceSpans)) throw new Error('resourceSpans must be an array');
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of body.resourceSpans as Array<{ resource?: { attributes?: unknown }; scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }>) {
    const serviceName = attributes(resourceSpans.resource?.attributes)['service.name'] as string | undefined;
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        spans.push({
          traceId: hexId(span.traceId, 32, 'traceId'),
          spanId: hexId(span.spanId, 16, 'spanId'),
          parentSpanId: span.parentSpanId ? hexId(span.parentSpanId, 16, 'parentSpanId') : undefined,
          name: String(span.name),
          kind: Number(span.kind),
          startTimeUnixNano: BigInt(String(span.startTimeUnixNano)),
          endTimeUnixNano: BigInt(String(span.endTimeUnixNano)),
          attributes: attributes(span.attributes),
          status: (span.status ?? {}) as ReceivedSpan['status'],
          serviceName,
        });
      }
    }
  }
  return spans;
}
