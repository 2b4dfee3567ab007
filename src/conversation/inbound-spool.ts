import { isDatabaseUnreachable } from '../db/database-unreachable.js';
import type { Logger } from '../logging/logger.js';
import type { HeraldMetrics } from '../observability/metrics.js';
import type { Clock } from '../shared/clock.js';
import type { InboundDelivery, InboundOutcome } from './inbound-service.js';
import { SpoolFiles, type SpoolEntry, type SpoolLimits } from './spool-files.js';

/** What stores a delivery: `InboundService.receive`, as the runtime wraps it (tracing, metrics, waking the turn worker). */
export interface InboundReceiver {
  receive(delivery: InboundDelivery): Promise<InboundOutcome>;
}

/** The webhook's outcome once the spool stands in front of the database: `spooled` means written to disk and answered 200. */
export type GuardedOutcome = InboundOutcome | { kind: 'spooled' };

/** How the spool is set up (INBOUND_SPOOL_*). */
export interface InboundSpoolOptions extends SpoolLimits {
  directory: string;
  /**
   * Spool a webhook the database has not stored after this long (a database that hangs
   * rather than refuses); 0: only when it fails with a connection error.
   */
  spoolAfterMs: number;
  clock: Clock;
  logger: Logger;
  metrics?: Pick<HeraldMetrics, 'inboundSpool' | 'inboundSpoolSize'> | undefined;
  /** The first pause between replay attempts while the database is away, doubling up to `maxMs`. */
  retry?: { initialMs: number; maxMs: number } | undefined;
}

/** What one replay pass did. */
export interface ReplayReport {
  replayed: number;
  quarantined: number;
  /** Files left waiting (the database went away again, or a file failed and will be retried). */
  left: number;
  /** The database could not be reached: the pass stopped at the oldest file. */
  unreachable: boolean;
}

/** A file that failed this often with an error other than "unreachable" is moved aside. */
const MAX_FAILURES = 3;

/**
 * Accept while the database is away (docs/ARCHITECTURE.md, request lifecycle). A signed,
 * parsed webhook the database cannot take (a connection error: refused, reset, shutting down;
 * or no answer within `spoolAfterMs`) is written to a local directory, fsync'd, and answered
 * 200; a constraint or a bug still answers 500. While files wait, and at start-up, they are
 * replayed oldest first through the normal path (the access gate included), each deleted once
 * the database has it or says it is a duplicate: MessageSid de-duplication makes a replay
 * that races Twilio's retry, or the same message spooled by another instance, store it once.
 * A file that cannot be read is moved to `quarantine/` and logged, never retried or lost.
 *
 * Bounded (INBOUND_SPOOL_MAX_FILES, INBOUND_SPOOL_MAX_BYTES): when full, the webhook gets 500
 * as it did before the spool, with an error log and `herald_inbound_spool_events_total{event="refused_full"}`.
 */
export class InboundSpool {
  readonly files: SpoolFiles;
  private target: InboundReceiver | undefined;
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<ReplayReport> | undefined;
  private delayMs: number;
  /** Not started (or stopped): no pass is scheduled. */
  private stopped = true;
  /** Stopping: a pass in progress ends after its file. */
  private closing = false;
  private outageLogged = false;
  private readonly failures = new Map<string, number>();
  private readonly retry: { initialMs: number; maxMs: number };

  constructor(private readonly options: InboundSpoolOptions) {
    this.files = new SpoolFiles(options.directory, options, () => options.clock.now().getTime());
    this.retry = options.retry ?? { initialMs: 250, maxMs: 5_000 };
    this.delayMs = this.retry.initialMs;
  }

  /** False when INBOUND_SPOOL_MAX_FILES or INBOUND_SPOOL_MAX_BYTES is 0: webhooks the database cannot take get 500. */
  get enabled(): boolean {
    return this.options.maxFiles > 0 && this.options.maxBytes > 0;
  }

  /**
   * `inner` with the spool in front of it, for the webhook route; `inner` is also what the
   * replay stores through.
   */
  guard(inner: InboundReceiver): { receive(delivery: InboundDelivery): Promise<GuardedOutcome> } {
    this.target = inner;
    return { receive: (delivery) => this.receive(inner, delivery) };
  }

