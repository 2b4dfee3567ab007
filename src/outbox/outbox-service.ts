import type { Channel, OutboundKind } from '../generated/prisma/client.js';
import type { PrismaExecutor } from '../db/prisma-types.js';
import { preparedName, sqlTimestamp, uuidv7 } from '../shared/sql.js';
import type { TransportResult } from './message-transport.js';
import { outboundBodies, partRow, type ClaimedMessage, type FlushOutcome, type OutboundDraft, type SendablePart } from './outbound-draft.js';
import { parseTwilioStatus, statusRank } from './outbound-status.js';
import type { OutboxDependencies, OutboxSendEvent } from './outbox-dependencies.js';
import { retryDelayMs } from './retry-policy.js';
import { isUnreachableCode } from './twilio-error-codes.js';

type PartOutcome = { kind: 'sent' } | { kind: 'retry_later'; at: Date } | { kind: 'permanent_failure'; errorCode?: number | undefined };

/**
 * A part Twilio accepted. Plain SQL (prepared once per connection): it runs once per message
 * sent, and through Prisma it cost several times the CPU. updatedAt is the wall clock, as
 * Prisma's @updatedAt writes it.
 */
const RECORD_SENT = `UPDATE "OutboundMessage"
SET "status" = $2::"OutboundStatus", "statusRank" = $3::int, "twilioSid" = $4, "sentAt" = $5::timestamp, "nextAttemptAt" = NULL, "updatedAt" = $6::timestamp
WHERE "id" = $1::uuid AND "statusRank" <= $3::int`;

/** Twilio's refusals of a content or its variables (the ContentSid is invalid; the ContentVariables are). */
function isContentRefusal(errorCode: number | undefined): boolean {
  return errorCode === 21655 || errorCode === 21656;
}

const liveStatuses = ['pending', 'dispatching'] as const;

/**
 * The outbox: every message Herald sends is first stored here (in the same transaction
 * as whatever produced it), then delivered in order. Transient Twilio failures are
 * retried with backoff; permanent ones are recorded and never retried; status callbacks
 * only move a part's status forward.
 */
export class OutboxService {
  private readonly inlineWaitLimitMs: number;
  private readonly dispatchClaimMs: number;
  private readonly sleep: (milliseconds: number) => Promise<void>;

