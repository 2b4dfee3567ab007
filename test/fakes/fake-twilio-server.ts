import { randomBytes } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeTwilioMediaStore } from './twilio/media-store.js';
import { waitForCount } from './fake-failures.js';
import { FakeContentApi } from './twilio/content-api.js';
import { FakeTypingIndicators } from './twilio/typing-indicators.js';
import { FakeAccountConfig } from './twilio/account-config.js';
import { authorized, errorAnswer, sendJson as writeJson } from './twilio/http.js';
import { listMessages, type MessageResource } from './twilio/message-list.js';

/** One POST the fake received, with what it answered. */
export interface RecordedTwilioRequest {
  method: string;
  /** The path as received, including any prefix in front of /2010-04-01. */
  path: string;
  /** Form parameters (To, From, Body…). A repeated key keeps its last value. */
  params: Record<string, string>;
  /** The HTTP Basic auth username, normally the account SID; undefined without Basic auth. */
  username: string | undefined;
  /** The status answered; null while the request is hanging (see hangNext). */
  status: number | null;
  receivedAt: Date;
}

/** A message the fake accepted (answered 201). */
export interface SentTwilioMessage {
  sid: string;
  to: string;
  from: string | null;
  body: string | null;
  statusCallback: string | null;
  contentSid: string | null;
  contentVariables: string | null;
  messagingServiceSid: string | null;
  dateCreated: Date;
}

/** A failure to answer instead of the normal behaviour, in Twilio's error shape. */
export interface TwilioFailure {
  status: number;
  /** Twilio's error code (20429, 21610…); defaults by status where Twilio has an obvious one. */
  code?: number;
  message?: string;
  /** Sent as a Retry-After header. */
  retryAfterSeconds?: number;
}

/**
 * How message creation misbehaves, as Twilio's API does in an incident (setMessageFault):
 * - `error`: every create is answered with this error (a 500, a 503…); nothing is taken.
 * - `reset-before`: the connection is reset as the request arrives; nothing is taken (to the
 *   client, whose request went out whole, the outcome is unknown).
 * - `drop-answer`: the message is taken (stored, it counts as sent, the list shows it) but the
 *   answer is lost: the connection is reset (`reset`) or never answered (`hang`, until the
 *   client times out).
 * Refused connections are {@link FakeTwilioServer.refuseConnections}.
 */
export type MessageFault = { kind: 'error'; failure: TwilioFailure } | { kind: 'reset-before' } | { kind: 'drop-answer'; how: 'reset' | 'hang' };

/** One GET of the Messages list the fake answered. */
export interface RecordedTwilioLookup {
  /** The query string's parameters (To, From, DateSent>…). */
  query: Record<string, string>;
  status: number;
  receivedAt: Date;
}

/** Twilio's JSON error body, the "legacy" shape the SDK turns into a RestException. */
interface TwilioErrorBody {
  code: number | null;
  message: string;
  more_info: string;
  status: number;
}

const apiVersion = '2010-04-01';
// Any prefix may come before /2010-04-01 so a base URL with a path (http://host/twilio) can be tested end to end.
const createMessagePath = /^(?:\/.*)?\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/;
const fetchMessagePath = /^(?:\/.*)?\/2010-04-01\/Accounts\/([^/]+)\/Messages\/([^/]+)\.json$/;

/**
 * A local stand-in for Twilio's Messages REST API, for running the real twilio SDK against.
 * It checks Basic auth and the parameters Twilio checks, with Twilio's error codes (a missing
 * To, From or Body; an address that is not E.164; a WhatsApp address paired with an SMS one;
 * a body over 1,600 characters), records every request, and can be told to fail or hang the
 * next requests.
 */
export class FakeTwilioServer {
  /** Every POST received since start or the last reset, in order. */
  readonly requests: RecordedTwilioRequest[] = [];
  /** Every message accepted with 201, in order. */
  readonly messages: SentTwilioMessage[] = [];

  /** Every GET of the Messages list (a look-up), in order. */
  readonly lookups: RecordedTwilioLookup[] = [];

