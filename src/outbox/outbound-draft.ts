import type { Channel, OutboundKind, OutboundMessage } from '../generated/prisma/client.js';
import { formatForChannel } from '../channels/format-message.js';
import { splitMessage } from '../channels/split-message.js';
import { CHANNEL_LIMITS } from '../channels/channel-limits.js';
import { capSmsSegments, isGsm7, plainSmsPunctuation } from '../channels/sms-encoding.js';

// What a message to send is, before and after it is stored: the draft a caller stages, the
// parts it becomes, and the address it goes to. The outbox service (outbox-service.ts) delivers them.

/** A message to stage for delivery. */
export interface OutboundDraft {
  userId: string;
  turnId?: string | undefined;
  kind: OutboundKind;
  channel: Channel;
  toAddress: string;
  /** The number the user wrote to; replies go out from it. */
  fromAddress?: string | undefined;
  /** Markdown from the model; converted for the channel and split into parts. */
  text: string;
  /** Send as an approved WhatsApp template instead of free text. */
  template?: { contentSid: string; variables: Record<string, string> } | undefined;
}

/** How a flush ended. */
export type FlushOutcome = { kind: 'done' } | { kind: 'retry_later'; at: Date };

/** What sending needs of a part: a stored row, or one a caller has just written itself. */
export type SendablePart = Pick<
  OutboundMessage,
  | 'id'
  | 'userId'
  | 'turnId'
  | 'kind'
  | 'channel'
  | 'toAddress'
  | 'fromAddress'
  | 'body'
  | 'groupId'
  | 'partIndex'
  | 'partCount'
  | 'contentSid'
  | 'contentVariables'
  | 'status'
  | 'statusRank'
  | 'attempts'
  | 'nextAttemptAt'
  | 'unknownSince'
  | 'createdAt'
>;

/**
 * A message whose rows the caller writes in its own statement and which this sender
 * delivers right after the commit ({@link OutboxService.claimed}, then
 * {@link OutboxService.sendClaimed}).
 */
export interface ClaimedMessage {
  groupId: string;
  createdAt: Date;
  /**
   * The rows to store, in order (partIndex 0…). The first is already claimed by this
   * sender — `dispatching`, one attempt, its claim lapsing `dispatchClaimMs` after
   * `createdAt`, exactly as a claim just before sending leaves it — so sending it needs no
   * read and no claim round trip; the others are pending, as `stage` stores them.
   */
  parts: SendablePart[];
}

/**
 * The bodies a draft is stored as: converted for the channel and split at 1600 characters;
 * a template is one part. On SMS, typographic punctuation becomes plain GSM-7 when that makes
 * the whole text GSM-7 (one curly quote would make it UCS-2, tripling its segments) and the text is capped at
 * `smsMaxSegments` segments (SMS_MAX_SEGMENTS).
 */
export function outboundBodies(draft: Pick<OutboundDraft, 'text' | 'channel' | 'template'>, smsMaxSegments = Number.POSITIVE_INFINITY): string[] {
  if (draft.template) return [draft.text];
  const formatted = formatForChannel(draft.text, draft.channel);
  if (!CHANNEL_LIMITS[draft.channel].segmented) return splitMessage(formatted);
  // Plain punctuation only where it makes the text GSM-7: text that needs Unicode anyway
  // (Hebrew, emoji, a ✓) costs the same per character, and "..." is longer than "…".
  const plain = plainSmsPunctuation(formatted);
  return splitMessage(capSmsSegments(isGsm7(plain) ? plain : formatted, smsMaxSegments));
}

/** The columns every part of a message shares, as `stage` and `claimed` write them. */
export function partRow(draft: OutboundDraft, body: string, partIndex: number, partCount: number) {
  return {
    userId: draft.userId,
    turnId: draft.turnId ?? null,
    kind: draft.kind,
    channel: draft.channel,
    toAddress: draft.toAddress,
    fromAddress: draft.fromAddress ?? null,
    body,
    partIndex,
    partCount,
    contentSid: draft.template?.contentSid ?? null,
    ...(draft.template ? { contentVariables: draft.template.variables } : {}),
  };
}

/**
 * The channel's "To" address for a phone number. RCS goes to the bare number through the
 * Messaging Service, which tries RCS and falls back to SMS itself.
 */
export function addressFor(phone: string, channel: Channel): string {
  return channel === 'whatsapp' ? `whatsapp:${phone}` : phone;
}
