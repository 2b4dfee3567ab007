import autocannon, { type AutocannonRequest } from 'autocannon';
import type { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { webhookHeaders, type SignedWebhook } from './twilio-webhooks.js';

/**
 * Every webhook handed to autocannon and what became of it. autocannon drops the requests
 * in flight when a timed run ends (and after a timeout), so its counters alone cannot say
 * which messages the server may have stored; this ledger can.
 */
export class RequestLedger {
  /** MessageSid → HTTP status, or 0 while unanswered. */
  private readonly outcomes = new Map<string, number>();

  sent(messageSid: string): void {
    this.outcomes.set(messageSid, 0);
  }

  answered(messageSid: string, status: number): void {
    this.outcomes.set(messageSid, status);
  }

  /** Sids answered 2xx. */
  accepted(): string[] {
    return [...this.outcomes].filter(([, status]) => status >= 200 && status < 300).map(([sid]) => sid);
  }

  /** Sids sent but never answered (in flight when a run stopped, or timed out). */
  unanswered(): string[] {
    return [...this.outcomes].filter(([, status]) => status === 0).map(([sid]) => sid);
  }

  /** Sids answered with anything but 2xx. */
  refused(): string[] {
    return [...this.outcomes].filter(([, status]) => status !== 0 && (status < 200 || status >= 300)).map(([sid]) => sid);
  }

  get size(): number {
    return this.outcomes.size;
  }
}

/** One load phase. */
export interface LoadOptions {
  /** Base URL of the target, e.g. http://127.0.0.1:3000. */
  url: string;
  path: string;
  connections: number;
  /** Stop after this many seconds (requests in flight are abandoned)… */
  durationSeconds?: number;
  /** …or after exactly this many responses (nothing left in flight). */
  amount?: number;
  /** Total requests per second across all connections; unset means as fast as possible. */
  overallRate?: number;
  /**
   * How a rate is paced. 'even' (default): one request every 1000/rate ms, the
   * connections taking turns, as independent senders arrive. 'burst': autocannon's own
   * limiter, which lets each connection send its whole per-second allowance back to back
   * at the start of every second, so all `rate` requests of a second arrive together at
   * full concurrency and queue behind each other (latency then measures burst
   * throughput, not the latency of a steady rate).
   */
  pacing?: 'even' | 'burst';
  /** The next webhook to send (each is sent once). */
  next: () => SignedWebhook;
  ledger: RequestLedger;
}

/** What one phase measured, from the client's side. */
export interface LoadResult {
  /**
   * From the first request written to the last response read. (autocannon's own run
   * ends at its next once-a-second tick, up to a second after the work did.)
   */
  durationSeconds: number;
  /** Requests written (including ones abandoned at the end). */
  sent: number;
  /** 2xx responses, and their rate over the phase. */
  ok: number;
  okPerSecond: number;
  non2xx: number;
  /** Connection errors and timeouts (autocannon counts timeouts among errors). */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Latency of each 2xx response (ms, write of the request to end of the response), sorted. */
  latenciesMs: number[];
}

/**
 * Runs one autocannon phase of signed webhooks: each connection takes the next
 * pre-signed webhook for every request (one in flight per connection, no pipelining).
 *
 * Latency percentiles are computed here from every response's own time, not from
 * autocannon's histogram: with a rate set, autocannon's coordinated-omission correction
 * back-fills synthetic samples at a 1 ms interval (it divides by a per-second rate as if
 * it were per-millisecond), which drags its percentiles down.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { ledger } = options;
  let sent = 0;
  let firstSentAt: number | undefined;
  let lastAnsweredAt: number | undefined;
  const request: AutocannonRequest = {
    method: 'POST',
    path: options.path,
    setupRequest(raw, context) {
      const webhook = options.next();
      context.messageSid = webhook.messageSid;
      ledger.sent(webhook.messageSid);
      sent += 1;
      firstSentAt ??= performance.now();
      return { ...raw, headers: { ...raw.headers, ...webhookHeaders(webhook) }, body: webhook.body };
    },
    onResponse(status, _body, context) {
      const sid = context.messageSid;
      if (typeof sid === 'string') ledger.answered(sid, status);
      context.messageSid = undefined;
    },
  };

  const latencies: number[] = [];
  const started = performance.now();
  const even = options.overallRate !== undefined && (options.pacing ?? 'even') === 'even';
  let clientIndex = 0;
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.durationSeconds ?? 10 }),
    ...(options.overallRate !== undefined ? { overallRate: options.overallRate, ignoreCoordinatedOmission: true } : {}),
    requests: [request],
    timeout: 10,
    ...(even ? { setupClient: (client: EventEmitter) => paceEvenly(client, clientIndex++, options.connections, options.overallRate!) } : {}),
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
    lastAnsweredAt = performance.now();
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
  });
  const result = await instance;
  const durationSeconds = ((lastAnsweredAt ?? performance.now()) - (firstSentAt ?? started)) / 1000;
  latencies.sort((a, b) => a - b);
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stats]) => [code, stats.count]));
  return {
    durationSeconds,
    sent,
    ok: result['2xx'],
    okPerSecond: result['2xx'] / durationSeconds,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    latenciesMs: latencies,
  };
}

/** The private state of autocannon's Client (lib/httpClient.js) that its rate limiter uses. */
interface RateLimitedClient {
  rate: number;
  reqsMadeThisSecond: number;
  paused: boolean;
  destroyed: boolean;
  rateInterval: NodeJS.Timeout | undefined;
  _doRequest(): void;
}

/**
 * Replaces autocannon's per-second window on one connection with a window of one
 * request per `connections / rate` seconds, phase-shifted by the connection's index, so
 * the connections together send one request every 1000/rate ms. A connection whose
 * previous response is late sends as soon as it arrives (closed loop, as autocannon).
 * Relies on autocannon 9's Client internals; fails loudly if they change.
 */
function paceEvenly(client: EventEmitter, index: number, connections: number, rate: number): void {
  const state = client as unknown as RateLimitedClient;
  if (typeof state._doRequest !== 'function' || typeof state.reqsMadeThisSecond !== 'number' || state.rate !== Math.floor(rate / connections) + (index < rate % connections ? 1 : 0)) {
    throw new Error('autocannon internals changed: even pacing is unavailable (set BENCH_WEBHOOK_PACING=burst)');
  }
  const periodMs = (1000 * connections) / rate;
  state.rate = 1;
  // Hold the request the client sends on connect until this connection's first slot.
  state.reqsMadeThisSecond = 1;
  const tick = () => {
    if (state.destroyed) return;
    state.reqsMadeThisSecond = 0;
    if (state.paused) {
      state.paused = false;
      state._doRequest();
    }
  };
  // setupClient runs inside Client's constructor, before it starts its own once-a-second
  // limiter; replace that limiter once the constructor has returned.
  queueMicrotask(() => {
    if (state.rateInterval === undefined) throw new Error('autocannon internals changed: no rate limiter to replace');
    clearInterval(state.rateInterval);
    state.rateInterval = undefined;
    const start = setTimeout(() => {
      if (state.destroyed) return;
      // Client.destroy() clears `rateInterval`, so it stops this one too.
      state.rateInterval = setInterval(tick, periodMs);
      tick();
    }, (index * periodMs) / connections);
    client.once('done', () => clearTimeout(start));
  });
}

/** The q-quantile (0..1) of sorted values (nearest rank); NaN when empty. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}