  private readonly failures: TwilioFailure[] = [];
  private hangsLeft = 0;
  private fault: { fault: MessageFault; timesLeft: number } | undefined;
  private refusing = false;
  // Full resources for GET …/Messages/:Sid.json and the list, in the order taken, kept apart so `messages` stays easy to assert on.
  private readonly resources = new Map<string, MessageResource>();
  private readonly events = new EventEmitter();
  /** Inbound media: URLs for webhooks' MediaUrlN, the redirect to a media store on another origin, the Media DELETE. */
  media!: FakeTwilioMediaStore;
  /** The Content API (content.twilio.com/v1/Content): contents made, their approval, what a content message shows. */
  readonly content: FakeContentApi;
  /** WhatsApp typing indicators (messaging.twilio.com/v2/Indicators/Typing.json). */
  readonly typing = new FakeTypingIndicators();
  /** The account's numbers, Messaging Services, A2P campaigns, toll-free verifications and WhatsApp senders (what `npm run doctor` reads). */
  readonly config: FakeAccountConfig;

  private constructor(
    private readonly server: Server,
    /** Base URL to give the SDK, e.g. http://127.0.0.1:54321. */
    readonly url: string,
    readonly accountSid: string,
    readonly authToken: string,
  ) {
    // Any number of tests may wait at once; the default limit of 10 would only produce warnings.
    this.events.setMaxListeners(0);
    this.content = new FakeContentApi(url);
    this.config = new FakeAccountConfig(url, accountSid);
  }

