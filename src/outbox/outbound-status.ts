import type { OutboundStatus } from '../generated/prisma/client.js';

/**
 * Outbound statuses in the order a message moves through them. Twilio's callbacks arrive
 * out of order and more than once; storing the rank lets one conditional UPDATE accept
 * only a move forward. Terminal outcomes share the top rank but one: whichever arrives
 * first stands, except that `read` (WhatsApp) may follow `delivered`.
 */
export const statusRank: Record<OutboundStatus, number> = {
  pending: 0,
  dispatching: 1,
  accepted: 2,
  scheduled: 3,
  queued: 4,
  sending: 5,
  sent: 6,
  delivered: 7,
  undelivered: 7,
  failed: 7,
  canceled: 7,
  undeliverable: 7,
  read: 8,
};

/** Twilio's status names that map onto Herald's outbound statuses. */
export function parseTwilioStatus(status: string): OutboundStatus | undefined {
  const normalized = status.trim().toLowerCase();
  if (normalized === 'partially_delivered') return 'delivered';
  return normalized in statusRank && normalized !== 'pending' && normalized !== 'dispatching' && normalized !== 'undeliverable'
    ? (normalized as OutboundStatus)
    : undefined;
}
