import { setTimeout as sleep } from 'node:timers/promises';
import type { Channel } from '../generated/prisma/client.js';
import type { Logger } from '../logging/logger.js';
import { preparedName, sqlTimestamp } from '../shared/sql.js';
import { needsLateNote, withLateNote } from './late-reply-note.js';
import type { TransportResult } from './message-transport.js';
import { outboundBodies, type SendablePart } from './outbound-draft.js';
import { parseTwilioStatus, statusRank } from './outbound-status.js';
import { CLAIM_PART, RECORD_SENT, type ClaimedRow } from './outbox-statements.js';
import type { OutboxDependencies, OutboxSendEvent } from './outbox-dependencies.js';
import { retryDelayMs, unknownOutcomeDelayMs } from './retry-policy.js';
import { isUnreachableCode } from './twilio-error-codes.js';

/** What became of one part this time. */
export type PartOutcome =
  | { kind: 'sent' }
  | { kind: 'retry_later'; at: Date }
  /** Another sender is sending it this very moment. */
  | { kind: 'in_flight'; at: Date }
  | { kind: 'permanent_failure'; errorCode?: number | undefined };
type AttemptOutcome = PartOutcome | { kind: 'retry'; delay: number; at: Date; unknownSince: Date | null };
/** Why a part could not go this time, though it may later. */
type Setback = { errorCode?: number | undefined; httpStatus?: number | undefined; message: string; retryAfterMs?: number | undefined };

/** Twilio's refusals of a content or its variables (the ContentSid is invalid; the ContentVariables are). */
function isContentRefusal(errorCode: number | undefined): boolean {
  return errorCode === 21655 || errorCode === 21656;
}

/** Attempts one flush makes on a part in-process before handing it back to the queue. */
const DEFAULT_INLINE_ATTEMPTS = 5;

/**
 * Sending one outbox part, and recording what came of it: claimed so exactly one sender
 * dispatches it; sent (with "Sorry for the delay —" in front when a reply waited); failed for
 * good on a permanent error, or once Twilio has failed it for the whole retry window; else
 * pending again until its backoff has passed. A part whose earlier send may have reached
 * Twilio (an unknown outcome, or a sender that died mid-send) is looked up at Twilio first and
 * sent again only when it is not there. The order of parts is OutboxService's.
 */
export class PartDelivery {
  private readonly inlineWaitLimitMs: number;
  private readonly inlineAttempts: number;
  private readonly dispatchClaimMs: number;
  private readonly sleep: (milliseconds: number) => Promise<void>;

  constructor(private readonly deps: OutboxDependencies) {
    this.inlineWaitLimitMs = deps.inlineWaitLimitMs ?? 2_000;
    this.inlineAttempts = deps.inlineAttempts ?? DEFAULT_INLINE_ATTEMPTS;
    this.dispatchClaimMs = deps.dispatchClaimMs ?? 60_000;
    this.sleep = deps.sleep ?? ((milliseconds) => sleep(milliseconds));
  }

  /**
   * Sends one part (claimed first: exactly one sender dispatches it), retrying in-process
   * while the backoff is short, at most `inlineAttempts` times; `retryAt`: this sender's own
   * retry time, just waited for.
   */
  async deliver(part: SendablePart, retryAt?: Date): Promise<PartOutcome> {
    // Waiting for its retry time, or being sent by another sender until its claim lapses.
    if (part.nextAttemptAt && part.nextAttemptAt > this.deps.clock.now()) return { kind: part.status === 'dispatching' ? 'in_flight' : 'retry_later', at: part.nextAttemptAt };
    let dueAt = retryAt;
    for (let inline = 1; ; inline += 1) {
      const claimed = await this.claim(part.id, dueAt);
      if (!claimed) return this.claimedElsewhere(part.id);
      // The row as it is now: another sender may have tried it since it was read.
      part = { ...part, attempts: claimed.attempts, body: claimed.body, createdAt: new Date(claimed.createdAt), unknownSince: claimed.unknownSince === null ? null : new Date(claimed.unknownSince) };
      const outcome = await this.attempt(part);
      if (outcome.kind !== 'retry') return outcome;
      if (outcome.delay > this.inlineWaitLimitMs || inline >= this.inlineAttempts) return { kind: 'retry_later', at: outcome.at };
      await this.sleep(outcome.delay);
      // This sender's own retry, due now: it may claim the part at its retry time.
      dueAt = outcome.at;
      part = { ...part, nextAttemptAt: null, unknownSince: outcome.unknownSince };
    }
  }