  /** Starts a server on 127.0.0.1 on a free port. */
  static async start(options: { accountSid?: string; authToken?: string } = {}): Promise<FakeTwilioServer> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const fake = new FakeTwilioServer(
      server,
      `http://127.0.0.1:${port}`,
      options.accountSid ?? 'AC' + '0'.repeat(32),
      options.authToken ?? 'test-auth-token',
    );
    fake.media = await FakeTwilioMediaStore.start({ url: fake.url, accountSid: fake.accountSid, authToken: fake.authToken });
    server.on('request', (request, response) => fake.handle(request, response));
    return fake;
  }

  /**
   * Queues failures, consumed one per message-create request in order before normal behaviour
   * resumes, e.g. `failNext({ status: 429, code: 20429 })`. They take effect before auth and validation.
   */
  failNext(...failures: TwilioFailure[]): void {
    this.failures.push(...failures);
  }

  /** The next `count` requests get no answer until close(), to exercise client timeouts. Hangs come before queued failures. */
  hangNext(count = 1): void {
    this.hangsLeft += count;
  }

  /**
   * Makes every message create misbehave as `fault` says (see {@link MessageFault}), for the
   * next `times` creates or until cleared with `setMessageFault(undefined)`. Queued failures
   * and hangs (failNext, hangNext) come first.
   */
  setMessageFault(fault: MessageFault | undefined, options: { times?: number } = {}): void {
    this.fault = fault ? { fault, timesLeft: options.times ?? Number.POSITIVE_INFINITY } : undefined;
  }

  /**
   * The API goes away: the listener closes (open connections are cut) and every connection is
   * refused until {@link acceptConnections}, which listens again on the same port.
   */
  async refuseConnections(): Promise<void> {
    if (this.refusing) return;
    this.refusing = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  /** Listens again after {@link refuseConnections}. */
  async acceptConnections(): Promise<void> {
    if (!this.refusing) return;
    this.server.listen(Number(new URL(this.url).port), '127.0.0.1');
    await once(this.server, 'listening');
    this.refusing = false;
  }

  /**
   * Resolves with `messages` once at least `count` were accepted. It waits as long as the
   * test does; `timeoutMs` makes it reject after that long instead (fake-failures.ts).
   */
  waitForMessages(count: number, timeoutMs?: number): Promise<SentTwilioMessage[]> {
    return waitForCount(this, this.events, 'message', () => this.messages, count, timeoutMs);
  }

  /** Resolves with `requests` once at least `count` arrived (hanging ones included); as waitForMessages. */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedTwilioRequest[]> {
    return waitForCount(this, this.events, 'request', () => this.requests, count, timeoutMs);
  }

  /** Forgets every request, message, queued failure and pending hang. */
  reset(): void {
    this.requests.length = 0;
    this.messages.length = 0;
    this.failures.length = 0;
    this.hangsLeft = 0;
    this.fault = undefined;
    this.lookups.length = 0;
    this.resources.clear();
    this.media.reset();
    this.content.reset();
    this.typing.reset();
    this.config.reset();
  }

  /** Stops the server, cutting hanging and kept-alive connections so nothing waits on them. */
  async close(): Promise<void> {
    await this.media.close();
    if (this.refusing) return;
    const closed = new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
    this.server.closeAllConnections();
    await closed;
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => this.route(request, response, Buffer.concat(chunks).toString('utf8')));
    // A client that gives up mid-request is not the fake's problem; without a listener it would crash the process.
    request.on('error', () => undefined);
  }

  private route(request: IncomingMessage, response: ServerResponse, rawBody: string): void {
    const url = new URL(request.url ?? '/', this.url);
    const path = url.pathname;
    if (this.media.handleApi(request, response, path)) return;
    if (this.routeMessagingApis(request, response, url, rawBody)) return;
    if (request.method === 'GET' && createMessagePath.test(path)) {
      this.answerList(request, response, path, url.searchParams);
      return;
    }
    if (request.method === 'GET') {
      this.answerFetch(request, response, path);
      return;
    }
    const recorded: RecordedTwilioRequest = {
      method: request.method ?? 'POST',
      path,
      params: Object.fromEntries(new URLSearchParams(rawBody)),
      username: parseBasicAuth(request.headers.authorization)?.username,
      status: null,
      receivedAt: new Date(),
    };
    const answer = this.decide(request, path, recorded.params);
    if (answer === 'hang' || answer === 'reset') {
      this.record(recorded);
      if (answer === 'reset') request.socket.destroy();
      return;
    }
    // A dropped answer leaves the status null: the client never got one.
    if (!answer.drop) recorded.status = answer.status;
    // Recorded before the answer is written, so a client that awaited the SDK call always finds it here.
    this.record(recorded);
    if (answer.message) {
      this.messages.push(answer.message);
      this.events.emit('message');
    }
    if (answer.drop === 'reset') request.socket.destroy();
    if (answer.drop) return;
    sendJson(response, answer.status, answer.body, answer.headers);
  }

  /** The Content API, typing indicators and the account configuration: every one checks Basic auth first. */
  private routeMessagingApis(request: IncomingMessage, response: ServerResponse, url: URL, rawBody: string): boolean {
    const params = request.headers['content-type']?.startsWith('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(rawBody)) : {};
    const handle = () => this.content.handle(request, url.pathname, rawBody) ?? this.typing.handle(request, url.pathname, params) ?? this.config.handle(request, url);
    const isOurs = /\/v1\/Content|\/v2\/Indicators\/|\/v1\/Services\/|\/v1\/Tollfree\/|\/v2\/Channels\/|\/IncomingPhoneNumbers\.json$/.test(url.pathname);
    if (!isOurs) return false;
    const answer = authorized(request, this.accountSid, this.authToken) ? handle() : errorAnswer({ status: 401, code: 20003, message: 'Authenticate' });
    if (!answer) return false;
    writeJson(response, answer.status, answer.body, answer.headers);
    return true;
  }

  private record(recorded: RecordedTwilioRequest): void {
    this.requests.push(recorded);
    this.events.emit('request');
  }

  private decide(
    request: IncomingMessage,
    path: string,
    params: Record<string, string>,
  ): 'hang' | 'reset' | { status: number; body: unknown; headers?: Record<string, string>; message?: SentTwilioMessage; drop?: 'reset' | 'hang' } {
    const match = createMessagePath.exec(path);
    if (request.method !== 'POST' || !match) return this.error({ status: 404, message: `No route for ${request.method} ${path}` });

    if (this.hangsLeft > 0) {
      this.hangsLeft -= 1;
      return 'hang';
    }
    const failure = this.failures.shift();
    if (failure) return this.error(failure);
    const fault = this.takeFault();
    if (fault?.kind === 'error') return this.error(fault.failure);
    if (fault?.kind === 'reset-before') return 'reset';

    const authFailure = this.checkAuth(request);
    if (authFailure) return authFailure;
    if (match[1] !== this.accountSid) {
      return this.error({ status: 404, message: `The requested resource ${path} was not found` });
    }
    if (!params.To) return this.error({ status: 400, code: 21604, message: "A 'To' phone number is required." });
    if (!params.From && !params.MessagingServiceSid) {
      return this.error({ status: 400, code: 21603, message: "A 'From' phone number is required." });
    }
    if (!params.Body && !params.ContentSid && !params.MediaUrl) {
      return this.error({ status: 400, code: 21602, message: 'Message body is required.' });
    }
    const refused = checkMessage(params);
    if (refused) return this.error(refused);
    let rendered: string | undefined;
    if (params.ContentSid) {
      const content = this.content.render(params.ContentSid, params.ContentVariables);
      if ('failure' in content) return this.error(content.failure);
      rendered = content.body;
    }
    const accepted = this.accept(params, rendered);
    return fault?.kind === 'drop-answer' ? { ...accepted, drop: fault.how } : accepted;
  }

  /** The fault this create meets, if any (counted down when given a number of times). */
  private takeFault(): MessageFault | undefined {
    if (!this.fault) return undefined;
    const { fault } = this.fault;
    this.fault.timesLeft -= 1;
    if (this.fault.timesLeft <= 0) this.fault = undefined;
    return fault;
  }

  private checkAuth(request: IncomingMessage): ReturnType<FakeTwilioServer['error']> | undefined {
    const credentials = parseBasicAuth(request.headers.authorization);
    if (credentials?.username === this.accountSid && credentials.password === this.authToken) return undefined;
    return this.error({ status: 401, code: 20003, message: 'Authenticate' });
  }

  private accept(params: Record<string, string>, rendered?: string): { status: number; body: unknown; message: SentTwilioMessage } {
    const now = new Date();
    const sid = 'SM' + randomBytes(16).toString('hex');
    const uri = `/${apiVersion}/Accounts/${this.accountSid}/Messages/${sid}.json`;
    // A content message's body is its content rendered with the variables, as Twilio shows it.
    const body = params.Body ?? rendered ?? '';
    const resource = {
      sid,
      account_sid: this.accountSid,
      to: params.To ?? '',
      from: params.From ?? null,
      body,
      status: 'queued',
      num_segments: String(countSegments(body)),
      num_media: '0',
      direction: 'outbound-api',
      api_version: apiVersion,
      date_created: toRfc2822(now),
      date_updated: toRfc2822(now),
      date_sent: null,
      uri,
      error_code: null,
      error_message: null,
      price: null,
      price_unit: 'USD',
      messaging_service_sid: params.MessagingServiceSid ?? null,
      subresource_uris: { media: uri.replace(/\.json$/, '/Media.json') },
    };
    // Twilio hands it to the carrier at once: from then on it reads as sent, with its date_sent.
    this.resources.set(sid, { ...resource, status: 'sent', date_sent: toRfc2822(now) });
    return {
      status: 201,
      body: resource,
      message: {
        sid,
        to: params.To ?? '',
        from: params.From ?? null,
        body: params.Body ?? rendered ?? null,
        statusCallback: params.StatusCallback ?? null,
        contentSid: params.ContentSid ?? null,
        contentVariables: params.ContentVariables ?? null,
        messagingServiceSid: params.MessagingServiceSid ?? null,
        dateCreated: now,
      },
    };
  }

  private answerList(request: IncomingMessage, response: ServerResponse, path: string, query: URLSearchParams): void {
    const accountSid = createMessagePath.exec(path)?.[1];
    const answer =
      this.checkAuth(request) ??
      (accountSid !== this.accountSid
        ? this.error({ status: 404, message: `The requested resource ${path} was not found` })
        : listMessages([...this.resources.values()], this.accountSid, query));
    this.lookups.push({ query: Object.fromEntries(query), status: answer.status, receivedAt: new Date() });
    sendJson(response, answer.status, answer.body, answer.headers);
  }

  private answerFetch(request: IncomingMessage, response: ServerResponse, path: string): void {
    const match = fetchMessagePath.exec(path);
    const answer = !match
      ? this.error({ status: 404, message: `No route for GET ${path}` })
      : (this.checkAuth(request) ?? this.fetchResource(match[1] ?? '', match[2] ?? ''));
    sendJson(response, answer.status, answer.body, answer.headers);
  }

  private fetchResource(accountSid: string, sid: string): { status: number; body: unknown; headers?: Record<string, string> } {
    const resource = this.resources.get(sid);
    if (accountSid !== this.accountSid || !resource) {
      return this.error({ status: 404, message: `The requested resource /${apiVersion}/Accounts/${accountSid}/Messages/${sid}.json was not found` });
    }
    return { status: 200, body: resource };
  }

  private error(failure: TwilioFailure): { status: number; body: TwilioErrorBody; headers?: Record<string, string> } {
    return errorAnswer(failure);
  }
}

