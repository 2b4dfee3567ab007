import { AsyncLocalStorage } from 'node:async_hooks';
import { createTwilioClient } from '../channels/twilio-request-client.js';
import type { MessageTransport, SentMessageLookup, SentMessageQuery, TransportMessage, TransportResult } from './message-transport.js';
import { findSentMessage } from './twilio-sent-lookup.js';

/** Twilio credentials and where its API is. */
export interface TwilioTransportOptions {
  accountSid: string;
  authToken: string;
  /** A Twilio-compatible server (staging, tests); unset means api.twilio.com. */
  apiBaseUrl?: string | undefined;
  timeoutMs?: number;
}

/** The HTTP response headers of the Twilio call made in the current send, if any arrived. */
type ResponseSlot = { headers?: Record<string, unknown> };

/** Sends through Twilio's Messages REST API with the official SDK. */
export class TwilioTransport implements MessageTransport {
  readonly name = 'twilio' as const;
  private readonly client: ReturnType<typeof createTwilioClient>;
  // The SDK's errors (RestException) drop the response headers, Retry-After among them;
  // the HTTP client still sees them, so each send collects its own response here.
  private readonly responses = new AsyncLocalStorage<ResponseSlot>();

  constructor(options: TwilioTransportOptions) {
    this.client = createTwilioClient({
      accountSid: options.accountSid,
      authToken: options.authToken,
      apiBaseUrl: options.apiBaseUrl,
      timeoutMs: options.timeoutMs ?? 15_000,
    });
    const httpClient = this.client.httpClient;
    const request = httpClient.request.bind(httpClient);
    httpClient.request = (async (requestOptions: Parameters<typeof request>[0]) => {
      const response = await request(requestOptions);
      const slot = this.responses.getStore();
      if (slot) slot.headers = response.headers as Record<string, unknown>;
      return response;
    }) as typeof httpClient.request;
  }

  async send(message: TransportMessage): Promise<TransportResult> {
    const sender = message.from.startsWith('MG') ? { messagingServiceSid: message.from } : { from: message.from };
    const slot: ResponseSlot = {};
    return this.responses.run(slot, async () => {
      try {
        const created = await this.client.messages.create({
          to: message.to,
          ...sender,
          ...(message.contentSid
            ? { contentSid: message.contentSid, contentVariables: JSON.stringify(message.contentVariables ?? {}) }
            : { body: message.body ?? '' }),
          ...(message.statusCallback ? { statusCallback: message.statusCallback } : {}),
        });
        return { ok: true, sid: created.sid, status: created.status };
      } catch (error) {
        return describeFailure(error, slot.headers);
      }
    });
  }

  /** Looks the message up in Twilio's Messages list (twilio-sent-lookup.ts). */
  findSent(query: SentMessageQuery): Promise<SentMessageLookup> {
    return findSentMessage(this.client, query);
  }
}

/** Classifies a failed Twilio call: retry 429, 5xx and network trouble; never a 4xx. */
function describeFailure(error: unknown, headers?: Record<string, unknown>): TransportResult {
  const details = error as { status?: number; code?: number | string; message?: string };
  const httpStatus = typeof details.status === 'number' ? details.status : undefined;
  const errorCode = details.code !== undefined && !Number.isNaN(Number(details.code)) ? Number(details.code) : undefined;
  const message = details.message ?? String(error);
  if (httpStatus === undefined) {
    // No HTTP answer at all: a timeout or a refused/reset connection. Whether Twilio may have
    // taken the message depends on whether the request went out.
    return {
      ok: false,
      retryable: true,
      message,
      ...(errorCode !== undefined ? { errorCode } : {}),
      ...(mayHaveReachedTwilio(error) ? { outcomeUnknown: true } : {}),
    };
  }
  const retryable = httpStatus === 429 || httpStatus >= 500;
  const retryAfterMs = retryable ? parseRetryAfter(headers?.['retry-after']) : undefined;
  return {
    ok: false,
    retryable,
    httpStatus,
    message,
    ...(errorCode !== undefined ? { errorCode } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

/** Network errors raised before a connection existed: nothing was sent. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'EADDRNOTAVAIL', 'ERR_INVALID_URL']);

/**
 * Whether a request that got no answer may have reached Twilio. A connection refused (or a
 * name that did not resolve) sent nothing; otherwise the HTTP client's request tells whether
 * it was written out whole (`writableFinished`: handed to the operating system): a timeout or
 * a reset after that may have left the message at Twilio, one before it cannot have (Twilio
 * takes no message from a request it did not receive whole). An error that carries no request
 * (not the HTTP client's) is presumed to have reached Twilio: looking before resending is safe.
 */
export function mayHaveReachedTwilio(error: unknown): boolean {
  const details = error as { code?: unknown; request?: { writableFinished?: unknown } } | null | undefined;
  if (typeof details?.code === 'string' && NOT_CONNECTED.has(details.code)) return false;
  const written = details?.request?.writableFinished;
  return typeof written === 'boolean' ? written : true;
}

/** A Retry-After header (seconds, or an HTTP date) in milliseconds from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: unknown, now: number = Date.now()): number | undefined {
  const text: unknown = Array.isArray(value) ? value[0] : value;
  if (typeof text !== 'string' && typeof text !== 'number') return undefined;
  const trimmed = String(text).trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  if (!/[a-z]/i.test(trimmed)) return undefined; // an HTTP date names its day and month
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
