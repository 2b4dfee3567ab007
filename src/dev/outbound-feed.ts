import { parseTwilioAddress } from '../channels/phone-number.js';
import type { MessageTransport, TransportMessage, TransportResult } from '../outbox/message-transport.js';

/** A message Herald sent, as the dev phone shows it. */
export interface FedMessage {
  /** The recipient's number, E.164. */
  to: string;
  channel: 'sms' | 'whatsapp' | 'rcs';
  body: string;
  /** ISO time it was sent. */
  at: string;
}

/**
 * Local mode's outbound messages as a stream per phone number: the console transport's
 * sends (replies, progress notes, reminders when they fire) reach whoever listens for that
 * number, the dev phone's server-sent events and `npm run chat`. Listeners only hear what
 * is sent after they subscribe.
 */
export class OutboundFeed {
  private readonly listeners = new Map<string, Set<(message: FedMessage) => void>>();

  /** Listens for messages to `phone` (E.164); returns the function that stops listening. */
  subscribe(phone: string, listener: (message: FedMessage) => void): () => void {
    let set = this.listeners.get(phone);
    if (!set) {
      set = new Set();
      this.listeners.set(phone, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(phone) === set) this.listeners.delete(phone);
    };
  }

  publish(message: FedMessage): void {
    for (const listener of [...(this.listeners.get(message.to) ?? [])]) listener(message);
  }

  /** How many listeners a number has (for tests and shutdown). */
  listenerCount(phone: string): number {
    return this.listeners.get(phone)?.size ?? 0;
  }
}

/** `transport`, also publishing each message it sent to `feed`. */
export function feedingTransport(transport: MessageTransport, feed: OutboundFeed, now: () => Date = () => new Date()): MessageTransport {
  return {
    name: transport.name,
    async send(message: TransportMessage): Promise<TransportResult> {
      const result = await transport.send(message);
      const address = parseTwilioAddress(message.to);
      if (result.ok && address) {
        const body = message.body ?? `[WhatsApp template ${message.contentSid ?? ''}] ${Object.values(message.contentVariables ?? {}).join(' ')}`.trim();
        feed.publish({ to: address.phone, channel: address.channel, body, at: now().toISOString() });
      }
      return result;
    },
  };
}
