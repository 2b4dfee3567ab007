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
    };

/** Sends message parts (Twilio's REST API, or the console when Twilio is not configured). */
export interface MessageTransport {
  readonly name: 'twilio' | 'console';
  send(message: TransportMessage): Promise<TransportResult>;
}