  /** A part written already claimed by this sender: sent without a claim; a retry goes the usual way. */
  async deliverClaimed(part: SendablePart): Promise<PartOutcome> {
    const outcome = await this.attempt(part);
    if (outcome.kind !== 'retry') return outcome;
    if (outcome.delay > this.inlineWaitLimitMs) return { kind: 'retry_later', at: outcome.at };
    await this.sleep(outcome.delay);
    return this.deliver({ ...part, nextAttemptAt: null, unknownSince: outcome.unknownSince }, outcome.at);
  }

  /**
   * Claims a part for this sender; the row as it is now, or undefined when another sender has
   * it (or it is not due). `dueAt`: this sender's own retry time, which it has just waited for.
   */
  private async claim(id: string, dueAt?: Date): Promise<ClaimedRow | undefined> {
    const clockNow = this.deps.clock.now();
    const now = dueAt && dueAt > clockNow ? dueAt : clockNow;
    const { rows } = await this.deps.pool.query<ClaimedRow>({
      name: preparedName(CLAIM_PART),
      text: CLAIM_PART,
      values: [id, statusRank.dispatching, sqlTimestamp(now), sqlTimestamp(new Date(now.getTime() + this.dispatchClaimMs)), this.dispatchClaimMs, sqlTimestamp(new Date())],
    });
    return rows[0];
  }

  /**
   * One attempt at a part this sender holds the claim on (`part.attempts` counts it), and its
   * outcome recorded: sent; failed for good; or pending again until `at`, to be retried. A part
   * whose earlier send may have reached Twilio is looked up there first, and sent again only
   * when Twilio has no such message.
   */
  private async attempt(part: SendablePart): Promise<AttemptOutcome> {
    const log = this.deps.logger.child({ outboundId: part.id, userId: part.userId, turnId: part.turnId, part: part.partIndex, attempts: part.attempts });
    if (part.unknownSince) {
      const lookup = await this.lookUp(part, log);
      if (lookup.kind === 'found') return { kind: 'sent' };
      if (lookup.kind === 'failed') return this.setBack(part, { message: `could not look the message up at Twilio: ${lookup.message}` }, log, { unknownSince: part.unknownSince });
    }
    part = await this.withNoteIfLate(part);
    const attemptStart = this.deps.clock.now();
    const startedAt = Date.now();
    const result = await this.send(part);
    const observe = (status: OutboxSendEvent['status']) =>
      this.deps.onSend?.({ part, status, errorCode: result.ok ? undefined : result.errorCode, startedAt, endedAt: Date.now() });
    if (result.ok) {
      observe('sent');
      await this.recordSent(part.id, result.sid, result.status);
      log.info({ twilioSid: result.sid, kind: part.kind }, 'outbound part sent');
      return { kind: 'sent' };
    }
    if (!result.retryable) {
      observe('failed');
      log.warn({ errorCode: result.errorCode, httpStatus: result.httpStatus }, 'outbound part failed permanently; not retrying');
      await this.finish(part.id, 'failed', { errorCode: result.errorCode, errorMessage: result.message });
      if (result.errorCode !== undefined && isUnreachableCode(result.errorCode)) await this.deps.users.markUnreachable(part.userId, part.channel);
      return { kind: 'permanent_failure', errorCode: result.errorCode };
    }
    const unknownSince = result.outcomeUnknown ? (part.unknownSince ?? attemptStart) : part.unknownSince;
    return this.setBack(part, result, log, { unknownSince, observe });
  }

