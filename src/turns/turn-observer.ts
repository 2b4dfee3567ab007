import type { OutboxSendEvent } from '../outbox/outbox-dependencies.js';
import type { TurnEnd } from './turn-runner-dependencies.js';
import type { ChannelLabel, HeraldMetrics } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';

/** Turns remembered between their end and their reply's send; more are forgotten, oldest first. */
const MAX_PENDING_TURNS = 10_000;

/**
 * Joins a turn's end to its reply's send, on this instance: the turn's outcome is counted
 * when it commits, and the reply latency (webhook received → reply handed to Twilio) and the
 * send span (in the turn's trace) when the outbox sends the reply's first part. A reply sent
 * by another instance (this one crashed in between) is traced there from the trace context
 * stored with its messages (`traceOf`) and is left out of the latency histogram.
 */
export class TurnObserver {
  private readonly pending = new Map<string, { receivedAt: number; channel: ChannelLabel; traceparent: string | undefined }>();

  constructor(
    private readonly metrics: HeraldMetrics,
    private readonly tracing: Tracing,
    /** The stored trace context of a turn's messages, for a send this instance did not see the turn of. */
    private readonly traceOf: (turnId: string) => Promise<string | undefined>,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** TurnRunner's `onTurnEnd`: called inside the turn's span. */
  turnEnded(event: TurnEnd): void {
    this.metrics.turn(event.outcome);
    if (event.outcome === 'recovery' || event.outcome === 'ignored') return;
    if (this.pending.size >= MAX_PENDING_TURNS) this.pending.delete(this.pending.keys().next().value!);
    this.pending.set(event.turnId, { receivedAt: event.receivedAt.getTime(), channel: event.channel, traceparent: this.tracing.currentTraceparent() });
  }

  /** OutboxService's `onSend`. */
  sent(event: OutboxSendEvent): void {
    const { part } = event;
    this.metrics.outboxSend(part.channel, event.status, event.errorCode);
    const turn = part.turnId ? this.pending.get(part.turnId) : undefined;
    const answersTheTurn = part.kind === 'reply' || part.kind === 'system';
    if (turn && answersTheTurn && part.partIndex === 0 && event.status !== 'retrying') {
      this.pending.delete(part.turnId!);
      if (event.status === 'sent') this.metrics.turnReplyLatency(turn.channel, (event.endedAt - turn.receivedAt) / 1000);
    }
    if (!this.tracing.enabled) return;
    const span = (parent: string | undefined) =>
      this.tracing.record('twilio.send', {
        kind: 'client',
        ...(parent ? { parent } : {}),
        startTime: event.startedAt,
        endTime: event.endedAt,
        failed: event.status === 'failed' || event.status === 'expired',
        attributes: { 'herald.channel': part.channel, 'herald.outbound.kind': part.kind, 'herald.outbound.part': part.partIndex, 'herald.outbound.status': event.status, 'twilio.error_code': event.errorCode },
      });
    const parent = turn?.traceparent ?? this.tracing.currentTraceparent();
    if (parent || !part.turnId) span(parent);
    else
      void this.traceOf(part.turnId).then(
        (stored) => span(stored),
        () => span(undefined),
      );
  }
}