/** The longest body Twilio accepts, in characters (a longer one is refused, never split for you). */
const TWILIO_BODY_LIMIT = 1600;

const e164 = /^\+[1-9]\d{1,14}$/;
const shortCode = /^\d{3,8}$/;
// Alphanumeric sender ids: up to 11 letters, digits and spaces, at least one letter.
const alphanumericSender = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;

/**
 * What Twilio refuses in a message it could otherwise send, with its own codes: an address
 * that is not E.164 (21211 for To, 21212 for From), a WhatsApp address paired with an SMS
 * one (21910), and a body over 1,600 characters (21617).
 */
function checkMessage(params: Record<string, string>): TwilioFailure | undefined {
  const to = params.To ?? '';
  const toWhatsapp = to.startsWith('whatsapp:');
  // `rcs:+1…` forces RCS with no SMS fallback; it needs a Messaging Service (or an rcs: sender).
  const toRcs = to.startsWith('rcs:');
  if (!e164.test(toWhatsapp ? to.slice('whatsapp:'.length) : toRcs ? to.slice('rcs:'.length) : to)) {
    return { status: 400, code: 21211, message: `The 'To' number ${to} is not a valid phone number.` };
  }
  const service = params.MessagingServiceSid;
  if (service !== undefined && !/^MG[0-9a-fA-F]{32}$/.test(service)) {
    return { status: 400, code: 21701, message: `The Messaging Service Sid ${service} is invalid.` };
  }
  if (toRcs && service === undefined && !(params.From ?? '').startsWith('rcs:')) {
    return { status: 400, code: 21910, message: 'Invalid From and To pair. From and To should be of the same channel' };
  }
  const from = params.From;
  if (from !== undefined && !from.startsWith('rcs:')) {
    const fromWhatsapp = from.startsWith('whatsapp:');
    const valid = fromWhatsapp ? e164.test(from.slice('whatsapp:'.length)) : e164.test(from) || shortCode.test(from) || alphanumericSender.test(from);
    if (!valid) return { status: 400, code: 21212, message: `The 'From' number ${from} is not a valid phone number, shortcode, or alphanumeric sender ID.` };
    if (fromWhatsapp !== toWhatsapp) return { status: 400, code: 21910, message: 'Invalid From and To pair. From and To should be of the same channel' };
  }
  // Twilio counts characters; a character outside the BMP is one, though two UTF-16 code units.
  const length = [...(params.Body ?? '')].length;
  if (length > TWILIO_BODY_LIMIT) {
    return { status: 400, code: 21617, message: `The concatenated message body exceeds the ${TWILIO_BODY_LIMIT} character limit.` };
  }
  return undefined;
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
    'Twilio-Request-Id': 'RQ' + randomBytes(16).toString('hex'),
    ...headers,
  });
  response.end(payload);
}

function parseBasicAuth(header: string | undefined): { username: string; password: string } | undefined {
  if (!header?.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) return { username: decoded, password: '' };
  return { username: decoded.slice(0, separator), password: decoded.slice(separator + 1) };
}

/** Twilio's date format: "Tue, 05 Mar 2024 12:00:00 +0000". */
function toRfc2822(date: Date): string {
  return date.toUTCString().replace('GMT', '+0000');
}

/**
 * Roughly how Twilio counts segments: plain ASCII is treated as GSM-7 (160 alone, 153 per part),
 * anything else as UCS-2 (70 alone, 67 per part). Good enough for tests, not for billing.
 */
function countSegments(body: string): number {
  if (body.length === 0) return 1;
  const isGsm = /^[\x20-\x7E\n\r]*$/.test(body);
  const single = isGsm ? 160 : 70;
  const multi = isGsm ? 153 : 67;
  return body.length <= single ? 1 : Math.ceil(body.length / multi);
}