  constructor(private readonly deps: OutboxDependencies) {
    this.inlineWaitLimitMs = deps.inlineWaitLimitMs ?? 2_000;
    this.dispatchClaimMs = deps.dispatchClaimMs ?? 60_000;
    this.sleep = deps.sleep ?? ((milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds)));
  }

  /** Stores a message as pending parts (converted for the channel, split at 1600 characters). */
  async stage(executor: PrismaExecutor, draft: OutboundDraft): Promise<{ groupId: string; parts: number }> {
    const groupId = this.deps.ids.next();
    const bodies = outboundBodies(draft, this.deps.smsMaxSegments);
    if (bodies.length === 0) return { groupId, parts: 0 };
    const createdAt = this.deps.clock.now();
    await executor.outboundMessage.createMany({
      data: bodies.map((body, partIndex) => ({ ...partRow(draft, body, partIndex, bodies.length), groupId, createdAt })),
    });
    return { groupId, parts: bodies.length };
  }

  /**
   * A message as `stage` would store it, for a caller that writes the rows in its own
   * statement (see {@link ClaimedMessage}) and calls {@link sendClaimed} once they are
   * committed. Should the caller die in between, the first part's claim lapses like any
   * sender's and whoever flushes the group next sends it.
   */
  claimed(draft: OutboundDraft): ClaimedMessage {
    const groupId = this.deps.ids.next();
    const createdAt = this.deps.clock.now();
    const bodies = outboundBodies(draft, this.deps.smsMaxSegments);
    const claimedUntil = new Date(createdAt.getTime() + this.dispatchClaimMs);
    const parts = bodies.map((body, partIndex) => ({
      id: uuidv7(createdAt),
      ...partRow(draft, body, partIndex, bodies.length),
      contentVariables: draft.template ? draft.template.variables : null,
      ...(partIndex === 0
        ? { status: 'dispatching' as const, statusRank: statusRank.dispatching, attempts: 1, nextAttemptAt: claimedUntil }
        : { status: 'pending' as const, statusRank: statusRank.pending, attempts: 0, nextAttemptAt: null }),
    }));
    return { groupId, createdAt, parts };
  }

  /**
   * Delivers a {@link claimed} message whose rows are committed: the first part at once
   * (it is this sender's already), the rest as any flush would. A retryable failure goes
   * exactly as in a flush: the part is pending again with its retry time, retried here or
   * handed back (`retry_later`).
   */
  async sendClaimed(message: ClaimedMessage): Promise<FlushOutcome> {
    return this.deliverInOrder(message.parts, true);
  }

  /** Delivers the user's undelivered parts of the given kinds, oldest first, in order. */
  async flushUser(userId: string, kinds: OutboundKind[] = ['reply', 'progress', 'system']): Promise<FlushOutcome> {
    const parts = await this.deps.prisma.outboundMessage.findMany({
      where: { userId, kind: { in: kinds }, status: { in: [...liveStatuses] } },
      orderBy: { sequence: 'asc' },
    });
    return this.deliverInOrder(parts);
  }

  /** Delivers one staged message's parts in order. */
  async flushGroup(groupId: string): Promise<FlushOutcome> {
    const parts = await this.deps.prisma.outboundMessage.findMany({
      where: { groupId, status: { in: [...liveStatuses] } },
      orderBy: { partIndex: 'asc' },
    });
    return this.deliverInOrder(parts);
  }

  /** True when the user has parts waiting (or waiting to be retried). */
  async hasUndelivered(userId: string, kinds: OutboundKind[] = ['reply', 'progress', 'system']): Promise<boolean> {
    const count = await this.deps.prisma.outboundMessage.count({ where: { userId, kind: { in: kinds }, status: { in: [...liveStatuses] } } });
    return count > 0;
  }

  /**
   * Applies a Twilio status callback. Callbacks come out of order and twice; a status
   * only replaces one of lower rank.
   */
  async applyStatusCallback(update: { sid: string; status: string; errorCode?: number | undefined; errorMessage?: string | undefined; channel?: Channel | undefined }): Promise<'updated' | 'ignored'> {
    // The channel it really went on (an RCS message Twilio fell back to SMS says "sms"): kept
    // from the first callback that names it, whatever the order statuses arrive in.
    if (update.channel) await this.deps.prisma.outboundMessage.updateMany({ where: { twilioSid: update.sid, finalChannel: null }, data: { finalChannel: update.channel } });
    const status = parseTwilioStatus(update.status);
    if (!status) return 'ignored';
    const rank = statusRank[status];
    const result = await this.deps.prisma.outboundMessage.updateMany({
      where: { twilioSid: update.sid, statusRank: { lt: rank } },
      data: {
        status,
        statusRank: rank,
        ...(update.errorCode !== undefined ? { errorCode: update.errorCode } : {}),
        ...(update.errorMessage !== undefined ? { errorMessage: update.errorMessage.slice(0, 500) } : {}),
      },
    });
    if (result.count === 0) return 'ignored';
    if (update.errorCode !== undefined && isUnreachableCode(update.errorCode)) {
      const part = await this.deps.prisma.outboundMessage.findUnique({ where: { twilioSid: update.sid }, select: { userId: true, channel: true } });
      if (part) await this.deps.users.markUnreachable(part.userId, part.channel);
    }
    return 'updated';
  }

  /**
   * Sends a message that must leave no row behind: the confirmation that a user's data was
   * erased, when there is no user left to own an outbox row. Retryable failures are retried
   * in-process with the usual back-off; the outcome is logged (never the body) and returned.
   */
  async sendUnrecorded(draft: Pick<OutboundDraft, 'channel' | 'toAddress' | 'fromAddress' | 'text'>): Promise<'sent' | 'failed'> {
    const from = this.senderFor(draft.channel, draft.fromAddress);
    if (!from) return 'failed';
    for (const body of outboundBodies(draft, this.deps.smsMaxSegments)) {
      for (let attempts = 1; ; attempts += 1) {
        const result = await this.deps.transport.send({ to: draft.toAddress, from, body });
        if (result.ok) break;
        if (!result.retryable || attempts >= this.deps.policy.maxAttempts) {
          this.deps.logger.warn({ errorCode: result.errorCode, httpStatus: result.httpStatus, attempts }, 'unrecorded message could not be sent');
          return 'failed';
        }
        await this.sleep(retryDelayMs(this.deps.policy, attempts, this.deps.random, result.retryAfterMs));
      }
    }
    return 'sent';
  }

  /** Delivers parts in order; with `firstClaimed`, the first is already claimed by this sender. */
  private async deliverInOrder(parts: SendablePart[], firstClaimed = false): Promise<FlushOutcome> {
    const blockedAddresses = new Map<string, number>();
    for (const [index, part] of parts.entries()) {
      const blockedBy = blockedAddresses.get(part.toAddress);
      if (blockedBy !== undefined) {
        await this.finish(part.id, 'undeliverable', { errorCode: blockedBy, errorMessage: 'an earlier part to this address failed permanently' });
        continue;
      }
      const outcome = index === 0 && firstClaimed ? await this.deliverClaimedPart(part) : await this.deliverPart(part);
      if (outcome.kind === 'retry_later') return outcome;
      if (outcome.kind === 'permanent_failure' && outcome.errorCode !== undefined) blockedAddresses.set(part.toAddress, outcome.errorCode);
    }
    return { kind: 'done' };
  }

  private async deliverPart(part: SendablePart): Promise<PartOutcome> {
    const now = this.deps.clock.now();
    if (part.nextAttemptAt && part.nextAttemptAt > now) return { kind: 'retry_later', at: part.nextAttemptAt };
    let attempts = part.attempts;
    for (;;) {
      // Claim the part: exactly one sender dispatches it; a crashed sender's claim lapses.
      const claimed = await this.deps.prisma.outboundMessage.updateMany({
        where: {
          id: part.id,
          OR: [{ status: 'pending' }, { status: 'dispatching', nextAttemptAt: { lt: this.deps.clock.now() } }],
        },
        data: {
          status: 'dispatching',
          statusRank: statusRank.dispatching,
          attempts: { increment: 1 },
          nextAttemptAt: new Date(this.deps.clock.now().getTime() + this.dispatchClaimMs),
        },
      });
      if (claimed.count === 0) return this.claimedElsewhere(part.id);
      attempts += 1;
      const outcome = await this.attempt(part, attempts);
      if (outcome.kind !== 'retry') return outcome;
      if (outcome.delay > this.inlineWaitLimitMs) return { kind: 'retry_later', at: outcome.at };
      await this.sleep(outcome.delay);
      part = { ...part, nextAttemptAt: null };
    }
  }

  /** A part written already claimed by this sender: sent without a claim; a retry goes the usual way. */
  private async deliverClaimedPart(part: SendablePart): Promise<PartOutcome> {
    const outcome = await this.attempt(part, part.attempts);
    if (outcome.kind !== 'retry') return outcome;
    if (outcome.delay > this.inlineWaitLimitMs) return { kind: 'retry_later', at: outcome.at };
    await this.sleep(outcome.delay);
    return this.deliverPart({ ...part, nextAttemptAt: null });
  }

  /**
   * One send of a part this sender holds the claim on (`attempts` counts this one), and its
   * outcome recorded: sent; failed for good; or pending again until `at`, to be retried.
   */
  private async attempt(part: SendablePart, attempts: number): Promise<PartOutcome | { kind: 'retry'; delay: number; at: Date }> {
    const startedAt = Date.now();
    const result = await this.send(part);
    const observe = (status: OutboxSendEvent['status']) =>
      this.deps.onSend?.({ part, status, errorCode: result.ok ? undefined : result.errorCode, startedAt, endedAt: Date.now() });
    const log = this.deps.logger.child({ outboundId: part.id, userId: part.userId, turnId: part.turnId, part: part.partIndex, attempts });
    if (result.ok) {
      observe('sent');
      const status = parseTwilioStatus(result.status) ?? 'queued';
      await this.deps.pool.query({
        name: preparedName(RECORD_SENT),
        text: RECORD_SENT,
        values: [part.id, status, statusRank[status], result.sid, sqlTimestamp(this.deps.clock.now()), sqlTimestamp(new Date())],
      });
      log.info({ twilioSid: result.sid, kind: part.kind }, 'outbound part sent');
      return { kind: 'sent' };
    }
    observe(!result.retryable || attempts >= this.deps.policy.maxAttempts ? 'failed' : 'retrying');
    if (!result.retryable) {
      log.warn({ errorCode: result.errorCode, httpStatus: result.httpStatus }, 'outbound part failed permanently; not retrying');
      await this.finish(part.id, 'failed', { errorCode: result.errorCode, errorMessage: result.message });
      if (result.errorCode !== undefined && isUnreachableCode(result.errorCode)) await this.deps.users.markUnreachable(part.userId, part.channel);
      return { kind: 'permanent_failure', errorCode: result.errorCode };
    }
    if (attempts >= this.deps.policy.maxAttempts) {
      log.error({ errorCode: result.errorCode, httpStatus: result.httpStatus }, 'outbound part failed after every retry');
      await this.finish(part.id, 'failed', { errorCode: result.errorCode, errorMessage: `gave up after ${attempts} attempts: ${result.message}` });
      return { kind: 'permanent_failure', errorCode: result.errorCode };
    }
    const delay = retryDelayMs(this.deps.policy, attempts, this.deps.random, result.retryAfterMs);
    log.warn({ errorCode: result.errorCode, httpStatus: result.httpStatus, retryInMs: delay }, 'outbound part failed; will retry');
    const retryAt = new Date(this.deps.clock.now().getTime() + delay);
    await this.deps.prisma.outboundMessage.update({
      where: { id: part.id },
      data: { status: 'pending', statusRank: statusRank.pending, nextAttemptAt: retryAt, errorCode: result.errorCode ?? null, errorMessage: result.message.slice(0, 500) },
    });
    return { kind: 'retry', delay, at: retryAt };
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
    if (current.status === 'dispatching') return { kind: 'retry_later', at: new Date(now + 2_000) };
    // Failed just now and waiting for its retry.
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
  private senderFor(channel: Channel, fromAddress: string | null | undefined): string | undefined {
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

  private async finish(id: string, status: 'failed' | 'undeliverable', error: { errorCode?: number | undefined; errorMessage: string }): Promise<void> {
    await this.deps.prisma.outboundMessage.update({
      where: { id },
      data: { status, statusRank: statusRank[status], errorCode: error.errorCode ?? null, errorMessage: error.errorMessage.slice(0, 500), nextAttemptAt: null },
    });
  }
}
