import { setTimeout as sleep } from 'node:timers/promises';
import type { Channel, OutboundKind } from '../generated/prisma/client.js';
import type { PrismaExecutor } from '../db/prisma-types.js';
import { preparedName, sqlTimestamp, uuidv7 } from '../shared/sql.js';
import { outboundBodies, partRow, type ClaimedMessage, type FlushOutcome, type OutboundDraft, type SendablePart } from './outbound-draft.js';
import { parseTwilioStatus, statusRank } from './outbound-status.js';
import { RELEASE_CLAIM, WAITS_BEHIND } from './outbox-statements.js';
import type { OutboxDependencies } from './outbox-dependencies.js';
import { PartDelivery } from './part-delivery.js';
import { retryDelayMs } from './retry-policy.js';
import { isUnreachableCode } from './twilio-error-codes.js';

const liveStatuses = ['pending', 'dispatching'] as const;
/** Every kind of part: a user's parts go out in the order they were written, whatever their kind. */
const allKinds: OutboundKind[] = ['reply', 'progress', 'system', 'reminder'];
/** Attempts of a message that leaves no row (nothing could retry it later). */
const UNRECORDED_ATTEMPTS = 5;

/**
 * The outbox: every message Herald sends is first stored here (in the same transaction
 * as whatever produced it), then delivered, each user's parts in the order they were written.
 * Transient Twilio failures are retried with backoff for `policy.retryForMs` (an hour),
 * across restarts; permanent ones are recorded and never retried; a send whose outcome is
 * unknown is looked up at Twilio before it is ever sent again; status callbacks only move a
 * part's status forward.
 */
export class OutboxService {
  private readonly dispatchClaimMs: number;
  private readonly sleep: (milliseconds: number) => Promise<void>;
  private readonly parts: PartDelivery;

