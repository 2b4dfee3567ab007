import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Herald's Prometheus metrics (prom-client), one registry per Herald: tests and benchmarks
 * build their own and nothing is global. Every label value comes from a small fixed set
 * (a route pattern, a channel, an outcome, a model name, a Twilio error code): never a
 * phone number, a user id or anything a person wrote.
 */
export interface HeraldMetrics {
  /** True when a registry collects (METRICS_TOKEN is set); false for {@link noopMetrics}. */
  readonly enabled: boolean;
  /** An HTTP request finished: its route pattern (never the raw URL), method and status. */
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  /** A webhook message's fate: stored, duplicate, rejected (malformed), refused (access rules). */
  webhookMessage(channel: ChannelLabel, outcome: WebhookOutcome): void;
  /**
   * The inbound spool (src/conversation/inbound-spool.ts): a message written while the database
   * was unreachable, replayed into it, refused because the spool was full, not written (a disk
   * error), or quarantined (a file that cannot be replayed).
   */
  inboundSpool(event: SpoolEventLabel): void;
  /** Messages and bytes waiting in the inbound spool now. */
  inboundSpoolSize(messages: number, bytes: number): void;
  /** A turn ended: how it was answered. */
  turn(outcome: TurnOutcomeLabel): void;
  /** A turn's reply handed to Twilio: seconds since its (first) message was received. */
  turnReplyLatency(channel: ChannelLabel, seconds: number): void;
  /** One model call (one attempt: a fallback model is its own call). */
  modelCall(call: ModelCallObservation): void;
  /** Time a turn waited for the model's rate limit to lift instead of failing. */
  modelRateLimitWait(model: string, seconds: number): void;
  /** A 429 from the model service (the SDK's own retries included). */
  modelRateLimited(model: string): void;
  /** A reminder delivered: seconds after its scheduled time. */
  reminderLateness(seconds: number): void;
  /**
   * A routine's run ended (src/turns/routine-run.ts): sent, nothing, failed, skipped_late,
   * skipped_budget, undeliverable, opted_out; or awaiting_window, held for the user's next
   * WhatsApp message, which is counted again when it ends (sent…, or undeliverable if dropped).
   */
  routineRun(status: string): void;
  /**
   * A background learning pass ended (src/learning/fact-learner.ts): learned, nothing_new,
   * not_yet, budget, window, unreadable, failed, off or gone; and the facts it stored.
   */
  learningPass(outcome: string, factsStored: number): void;
  /** One send attempt of an outbound part. */
  outboxSend(channel: ChannelLabel, status: OutboxSendStatus, errorCode?: number): void;
  /** Lapsed turn leases this instance took over (an instance died mid-turn). */
  leaseTakeovers(count: number): void;
  /** An error no code handled reached the process (a library's promise nobody awaited): logged and survived. */
  unhandledError(kind: 'rejection' | 'exception'): void;
  /**
   * A message planned (its first planning round): by the light planner (light), by the light
   * planner handing it to the planner (handed_off), or by the planner from the start (planner).
   */
  plan(planner: PlannerLabel): void;
  /** A question Herald asked (a YES/NO confirmation, a "which one?" choice, a clarification) and what became of it. */
  question(kind: QuestionKindLabel, outcome: QuestionOutcomeLabel): void;
  /** The Prometheus text exposition of everything, scrape-time gauges included. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

export type ChannelLabel = 'sms' | 'whatsapp' | 'rcs' | 'unknown';
type WebhookOutcome = 'stored' | 'duplicate' | 'rejected' | 'refused';
type SpoolEventLabel = 'spooled' | 'replayed' | 'refused_full' | 'write_failed' | 'quarantined';
/** replied; apology (a reply that says something failed); refused_budget / refused_access; recovery (handed to another attempt); ignored (opted out, or a silent keyword). */
export type TurnOutcomeLabel = 'replied' | 'apology' | 'refused_budget' | 'refused_access' | 'recovery' | 'ignored';
/** expired: failed after Twilio kept failing for the whole retry window (OUTBOX_RETRY_FOR_MS). */
type OutboxSendStatus = 'sent' | 'retrying' | 'failed' | 'expired';
export type PlannerLabel = 'light' | 'handed_off' | 'planner';
type QuestionKindLabel = 'confirmation' | 'choice' | 'clarification';
/** asked (staged with a reply); answered (YES, a pick, or the answer to a clarification, acted on); failed (acted on, something failed); declined (NO); dropped (the user moved on); expired. */
type QuestionOutcomeLabel = 'asked' | 'answered' | 'failed' | 'declined' | 'dropped' | 'expired';

/** What one model call reports. */
interface ModelCallObservation {
  model: string;
  /** The request's purpose: planner, composer, an agent's name. */
  role: string;
  outcome: 'ok' | 'error' | 'rate_limited';
  seconds: number;
  tokens?: { input: number; output: number; cacheRead: number; cacheWrite: number };
  costUsd?: number;
}

/** Gauges read from the database when scraped (cached, so scrapes never load it). */
export interface ScrapeGauges {
  /** pg-boss jobs per queue and state (created, retry, active, failed). */
  queueJobs(): Promise<Array<{ queue: string; state: string; count: number }>>;
  /** Outbound parts waiting to be sent (pending or being sent), per channel. */
  outboxWaiting(): Promise<Array<{ channel: string; count: number }>>;
  /** Turns running on this instance now (no database read). */
  turnsInFlight(): number;
}

export interface MetricsOptions {
  gauges?: ScrapeGauges;
  /** How long a database read for scrape-time gauges is reused (default 5 s). */
  gaugeCacheMs?: number;
  now?: () => number;
  /** Node's default process metrics (default true). */
  processMetrics?: boolean;
  /** DAILY_BUDGET_USD, exported so an alert can compare spend with it; undefined: not exported. */
  dailyBudgetUsd?: number | undefined;
}

/** Seconds buckets for reply latency: a reply is expected within seconds; alerts look at 15 s. */
const REPLY_BUCKETS = [0.5, 1, 2, 3, 5, 7.5, 10, 15, 20, 30, 45, 60, 90, 120, 300];
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const LATENESS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600];
const MODEL_BUCKETS = [0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60];

