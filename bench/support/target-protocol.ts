import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Server } from 'node:http';

/**
 * The IPC protocol between the benchmark (the load generator) and a target server
 * running in its own process. Targets run out of process so that the load generator and
 * the server under test never share an event loop: in one process each would delay the
 * other's callbacks and the latencies measured would be partly autocannon's own.
 */

/** Parent → target. */
export type TargetCommand = { type: 'stats' } | { type: 'reset-stats' } | { type: 'stop' };

/** Target → parent. */
export type TargetEvent =
  | { type: 'ready'; port: number; pid: number; details?: Record<string, string | number> }
  | { type: 'stats'; stats: TargetStats }
  | { type: 'stopped' }
  | { type: 'failed'; message: string };

/** What a target measured about itself since the last reset. */
export interface TargetStats {
  /** Requests that have arrived but not finished (for waiting until the server is quiet). */
  inFlight: number;
  /**
   * Pool connections checked out or awaited. A request abandoned by the client counts as
   * finished at the HTTP level when its socket closes, but its handler runs on; this says
   * whether such work is still going.
   */
  databaseBusy: number;
  /** Requests finished since the last reset. */
  finished: number;
  /** Server-side time from the request's arrival to the end of its response, in ms (sorted). */
  serverTimesMs: number[];
  /** Event-loop utilisation (0..1) since the last reset: 1 means the process was CPU-bound. */
  eventLoopUtilization: number;
  /** Optional per-query profile (Herald with --profile). */
  profile?: QueryProfile;
}

/** Queries observed on the pool, grouped by statement kind. */
export interface QueryProfile {
  /** Total time spent waiting for a pool connection (pool.connect), ms, and how many waits. */
  acquire: { count: number; totalMs: number; maxMs: number };
  /** Per statement kind: how many, total and max round-trip time (ms). */
  queries: Record<string, { count: number; totalMs: number; maxMs: number }>;
}

/**
 * Tracks requests at the raw HTTP server (before Fastify routing, after the body is
 * read by nobody yet): in-flight count, server-side durations and event-loop utilisation.
 */
export class ServerTimer {
  private inFlight = 0;
  private finished = 0;
  private times: number[] = [];
  private elu: EventLoopUtilization = performance.eventLoopUtilization();

  attach(server: Server): void {
    server.on('request', (_request, response) => {
      const started = performance.now();
      this.inFlight += 1;
      let done = false;
      const end = () => {
        if (done) return;
        done = true;
        this.inFlight -= 1;
        this.finished += 1;
        this.times.push(performance.now() - started);
      };
      response.once('finish', end);
      response.once('close', end);
    });
  }

  reset(): void {
    this.finished = 0;
    this.times = [];
    this.elu = performance.eventLoopUtilization();
  }

  snapshot(): Omit<TargetStats, 'profile' | 'databaseBusy'> {
    const utilization = performance.eventLoopUtilization(this.elu).utilization;
    return {
      inFlight: this.inFlight,
      finished: this.finished,
      serverTimesMs: [...this.times].sort((a, b) => a - b),
      eventLoopUtilization: utilization,
    };
  }
}

/**
 * The child's side of the protocol: answers stats requests and stops on command.
 * `stop` must close the server and release everything it holds.
 */
/** Connections of a pg.Pool in use or awaited. */
export function poolBusy(pool: { totalCount: number; idleCount: number; waitingCount: number }): number {
  return pool.totalCount - pool.idleCount + pool.waitingCount;
}

export function serveTargetProtocol(options: {
  timer: ServerTimer;
  /** Pool connections in use or awaited (pg.Pool: totalCount - idleCount + waitingCount). */
  databaseBusy: () => number;
  stop: () => Promise<void>;
  profile?: { snapshot(): QueryProfile; reset(): void };
}): void {
  const send = (event: TargetEvent) => process.send?.(event);
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= options.stop());
  process.on('message', (message: TargetCommand) => {
    if (message.type === 'stats') {
      const profile = options.profile?.snapshot();
      send({ type: 'stats', stats: { ...options.timer.snapshot(), databaseBusy: options.databaseBusy(), ...(profile ? { profile } : {}) } });
    } else if (message.type === 'reset-stats') {
      options.timer.reset();
      options.profile?.reset();
      send({ type: 'stats', stats: { ...options.timer.snapshot(), databaseBusy: options.databaseBusy() } });
    } else if (message.type === 'stop') {
      stop()
        .then(() => send({ type: 'stopped' }))
        .catch((error: unknown) => send({ type: 'failed', message: String(error) }))
        .finally(() => {
          process.disconnect?.();
          // Anything left (a stray timer) must not keep the child alive.
          setTimeout(() => process.exit(0), 200).unref();
        });
    }
  });
  // The parent died or hung up: do not linger.
  process.on('disconnect', () => {
    void stop().finally(() => process.exit(0));
  });
}

/** Reports a failed start to the parent and exits. */
export function failTarget(error: unknown): never {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.send?.({ type: 'failed', message } satisfies TargetEvent);
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
