import { createTwilioClient } from '../channels/twilio-request-client.js';
import type { MessageTransport, TransportMessage, TransportResult } from './message-transport.js';

/** Twilio credentials and where its API is. */
export interface TwilioTransportOptions {
  accountSid: string;
  authToken: string;
  /** A Twilio-compatible server (staging, tests); unset means api.twilio.com. */
  apiBaseUrl?: string | undefined;
  timeoutMs?: number;
}

/** Sends through Twilio's Messages REST API with the official SDK. */
export class TwilioTransport implements MessageTransport {
  readonly name = 'twilio' as const;
  private readonly client: ReturnType<typeof createTwilioClient>;

  constructor(options: TwilioTransportOptions) {
    this.client = createTwilioClient({
      accountSid: options.accountSid,
      authToken: options.authToken,
      apiBaseUrl: options.apiBaseUrl,
      timeoutMs: options.timeoutMs ?? 15_000,
    });
  }

  async send(message: TransportMessage): Promise<TransportResult> {
    const sender = message.from.startsWith('MG') ? { messagingServiceSid: message.from } : { from: message.from };
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
      return describeFailure(error);
    }
  }
}

/** Classifies a failed Twilio call: retry 429, 5xx and network trouble; never a 4xx. */
function describeFailure(error: unknown): TransportResult {
  const details = error as { status?: number; code?: number | string; message?: string; headers?: Record<string, string> };
  const httpStatus = typeof details.status === 'number' ? details.status : undefined;
  const errorCode = details.code !== undefined && !Number.isNaN(Number(details.code)) ? Number(details.code) : undefined;
  const message = details.message ?? String(error);
  if (httpStatus === undefined) {
    // No HTTP answer at all: a timeout or a refused/reset connection.
    return { ok: false, retryable: true, message, ...(errorCode !== undefined ? { errorCode } : {}) };
  }
  const retryable = httpStatus === 429 || httpStatus >= 500;
  return {
    ok: false,
    retryable,
    httpStatus,
    message,
    ...(errorCode !== undefined ? { errorCode } : {}),
  };
}