  /**
   * Opens the directory and replays what an earlier process spooled. A directory that cannot
   * be made is logged, not fatal: Herald serves as it did without a spool.
   */
  async start(): Promise<void> {
    if (!this.enabled) return;
    this.stopped = false;
    this.closing = false;
    try {
      await this.files.checkWritable();
      await this.files.open();
    } catch (error) {
      this.options.logger.error({ directory: this.files.directory, error: summary(error) }, 'the inbound spool directory cannot be used: webhooks that arrive while the database is away will be refused (HTTP 500)');
      return;
    }
    this.reportSize();
    const { files } = this.files.size;
    if (files > 0) this.options.logger.warn({ directory: this.files.directory, messages: files }, 'inbound messages spooled by an earlier process: replaying them');
    this.schedule(0);
  }

  /** Stops replaying; a pass in progress may finish its file (for a few seconds at most). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.closing = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pass) await Promise.race([this.pass.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  }

  /** Replays every waiting file now (after any pass in progress), oldest first. */
  async replayNow(): Promise<ReplayReport> {
    while (this.pass) await this.pass.catch(() => undefined);
    this.pass = this.replay().finally(() => (this.pass = undefined));
    return this.pass;
  }

  private async receive(inner: InboundReceiver, delivery: InboundDelivery): Promise<GuardedOutcome> {
    if (!this.enabled) return inner.receive(delivery);
    const receivedAt = this.options.clock.now();
    const attempt = inner.receive(delivery);
    if (await this.unansweredAfterDeadline(attempt)) {
      // Still waiting on the database: keep a copy and answer. Should the statement still land,
      // the replay finds a duplicate; should it fail, the copy is the message.
      if (await this.keep(delivery, receivedAt, `no answer from the database within ${this.options.spoolAfterMs} ms`, 'wait')) {
        attempt.then(
          (late) => this.options.logger.info({ messageSid: delivery.webhook.MessageSid, outcome: late.kind }, 'the database answered a spooled webhook late; its replay will find it stored'),
          () => undefined,
        );
        return { kind: 'spooled' };
      }
    }
    try {
      return await attempt;
    } catch (error) {
      if (!isDatabaseUnreachable(error)) throw error;
      if (await this.keep(delivery, receivedAt, summary(error), 'refuse')) return { kind: 'spooled' };
      throw error;
    }
  }