  constructor(private readonly deps: OutboxDependencies) {
    this.dispatchClaimMs = deps.dispatchClaimMs ?? 60_000;
    this.sleep = deps.sleep ?? ((milliseconds) => sleep(milliseconds));
    this.parts = new PartDelivery(deps);
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
   * sender's and whoever flushes the group next sends it (after looking it up at Twilio).
   */
  claimed(draft: OutboundDraft): ClaimedMessage {
    const groupId = this.deps.ids.next();
    const createdAt = this.deps.clock.now();
    const bodies = outboundBodies(draft, this.deps.smsMaxSegments);
    const claimedUntil = new Date(createdAt.getTime() + this.dispatchClaimMs);
    const parts = bodies.map((body, partIndex) => ({
      id: uuidv7(createdAt),
      groupId,
      ...partRow(draft, body, partIndex, bodies.length),
      contentVariables: draft.template ? draft.template.variables : null,
      createdAt,
      unknownSince: null,
      ...(partIndex === 0
        ? { status: 'dispatching' as const, statusRank: statusRank.dispatching, attempts: 1, nextAttemptAt: claimedUntil }
        : { status: 'pending' as const, statusRank: statusRank.pending, attempts: 0, nextAttemptAt: null }),
    }));
    return { groupId, createdAt, parts };
  }

  /**
   * Delivers a {@link claimed} message whose rows are committed: the first part at once
   * (it is this sender's already), the rest as any flush would. When the user has older parts
   * still waiting (Twilio was failing), the claim is given back and the message goes after
   * them, as {@link flushGroup}. A retryable failure goes exactly as in a flush.
   */
  async sendClaimed(message: ClaimedMessage): Promise<FlushOutcome> {
    const [first] = message.parts;
    if (!first) return { kind: 'done' };
    if (await this.waitsBehind(first.userId, message.groupId)) {
      await this.deps.pool.query({ name: preparedName(RELEASE_CLAIM), text: RELEASE_CLAIM, values: [first.id] });
      return this.flushGroup(message.groupId);
    }
    return this.handBackIfLater(first.userId, await this.deliverInOrder(message.parts, { firstClaimed: true, target: message.groupId }));
  }

  /** Delivers the user's undelivered parts (of every kind unless told), oldest first, in order. */
  async flushUser(userId: string, kinds: OutboundKind[] = allKinds): Promise<FlushOutcome> {
    const parts = await this.deps.prisma.outboundMessage.findMany({
      where: { userId, kind: { in: kinds }, status: { in: [...liveStatuses] } },
      orderBy: { sequence: 'asc' },
    });
    return this.deliverInOrder(parts);
  }

  /**
   * Delivers one staged message's parts in order; when an older part of its user is held back
   * (Twilio failed it), after all of the user's older parts (a message never overtakes one that
   * waited). When a part has
   * to wait, the user is handed to the turn queue for that time (`onHandBack`): their drain
   * delivers everything in order, on whichever instance, after a restart too.
   */
  async flushGroup(groupId: string): Promise<FlushOutcome> {
    const parts = await this.deps.prisma.outboundMessage.findMany({
      where: { groupId, status: { in: [...liveStatuses] } },
      orderBy: { partIndex: 'asc' },
    });
    const [first] = parts;
    if (!first) return { kind: 'done' };
    const earlier = (await this.waitsBehind(first.userId, groupId))
      ? await this.deps.prisma.outboundMessage.findMany({
          where: { userId: first.userId, status: { in: [...liveStatuses] }, sequence: { lt: first.sequence } },
          orderBy: { sequence: 'asc' },
        })
      : [];
    return this.handBackIfLater(first.userId, await this.deliverInOrder([...earlier, ...parts], { target: groupId }));
  }

  /** Whether an older part of the user is held back (Twilio failed it): the group must go after it. */
  private async waitsBehind(userId: string, groupId: string): Promise<boolean> {
    const { rows } = await this.deps.pool.query<{ behind: boolean }>({
      name: preparedName(WAITS_BEHIND),
      text: WAITS_BEHIND,
      values: [userId, groupId, sqlTimestamp(this.deps.clock.now())],
    });
    return rows[0]?.behind === true;
  }

  /** True when the user has parts (of every kind unless told) waiting, or waiting to be retried. */
  async hasUndelivered(userId: string, kinds: OutboundKind[] = allKinds): Promise<boolean> {
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
   * in-process a few times with the usual back-off (nothing could retry it later); the outcome
   * is logged (never the body) and returned.
   */
  async sendUnrecorded(draft: Pick<OutboundDraft, 'channel' | 'toAddress' | 'fromAddress' | 'text'>): Promise<'sent' | 'failed'> {
    const from = this.parts.senderFor(draft.channel, draft.fromAddress);
    if (!from) return 'failed';
    for (const body of outboundBodies(draft, this.deps.smsMaxSegments)) {
      for (let attempts = 1; ; attempts += 1) {
        const result = await this.deps.transport.send({ to: draft.toAddress, from, body });
        if (result.ok) break;
        // A send that may have reached Twilio is not repeated: twice would be worse than once.
        if (!result.retryable || result.outcomeUnknown || attempts >= UNRECORDED_ATTEMPTS) {
          this.deps.logger.warn({ errorCode: result.errorCode, httpStatus: result.httpStatus, attempts, outcomeUnknown: result.outcomeUnknown }, 'unrecorded message could not be sent');
          return 'failed';
        }
        await this.sleep(retryDelayMs(this.deps.policy, attempts, this.deps.random, result.retryAfterMs));
      }
    }
    return 'sent';
  }

  /** A group flush that has to wait gives the user's drain the retry time. */
  private async handBackIfLater(userId: string, outcome: FlushOutcome): Promise<FlushOutcome> {
    if (outcome.kind === 'retry_later' && this.deps.onHandBack) {
      await this.deps.onHandBack(userId, outcome.at).catch((error: unknown) =>
        this.deps.logger.warn({ userId, error: error instanceof Error ? error.message : String(error) }, 'could not schedule the retry of a waiting message; recovery will'),
      );
    }
    return outcome;
  }

  /**
   * Delivers parts in order; with `firstClaimed`, the first is already claimed by this sender.
   * A part that has to wait stops the rest (nothing overtakes it), except a reminder another
   * sender is sending this very moment: it goes out on its own (its sender sends the rest of
   * it), so waiting for it would only hold the user's replies back. Not so for the `target`
   * group, the one this flush is for.
   */
  private async deliverInOrder(parts: SendablePart[], options: { firstClaimed?: boolean; target?: string } = {}): Promise<FlushOutcome> {
    const blockedAddresses = new Map<string, number>();
    const passed = new Set<string>();
    for (const [index, part] of parts.entries()) {
      if (passed.has(part.groupId)) continue;
      const blockedBy = blockedAddresses.get(part.toAddress);
      if (blockedBy !== undefined) {
        await this.parts.finish(part.id, 'undeliverable', { errorCode: blockedBy, errorMessage: 'an earlier part to this address failed permanently' });
        continue;
      }
      const outcome = index === 0 && options.firstClaimed ? await this.parts.deliverClaimed(part) : await this.parts.deliver(part);
      if (outcome.kind === 'in_flight' && part.kind === 'reminder' && part.groupId !== options.target) {
        passed.add(part.groupId);
        continue;
      }
      if (outcome.kind === 'retry_later' || outcome.kind === 'in_flight') return { kind: 'retry_later', at: outcome.at };
      if (outcome.kind === 'permanent_failure' && outcome.errorCode !== undefined) blockedAddresses.set(part.toAddress, outcome.errorCode);
    }
    return { kind: 'done' };
  }
}
