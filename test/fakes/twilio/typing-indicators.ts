import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { waitForCount } from '../fake-failures.js';
import { errorAnswer, type FakeAnswer, type TwilioFailure } from './http.js';

/** One typing indicator the fake accepted. */
export interface FakeTypingIndicator {
  messageId: string;
  channel: string;
  receivedAt: Date;
}

const TYPING_PATH = /^(?:\/.*)?\/v2\/Indicators\/Typing\.json$/;
const MESSAGE_SID = /^(SM|MM)[0-9a-zA-Z]{32}$/;

/**
 * Twilio's WhatsApp typing indicator (`POST messaging.twilio.com/v2/Indicators/Typing.json`,
 * form `channel=whatsapp&messageId=SM…`): it answers `{"success": true}`; a channel other
 * than whatsapp, or a messageId that is not a message SID, is a 400; a message the test
 * marked too old (Twilio only marks recent inbound messages) is a 400 too.
 */
export class FakeTypingIndicators {
  /** Every indicator accepted, in order. */
  readonly accepted: FakeTypingIndicator[] = [];
  /** Every request, accepted or not. */
  readonly requests: FakeTypingIndicator[] = [];
  private readonly old = new Set<string>();
  private readonly failures: TwilioFailure[] = [];
  private readonly events = new EventEmitter();

  constructor() {
    this.events.setMaxListeners(0);
  }

  /** Messages Twilio will refuse to mark (older than it allows). */
  markOld(messageSid: string): void {
    this.old.add(messageSid);
  }

  failNext(...failures: TwilioFailure[]): void {
    this.failures.push(...failures);
  }

  /** Resolves once at least `count` requests (accepted or not) arrived. */
  waitForRequests(count: number, timeoutMs?: number): Promise<FakeTypingIndicator[]> {
    return waitForCount(this, this.events, 'request', () => this.requests, count, timeoutMs);
  }

  reset(): void {
    this.accepted.length = 0;
    this.requests.length = 0;
    this.old.clear();
    this.failures.length = 0;
  }

  handle(request: IncomingMessage, path: string, params: Record<string, string>): FakeAnswer | undefined {
    if (!TYPING_PATH.test(path)) return undefined;
    if (request.method !== 'POST') return errorAnswer({ status: 405, code: 20004, message: 'Method not allowed' });
    const indicator = { messageId: params.messageId ?? '', channel: params.channel ?? '', receivedAt: new Date() };
    this.requests.push(indicator);
    this.events.emit('request');
    const failure = this.failures.shift();
    if (failure) return errorAnswer(failure);
    if (indicator.channel !== 'whatsapp') return errorAnswer({ status: 400, code: 20001, message: 'Invalid parameter: channel must be whatsapp' });
    if (!MESSAGE_SID.test(indicator.messageId)) return errorAnswer({ status: 400, code: 20001, message: 'Invalid parameter: messageId must be a message SID (SM…, MM…)' });
    if (this.old.has(indicator.messageId)) return errorAnswer({ status: 400, code: 20001, message: `Invalid parameter: message ${indicator.messageId} is too old for a typing indicator` });
    this.accepted.push(indicator);
    return { status: 200, body: { success: true } };
  }
}
