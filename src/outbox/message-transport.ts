/** One message part for the transport to hand to Twilio. */
export interface TransportMessage {
  /** "+14155550100" or "whatsapp:+14155550100". */
  to: string;
  /** Sender address, or a Messaging Service sid (MG…). */
  from: string;
  body?: string;
  /** An approved WhatsApp template, for messages outside the 24-hour window. */
  contentSid?: string;
  contentVariables?: Record<string, string>;
  /** Where Twilio posts delivery status updates. */
  statusCallback?: string;
  signal?: AbortSignal;
}

/** What happened to one send attempt. */
export type TransportResult =
  | { ok: true; sid: string; status: string }
  | {
      ok: false;
      /** 429, 5xx, timeouts and connection errors may succeed later; 4xx errors will not. */
      retryable: boolean;
      /** Twilio's error code (21610, 21211, 63016…) when it gave one. */
      errorCode?: number;
      httpStatus?: number;
      message: string;
      /** Twilio's Retry-After, when it sent one. */
      retryAfterMs?: number;
      /**
       * The request may have reached Twilio, which may have taken the message: no answer came
       * after it was written (a timeout, a connection reset). Resending blind could deliver it
       * twice; a refused connection, or one lost before the request went out, is not this.
       */
      outcomeUnknown?: boolean;
    };

/** What to look for at Twilio: a message this sender may already have had accepted. */
export interface SentMessageQuery {
  to: string;
  /** The sender address, or a Messaging Service sid (MG…), as the send used it. */
  from: string;
  /** A free-text message: its body exactly as sent. */
  body?: string | undefined;
  /** A content (template) message: Twilio shows it rendered, so it is known by its variables' values. */
  contentVariables?: Record<string, string> | undefined;
  /** When the first attempt whose outcome is unknown started: the message cannot be older. */
  since: Date;
}

/** What a look-up found: the matching messages (oldest first), none, or no answer at all. */
export type SentMessageLookup =
  | { kind: 'found'; matches: Array<{ sid: string; status: string }> }
  | { kind: 'not_found' }
  | { kind: 'failed'; message: string };

/** Sends message parts (Twilio's REST API, or the console when Twilio is not configured). */
export interface MessageTransport {
  readonly name: 'twilio' | 'console';
  send(message: TransportMessage): Promise<TransportResult>;
  /**
   * Looks for a message Twilio may have accepted though its answer was lost (a transport whose
   * sends never end unknown has none). Only a `not_found` makes resending safe.
   */
  findSent?(query: SentMessageQuery): Promise<SentMessageLookup>;
}