  /**
   * A part that could not go this time: pending again until its backoff has passed (after an
   * unknown outcome, at least long enough for Twilio's list to show the message), or, once it
   * has been tried for the whole retry window, failed for good and said loudly.
   */
  private async setBack(
    part: SendablePart,
    setback: Setback,
    log: Logger,
    options: { unknownSince: Date | null; observe?: (status: OutboxSendEvent['status']) => void },
  ): Promise<AttemptOutcome> {
    const now = this.deps.clock.now();
    const waitedMs = now.getTime() - part.createdAt.getTime();
    const details = { errorCode: setback.errorCode, httpStatus: setback.httpStatus, kind: part.kind, outcomeUnknown: options.unknownSince !== null };
    if (waitedMs >= this.deps.policy.retryForMs) {
      options.observe?.('expired');
      if (!options.observe) this.deps.onSend?.({ part, status: 'expired', errorCode: setback.errorCode, startedAt: Date.now(), endedAt: Date.now() });
      log.error({ ...details, waitedMs }, 'outbound part given up: Twilio kept failing for the whole retry window (OUTBOX_RETRY_FOR_MS)');
      const waited = waitedMs >= 60_000 ? `${Math.round(waitedMs / 60_000)} min` : `${Math.round(waitedMs / 1000)} s`;
      await this.finish(part.id, 'failed', { errorCode: setback.errorCode, errorMessage: `gave up after ${waited} (${part.attempts} attempts): ${setback.message}` });
      // Not the address's fault: the parts after it are tried on their own.
      return { kind: 'permanent_failure' };
    }
    options.observe?.('retrying');
    let delay = retryDelayMs(this.deps.policy, part.attempts, this.deps.random, setback.retryAfterMs);
    if (options.unknownSince) delay = Math.max(delay, unknownOutcomeDelayMs(this.deps.policy));
    log.warn({ ...details, retryInMs: delay }, 'outbound part failed; will retry');
    const retryAt = new Date(now.getTime() + delay);
    await this.deps.prisma.outboundMessage.update({
      where: { id: part.id },
      data: {
        status: 'pending',
        statusRank: statusRank.pending,
        nextAttemptAt: retryAt,
        unknownSince: options.unknownSince,
        errorCode: setback.errorCode ?? null,
        errorMessage: setback.message.slice(0, 500),
      },
    });
    return { kind: 'retry', delay, at: retryAt, unknownSince: options.unknownSince };
  }