/** Label values are clipped and reduced to a safe alphabet: a misconfigured model name cannot blow up a series. */
function safeLabel(value: string): string {
  return value.replace(/[^\w.:/-]/g, '_').slice(0, 64) || 'unknown';
}

/** A Prometheus registry with Herald's metrics. */
export function createMetrics(options: MetricsOptions = {}): HeraldMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const now = options.now ?? (() => Date.now());
  const registers = [registry];

  const http = new Histogram({ name: 'herald_http_request_duration_seconds', help: 'HTTP request duration by route pattern, method and status.', labelNames: ['route', 'method', 'status'], buckets: HTTP_BUCKETS, registers });
  const webhook = new Counter({ name: 'herald_webhook_messages_total', help: 'Inbound webhook messages by channel and outcome (stored, duplicate, rejected, refused).', labelNames: ['channel', 'outcome'], registers });
  const spoolEvents = new Counter({ name: 'herald_inbound_spool_events_total', help: 'Inbound spool events: spooled (the database was unreachable), replayed, refused_full (answered 500), write_failed (answered 500), quarantined.', labelNames: ['event'], registers });
  const spoolMessages = new Gauge({ name: 'herald_inbound_spool_messages', help: 'Inbound messages waiting in the local spool for the database.', registers });
  const spoolBytes = new Gauge({ name: 'herald_inbound_spool_bytes', help: 'Bytes of inbound messages waiting in the local spool for the database.', registers });
  const turns = new Counter({ name: 'herald_turns_total', help: 'Turns by outcome (replied, apology, refused_budget, refused_access, recovery, ignored).', labelNames: ['outcome'], registers });
  const replyLatency = new Histogram({ name: 'herald_turn_reply_seconds', help: 'From the webhook receiving a message to its reply handed to Twilio.', labelNames: ['channel'], buckets: REPLY_BUCKETS, registers });
  const modelCalls = new Counter({ name: 'herald_model_calls_total', help: 'Model calls by model, role and outcome.', labelNames: ['model', 'role', 'outcome'], registers });
  const modelDuration = new Histogram({ name: 'herald_model_call_duration_seconds', help: 'Model call duration by model and role.', labelNames: ['model', 'role'], buckets: MODEL_BUCKETS, registers });
  const modelTokens = new Counter({ name: 'herald_model_tokens_total', help: 'Model tokens by model, role and type (input, output, cache_read, cache_write).', labelNames: ['model', 'role', 'type'], registers });
  const modelCost = new Counter({ name: 'herald_model_cost_usd_total', help: 'Model cost in USD by model and role, from the model profiles\' prices.', labelNames: ['model', 'role'], registers });
  const rateLimitWait = new Counter({ name: 'herald_model_rate_limit_wait_seconds_total', help: 'Seconds turns waited for the model\'s rate limit to lift (instead of apologising).', labelNames: ['model'], registers });
  const rateLimitWaits = new Counter({ name: 'herald_model_rate_limit_waits_total', help: 'Times a turn waited for the model\'s rate limit to lift.', labelNames: ['model'], registers });
  const rateLimited = new Counter({ name: 'herald_model_rate_limited_responses_total', help: '429 answers from the model service, the SDK\'s own retries included.', labelNames: ['model'], registers });
  const lateness = new Histogram({ name: 'herald_reminder_lateness_seconds', help: 'How late reminders were handed to Twilio, after their scheduled time.', buckets: LATENESS_BUCKETS, registers });
  const routineRuns = new Counter({ name: 'herald_routine_runs_total', help: 'Routine runs by how they ended (sent, nothing, failed, skipped_late, skipped_budget, undeliverable, opted_out), and runs held for the user\'s next WhatsApp message (awaiting_window), counted again when they end.', labelNames: ['status'], registers });
  const learningPasses = new Counter({ name: 'herald_learning_passes_total', help: 'Background fact-learning passes by outcome (learned, nothing_new, not_yet, budget, window, unreadable, failed, off, gone).', labelNames: ['outcome'], registers });
  const factsLearned = new Counter({ name: 'herald_facts_learned_total', help: 'Facts stored by background learning (new or updated).', registers });
  const outbox = new Counter({ name: 'herald_outbox_sends_total', help: 'Outbound send attempts by channel, status (sent, retrying, failed, expired: given up after the retry window) and Twilio error code.', labelNames: ['channel', 'status', 'error_code'], registers });
  const takeovers = new Counter({ name: 'herald_turn_lease_takeovers_total', help: 'Lapsed turn leases taken over by this instance (another instance stopped mid-turn).', registers });
  const unhandled = new Counter({ name: 'herald_unhandled_errors_total', help: 'Errors no code handled (a rejection nobody awaited, an exception from a library\'s callback), logged and survived, by kind.', labelNames: ['kind'], registers });
  const plans = new Counter({ name: 'herald_plans_total', help: 'Messages planned, by planner: light (the light planner), handed_off (the light planner handed it to the planner), planner (the planner from the start).', labelNames: ['planner'], registers });
  const questions = new Counter({ name: 'herald_questions_total', help: 'Questions Herald asked (confirmation, choice, clarification) by outcome (asked, answered, failed, declined, dropped, expired).', labelNames: ['kind', 'outcome'], registers });
  const inFlight = new Gauge({ name: 'herald_turns_in_flight', help: 'Turns running on this instance now.', registers, collect() {
    if (options.gauges) this.set(options.gauges.turnsInFlight());
  } });

  const cached = <Row>(read: () => Promise<Row[]>) => {
    let at = Number.NEGATIVE_INFINITY;
    let rows: Row[] = [];
    let reading: Promise<Row[]> | undefined;
    return async (): Promise<Row[]> => {
      if (now() - at < (options.gaugeCacheMs ?? 5_000)) return rows;
      // Concurrent scrapes share one read. A read that fails (the database is away) shows the
      // last rows rather than failing the whole scrape: the spool's and the process's own
      // metrics matter most exactly then.
      reading ??= read()
        .then(
          (fresh) => {
            rows = fresh;
            at = now();
            return fresh;
          },
          () => rows,
        )
        .finally(() => (reading = undefined));
      return reading;
    };
  };
  if (options.gauges) {
    const gauges = options.gauges;
    const queueJobs = cached(() => gauges.queueJobs());
    const waiting = cached(() => gauges.outboxWaiting());
    new Gauge({ name: 'herald_queue_jobs', help: 'pg-boss jobs by queue and state, read at scrape time (cached a few seconds).', labelNames: ['queue', 'state'], registers, async collect() {
      const rows = await queueJobs();
      this.reset();
      // Every state shows, zero included, so "a growing queue" has a series from the start.
      for (const queue of new Set(rows.map((row) => row.queue))) for (const state of ['created', 'retry', 'active', 'failed']) this.set({ queue: safeLabel(queue), state }, 0);
      for (const row of rows) this.set({ queue: safeLabel(row.queue), state: safeLabel(row.state) }, row.count);
    } });
    new Gauge({ name: 'herald_outbox_waiting', help: 'Outbound parts waiting to be sent, by channel, read at scrape time (cached a few seconds).', labelNames: ['channel'], registers, async collect() {
      const rows = await waiting();
      this.reset();
      for (const channel of ['sms', 'whatsapp', 'rcs']) this.set({ channel }, 0);
      for (const row of rows) this.set({ channel: safeLabel(row.channel) }, row.count);
    } });
  }
  void inFlight;
  if (options.dailyBudgetUsd !== undefined) {
    new Gauge({ name: 'herald_daily_budget_usd', help: 'The deployment\'s daily model budget in USD (DAILY_BUDGET_USD).', registers }).set(options.dailyBudgetUsd);
  }

  return {
    enabled: true,
    httpRequest(route, method, status, seconds) {
      http.observe({ route: safeLabel(route), method: safeLabel(method), status: String(status) }, seconds);
    },
    webhookMessage(channel, outcome) {
      webhook.inc({ channel, outcome });
    },
    inboundSpool(event) {
      spoolEvents.inc({ event });
    },
    inboundSpoolSize(messages, bytes) {
      spoolMessages.set(messages);
      spoolBytes.set(bytes);
    },
    turn(outcome) {
      turns.inc({ outcome });
    },
    turnReplyLatency(channel, seconds) {
      replyLatency.observe({ channel }, Math.max(0, seconds));
    },
    modelCall(call) {
      const labels = { model: safeLabel(call.model), role: safeLabel(call.role) };
      modelCalls.inc({ ...labels, outcome: call.outcome });
      modelDuration.observe(labels, call.seconds);
      if (call.tokens) {
        modelTokens.inc({ ...labels, type: 'input' }, call.tokens.input);
        modelTokens.inc({ ...labels, type: 'output' }, call.tokens.output);
        modelTokens.inc({ ...labels, type: 'cache_read' }, call.tokens.cacheRead);
        modelTokens.inc({ ...labels, type: 'cache_write' }, call.tokens.cacheWrite);
      }
      if (call.costUsd !== undefined) modelCost.inc(labels, call.costUsd);
    },
    modelRateLimitWait(model, seconds) {
      rateLimitWaits.inc({ model: safeLabel(model) });
      rateLimitWait.inc({ model: safeLabel(model) }, seconds);
    },
    modelRateLimited(model) {
      rateLimited.inc({ model: safeLabel(model) });
    },
    reminderLateness(seconds) {
      lateness.observe(Math.max(0, seconds));
    },
    routineRun(status) {
      routineRuns.inc({ status: safeLabel(status) });
    },
    learningPass(outcome, factsStored) {
      learningPasses.inc({ outcome: safeLabel(outcome) });
      if (factsStored > 0) factsLearned.inc(factsStored);
    },
    outboxSend(channel, status, errorCode) {
      outbox.inc({ channel, status, error_code: errorCode === undefined ? 'none' : String(Math.trunc(errorCode)) });
    },
    leaseTakeovers(count) {
      if (count > 0) takeovers.inc(count);
    },
    unhandledError(kind) {
      unhandled.inc({ kind });
    },
    plan(planner) {
      plans.inc({ planner });
    },
    question(kind, outcome) {
      questions.inc({ kind, outcome });
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** Metrics switched off (no METRICS_TOKEN): every call does nothing. */
export const noopMetrics: HeraldMetrics = {
  enabled: false,
  httpRequest() {},
  webhookMessage() {},
  inboundSpool() {},
  inboundSpoolSize() {},
  turn() {},
  turnReplyLatency() {},
  modelCall() {},
  modelRateLimitWait() {},
  modelRateLimited() {},
  reminderLateness() {},
  routineRun() {},
  learningPass() {},
  outboxSend() {},
  leaseTakeovers() {},
  unhandledError() {},
  plan() {},
  question() {},
  async scrape() {
    return { contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '' };
  },
};