  /** True when `attempt` has not settled within INBOUND_SPOOL_AFTER_MS (never, when that is 0). */
  private async unansweredAfterDeadline(attempt: Promise<unknown>): Promise<boolean> {
    if (this.options.spoolAfterMs <= 0) return false;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), this.options.spoolAfterMs)));
    try {
      return await Promise.race([attempt.then(() => false, () => false), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Writes the delivery to the spool; false (logged) when it could not be. `whenFull`: refuse
   * (the database is away: the webhook gets 500, counted as lost) or wait (the database is only
   * slow: the webhook goes on waiting for it, as without a spool).
   */
  private async keep(delivery: InboundDelivery, receivedAt: Date, cause: string, whenFull: 'refuse' | 'wait'): Promise<boolean> {
    const { logger, metrics } = this.options;
    const messageSid = delivery.webhook.MessageSid;
    try {
      const written = await this.files.write({ webhook: delivery.webhook, idempotencyToken: delivery.idempotencyToken, receivedAt });
      if (written.kind === 'full') {
        const state = { messageSid, messages: written.files, bytes: written.bytes, maxFiles: this.options.maxFiles, maxBytes: this.options.maxBytes, directory: this.files.directory, cause };
        if (whenFull === 'wait') {
          logger.warn(state, 'the database is slow and the inbound spool is full: the webhook waits for the database');
          return false;
        }
        metrics?.inboundSpool('refused_full');
        logger.error(state, 'INBOUND SPOOL FULL: the database is unreachable and the spool is at its limit; this message was refused (HTTP 500) and Twilio will not retry it');
        return false;
      }
      metrics?.inboundSpool('spooled');
      this.reportSize();
      logger.warn({ messageSid, cause, file: written.name, waiting: this.files.size.files }, 'the database cannot take an inbound message: spooled to disk and answered; it is stored when the database is back');
      this.schedule(this.delayMs);
      return true;
    } catch (error) {
      metrics?.inboundSpool('write_failed');
      logger.error(
        { messageSid, directory: this.files.directory, error: summary(error), cause },
        whenFull === 'refuse' ? 'could not write an inbound message to the spool: refused (HTTP 500)' : 'could not write an inbound message to the spool: the webhook waits for the database',
      );
      return false;
    }
  }

  /** A replay pass in `delayMs`, unless one is already due or running. */
  private schedule(delayMs: number): void {
    if (this.stopped || this.timer || this.pass) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.replayNow().then(
        (report) => this.afterPass(report),
        (error: unknown) => {
          this.options.logger.error({ directory: this.files.directory, error: summary(error) }, 'inbound spool replay failed; retrying');
          this.afterPass({ replayed: 0, quarantined: 0, left: this.files.size.files, unreachable: true });
        },
      );
    }, delayMs);
    this.timer.unref();
  }

  /** Backs off while the database is away; goes again at once when files were written meanwhile. */
  private afterPass(report: ReplayReport): void {
    if (report.unreachable) {
      this.delayMs = Math.min(this.delayMs * 2, this.retry.maxMs);
      this.schedule(this.delayMs);
      return;
    }
    this.delayMs = this.retry.initialMs;
    // Files written during the pass, or one that failed and is tried again (after a pause).
    if (this.files.size.files > 0) this.schedule(report.left > 0 ? this.delayMs : 0);
  }

  private async replay(): Promise<ReplayReport> {
    const report: ReplayReport = { replayed: 0, quarantined: 0, left: 0, unreachable: false };
    const names = await this.files.list();
    for (const [index, name] of names.entries()) {
      if (this.closing) {
        report.left = names.length - index;
        break;
      }
      const entry = await this.files.read(name);
      const result = await this.replayOne(entry);
      if (result === 'unreachable') {
        report.unreachable = true;
        report.left = names.length - index;
        break;
      }
      if (result === 'replayed') report.replayed += 1;
      else if (result === 'quarantined') report.quarantined += 1;
      else if (result === 'kept') report.left += 1;
    }
    this.reportSize();
    if (report.replayed > 0 || report.quarantined > 0) this.options.logger.info({ ...report }, 'inbound spool replayed');
    if (report.unreachable && !this.outageLogged) {
      this.outageLogged = true;
      this.options.logger.warn({ waiting: this.files.size.files }, 'the database is still unreachable: spooled messages wait; retrying with backoff');
    } else if (!report.unreachable) this.outageLogged = false;
    return report;
  }

  private async replayOne(entry: SpoolEntry): Promise<'replayed' | 'quarantined' | 'kept' | 'unreachable' | 'gone'> {
    const { logger, metrics } = this.options;
    if (entry.kind === 'gone') return 'gone';
    if (entry.kind === 'corrupt') return this.quarantine(entry.name, entry.bytes, entry.reason);
    const target = this.target;
    if (!target) throw new Error('the inbound spool replays through the webhook path: call guard() first');
    const { delivery } = entry;
    const messageSid = delivery.webhook.MessageSid;
    let outcome: InboundOutcome;
    try {
      outcome = await target.receive(delivery);
    } catch (error) {
      if (isDatabaseUnreachable(error)) return 'unreachable';
      const failures = (this.failures.get(entry.name) ?? 0) + 1;
      this.failures.set(entry.name, failures);
      logger.error({ messageSid, file: entry.name, failures, error: summary(error) }, 'replaying a spooled inbound message failed');
      return failures >= MAX_FAILURES ? this.quarantine(entry.name, entry.bytes, `failed ${failures} times: ${summary(error)}`) : 'kept';
    }
    // Refused for bad input: it can never be stored; kept aside for a person to look at.
    if (outcome.kind === 'rejected') return this.quarantine(entry.name, entry.bytes, `rejected: ${outcome.reason}`);
    await this.files.remove(entry.name, entry.bytes);
    this.failures.delete(entry.name);
    metrics?.inboundSpool('replayed');
    const waitedMs = this.options.clock.now().getTime() - delivery.receivedAt.getTime();
    if (outcome.kind === 'refused' && outcome.reply) {
      // The access gate's answer went in the webhook's TwiML, long since answered empty.
      logger.warn({ messageSid, reason: outcome.reason }, 'a spooled message was refused by the access rules on replay; its notice could not be given (the webhook was already answered)');
    } else logger.info({ messageSid, outcome: outcome.kind, waitedMs }, 'spooled inbound message replayed');
    return 'replayed';
  }

  private async quarantine(name: string, bytes: number, reason: string): Promise<'quarantined' | 'gone'> {
    try {
      const movedTo = await this.files.quarantine(name, bytes);
      this.failures.delete(name);
      this.options.metrics?.inboundSpool('quarantined');
      this.options.logger.error({ file: movedTo, reason }, 'an inbound spool file cannot be replayed: moved to quarantine (nothing is lost; look at it by hand)');
      return 'quarantined';
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
      throw error;
    }
  }

  private reportSize(): void {
    const { files, bytes } = this.files.size;
    this.options.metrics?.inboundSpoolSize(files, bytes);
  }
}

/** An error in a few words, with its code (an AggregateError of refused connections has no message). */
function summary(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return `${error.name}${typeof code === 'string' ? ` ${code}` : ''}: ${error.message}`.slice(0, 300);
}