  /**
   * Asks Twilio whether a part whose send may have reached it is there: found (recorded as sent
   * with that sid: never sent again), not found (safe to send), or no answer (try later; never
   * resend blind). A message already recorded on another part is that part's.
   */
  private async lookUp(part: SendablePart, log: Logger): Promise<{ kind: 'found' | 'not_found' } | { kind: 'failed'; message: string }> {
    const from = this.senderFor(part.channel, part.fromAddress);
    if (!this.deps.transport.findSent || !from || !part.unknownSince) return { kind: 'not_found' };
    const startedAt = Date.now();
    const lookup = await this.deps.transport.findSent({
      to: part.toAddress,
      from,
      since: part.unknownSince,
      ...(part.contentSid ? { contentVariables: (part.contentVariables ?? {}) as Record<string, string> } : { body: part.body }),
    });
    if (lookup.kind === 'failed') {
      log.warn({ error: lookup.message }, 'could not look up at Twilio a send whose outcome is unknown; will look again');
      return lookup;
    }
    const candidates = lookup.kind === 'found' ? lookup.matches : [];
    const taken = candidates.length === 0 ? [] : await this.deps.prisma.outboundMessage.findMany({ where: { twilioSid: { in: candidates.map((match) => match.sid) }, id: { not: part.id } }, select: { twilioSid: true } });
    const match = candidates.find((candidate) => !taken.some((row) => row.twilioSid === candidate.sid));
    if (!match) {
      log.info({ since: part.unknownSince.toISOString() }, 'a send whose outcome was unknown is not at Twilio; sending it again');
      return { kind: 'not_found' };
    }
    try {
      await this.recordSent(part.id, match.sid, match.status);
    } catch (error) {
      // Another part took that sid meanwhile (a race of two look-ups): look again later.
      return { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
    }
    this.deps.onSend?.({ part, status: 'sent', startedAt, endedAt: Date.now() });
    log.info({ twilioSid: match.sid, kind: part.kind }, 'outbound part found at Twilio after an unknown outcome; recorded as sent, not sent again');
    return { kind: 'found' };
  }

  private async recordSent(id: string, sid: string, twilioStatus: string): Promise<void> {
    const status = parseTwilioStatus(twilioStatus) ?? 'queued';
    await this.deps.pool.query({
      name: preparedName(RECORD_SENT),
      text: RECORD_SENT,
      values: [id, status, statusRank[status], sid, sqlTimestamp(this.deps.clock.now()), sqlTimestamp(new Date())],
    });
  }

  /** A reply's beginning that waited past REPLY_LATE_NOTE_AFTER_MS, with "Sorry for the delay —" in front (stored: it is what is sent). */
  private async withNoteIfLate(part: SendablePart): Promise<SendablePart> {
    if (!needsLateNote(part, this.deps.clock.now(), this.deps.lateNoteAfterMs)) return part;
    const user = await this.deps.prisma.user.findUnique({ where: { id: part.userId }, select: { language: true } });
    const body = withLateNote(part, user?.language, this.deps.smsMaxSegments ?? Number.POSITIVE_INFINITY);
    if (body === undefined) return part;
    await this.deps.prisma.outboundMessage.update({ where: { id: part.id }, data: { body } });
    return { ...part, body };
  }

  /**
   * What to make of a part another sender claimed first. Only when it has gone out may
   * the parts after it follow; while it is still on its way (or waiting for a retry),
   * sending them would overtake it, so this flush stops and looks again later.
   */
  private async claimedElsewhere(id: string): Promise<PartOutcome> {
    const current = await this.deps.prisma.outboundMessage.findUnique({ where: { id }, select: { status: true, nextAttemptAt: true, errorCode: true } });
    if (!current) return { kind: 'sent' };
    const now = this.deps.clock.now().getTime();
    // Being sent right now: it normally goes out within seconds (a dead sender's claim lapses).
    if (current.status === 'dispatching') return { kind: 'in_flight', at: new Date(now + 2_000) };
    // Waiting for its retry.
    if (current.status === 'pending') {
      return { kind: 'retry_later', at: current.nextAttemptAt && current.nextAttemptAt.getTime() > now ? current.nextAttemptAt : new Date(now + 1_000) };
    }
    if (current.status === 'failed' || current.status === 'undeliverable') return { kind: 'permanent_failure', errorCode: current.errorCode ?? undefined };
    return { kind: 'sent' };
  }

  /**
   * Who a message is sent from: always the configured sender of its channel
   * (TWILIO_SMS_FROM, TWILIO_WHATSAPP_FROM). The address a user wrote to (the webhook's
   * `To`, kept as `fromAddress`) is only a hint: a forged or misrouted webhook must not make
   * Herald send from a number it was never configured with. Only in local mode (console
   * transport, no real sending) may a channel with no configured sender answer from it.
   */
  senderFor(channel: Channel, fromAddress: string | null | undefined): string | undefined {
    const configured = channel === 'whatsapp' ? this.deps.senders.whatsapp : channel === 'rcs' ? (this.deps.senders.rcs ?? this.deps.senders.sms) : this.deps.senders.sms;
    if (configured) return configured;
    return this.deps.transport.name === 'twilio' ? undefined : (fromAddress ?? undefined);
  }

  private async send(part: SendablePart): Promise<TransportResult> {
    const from = this.senderFor(part.channel, part.fromAddress);
    if (!from) {
      return { ok: false, retryable: false, message: `no sender configured for ${part.channel}` };
    }
    const common = { to: part.toAddress, from, ...(this.deps.statusCallbackUrl ? { statusCallback: this.deps.statusCallbackUrl } : {}) };
    if (!part.contentSid) return this.deps.transport.send({ ...common, body: part.body });
    const result = await this.deps.transport.send({ ...common, contentSid: part.contentSid, contentVariables: (part.contentVariables ?? {}) as Record<string, string> });
    // A reply with buttons whose content Twilio refuses (deleted, or variables it will not
    // take) still goes, as the text it carries; the content is forgotten so the next
    // question makes it again. A template (a reminder's, a routine's) has no free-text form
    // outside the window: only a reply's buttons fall back.
    if (result.ok || result.retryable || part.kind !== 'reply' || !isContentRefusal(result.errorCode)) return result;
    this.deps.logger.warn({ outboundId: part.id, errorCode: result.errorCode }, 'Twilio refused the reply\'s buttons; sending it as text');
    this.deps.onContentRefused?.(part.contentSid);
    const [body] = outboundBodies({ text: part.body, channel: part.channel }, this.deps.smsMaxSegments);
    return this.deps.transport.send({ ...common, body: body ?? part.body });
  }

  /** Ends a part for good, with why. */
  async finish(id: string, status: 'failed' | 'undeliverable', error: { errorCode?: number | undefined; errorMessage: string }): Promise<void> {
    await this.deps.prisma.outboundMessage.update({
      where: { id },
      data: { status, statusRank: statusRank[status], errorCode: error.errorCode ?? null, errorMessage: error.errorMessage.slice(0, 500), nextAttemptAt: null },
    });
  }
}
