import { createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake answers one media URL, beyond serving its bytes. */
export type MediaBehaviour =
  /** Serve the bytes after the redirect (the default). */
  | { kind: 'serve' }
  /** The API answers this status instead (401, 404, 500…). */
  | { kind: 'status'; status: number }
  /** The store redirects to itself, forever. */
  | { kind: 'redirect-loop' }
  /** The API redirects to `location` instead of its media store (a hostile or broken redirect). */
  | { kind: 'redirect-to'; location: string }
  /** The store sends a few bytes, then one byte every `intervalMs`, never finishing. */
  | { kind: 'trickle'; intervalMs: number }
  /** The store declares `contentLength` (or none, chunked, when null) whatever the body's real size. */
  | { kind: 'lying-length'; contentLength: number | null };

/** One request to the API's media URLs or to the media store. */
export interface MediaRequest {
  method: string;
  /** "api" (Twilio's REST origin) or "store" (the media store, another origin). */
  origin: 'api' | 'store';
  path: string;
  /** The Authorization header's scheme and user, if any (never the secret). */
  authorization: string | undefined;
}

interface StoredMedia {
  accountSid: string;
  messageSid: string;
  bytes: Buffer;
  contentType: string;
  behaviour: MediaBehaviour;
}

const MEDIA_PATH = /^(?:\/.*)?\/2010-04-01\/Accounts\/([^/]+)\/Messages\/([^/]+)\/Media\/([^/.]+)(\.json)?$/;

/**
 * Twilio's media, as a real account serves it: `GET …/Messages/{MM}/Media/{ME}` on the API
 * origin wants HTTP Basic credentials (the account's auth token, or an API key) and answers
 * with a 307 to a signed URL on the media store, another origin, which wants no
 * credentials and refuses a request that carries an Authorization header anyway (as S3
 * refuses a second auth mechanism with 400). `DELETE …/Media/{ME}.json` answers 204 and the
 * media is gone (404 after). Faults per media: a status, a redirect loop, a slow trickle, a
 * lying Content-Length, a redirect somewhere else.
 */
export class FakeTwilioMediaStore {
  /** Every request to media URLs and the store, in order. */
  readonly requests: MediaRequest[] = [];
  /** Media SIDs deleted through the API. */
  readonly deleted: string[] = [];
  /** Bytes the store wrote per media SID (for checking a download stopped early). */
  readonly bytesWritten = new Map<string, number>();

  private readonly media = new Map<string, StoredMedia>();
  private readonly apiKeys = new Map<string, string>();
  private readonly key = randomBytes(32);
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly store: Server,
    /** The store's origin, e.g. http://127.0.0.1:40123 (not the API's). */
    readonly storeUrl: string,
    private readonly api: { url: string; accountSid: string; authToken: string },
  ) {}

  static async start(api: { url: string; accountSid: string; authToken: string }): Promise<FakeTwilioMediaStore> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const fake = new FakeTwilioMediaStore(server, `http://127.0.0.1:${port}`, api);
    server.on('request', (request, response) => fake.serveStore(request, response));
    return fake;
  }

  /**
   * Adds a file and returns its media URL, as a webhook's MediaUrlN names it (under a new
   * MM… message SID unless one is given). `accountSid` other than the fake's own makes a URL
   * of another account.
   */
  add(bytes: Buffer, contentType: string, options: { behaviour?: MediaBehaviour; messageSid?: string; accountSid?: string } = {}): string {
    const mediaSid = `ME${randomBytes(16).toString('hex')}`;
    const messageSid = options.messageSid ?? `MM${randomBytes(16).toString('hex')}`;
    const accountSid = options.accountSid ?? this.api.accountSid;
    this.media.set(mediaSid, { accountSid, messageSid, bytes, contentType, behaviour: options.behaviour ?? { kind: 'serve' } });
    return `${this.api.url}/2010-04-01/Accounts/${accountSid}/Messages/${messageSid}/Media/${mediaSid}`;
  }

  /** An API key (SK…) the account accepts in place of its auth token. */
  addApiKey(sid: string, secret: string): void {
    this.apiKeys.set(sid, secret);
  }

  /** Whether a media SID still exists (not deleted). */
  has(mediaSid: string): boolean {
    return this.media.has(mediaSid);
  }

  /** The media SID of a media URL. */
  static sidOf(url: string): string {
    return url.slice(url.lastIndexOf('/') + 1);
  }

  reset(): void {
    this.requests.length = 0;
    this.deleted.length = 0;
    this.bytesWritten.clear();
    this.media.clear();
    for (const timer of this.timers) clearInterval(timer);
    this.timers.clear();
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    const closed = new Promise<void>((resolve, reject) => this.store.close((error) => (error ? reject(error) : resolve())));
    this.store.closeAllConnections();
    await closed;
  }

  /** Handles a request on the API origin when it is for media; false when it is not. */
  handleApi(request: IncomingMessage, response: ServerResponse, path: string): boolean {
    const match = MEDIA_PATH.exec(path);
    if (!match || (request.method !== 'GET' && request.method !== 'DELETE')) return false;
    this.requests.push({ method: request.method, origin: 'api', path, authorization: describeAuthorization(request.headers.authorization) });
    const [, accountSid, messageSid, mediaSid, json] = match;
    if (!this.authorized(request.headers.authorization, accountSid!)) return twilioError(response, 401, 20003, 'Authenticate'), true;
    const media = this.media.get(mediaSid!);
    if (!media || media.accountSid !== accountSid || media.messageSid !== messageSid) {
      return twilioError(response, 404, 20404, `The requested resource ${path} was not found`), true;
    }
    if (request.method === 'DELETE') {
      if (!json) return twilioError(response, 404, 20404, `The requested resource ${path} was not found`), true;
      this.media.delete(mediaSid!);
      this.deleted.push(mediaSid!);
      response.writeHead(204).end();
      return true;
    }
    if (media.behaviour.kind === 'status') {
      twilioError(response, media.behaviour.status, media.behaviour.status === 401 ? 20003 : media.behaviour.status === 404 ? 20404 : null, 'failure');
      return true;
    }
    const location = media.behaviour.kind === 'redirect-to' ? media.behaviour.location : this.storeLocation(mediaSid!);
    response.writeHead(307, { Location: location, 'Content-Length': 0 }).end();
    return true;
  }

  private storeLocation(mediaSid: string): string {
    const expires = Date.now() + 60_000;
    return `${this.storeUrl}/media.twiliocdn.com/${mediaSid}?Expires=${expires}&Signature=${this.sign(`${mediaSid}:${expires}`)}`;
  }

  private serveStore(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', this.storeUrl);
    this.requests.push({ method: request.method ?? 'GET', origin: 'store', path: url.pathname, authorization: describeAuthorization(request.headers.authorization) });
    request.on('error', () => undefined);
    response.on('error', () => undefined);
    if (request.headers.authorization) {
      response.writeHead(400, { 'Content-Type': 'application/xml' }).end('<Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message></Error>');
      return;
    }
    const mediaSid = url.pathname.split('/').pop() ?? '';
    const expires = url.searchParams.get('Expires') ?? '';
    const media = this.media.get(mediaSid);
    if (!media || url.searchParams.get('Signature') !== this.sign(`${mediaSid}:${expires}`)) {
      response.writeHead(403, { 'Content-Type': 'application/xml' }).end('<Error><Code>AccessDenied</Code></Error>');
      return;
    }
    const behaviour = media.behaviour;
    if (behaviour.kind === 'redirect-loop') {
      response.writeHead(307, { Location: this.storeLocation(mediaSid), 'Content-Length': 0 }).end();
      return;
    }
    if (behaviour.kind === 'trickle') {
      response.writeHead(200, { 'Content-Type': media.contentType, 'Content-Length': media.bytes.length });
      let sent = 0;
      const timer = setInterval(() => {
        if (response.destroyed || sent >= media.bytes.length) {
          clearInterval(timer);
          this.timers.delete(timer);
          return;
        }
        response.write(media.bytes.subarray(sent, sent + 1));
        sent += 1;
        this.bytesWritten.set(mediaSid, sent);
      }, behaviour.intervalMs);
      this.timers.add(timer);
      return;
    }
    if (behaviour.kind === 'lying-length') {
      this.stream(mediaSid, media, response, behaviour.contentLength);
      return;
    }
    response.writeHead(200, { 'Content-Type': media.contentType, 'Content-Length': media.bytes.length });
    response.end(media.bytes);
    this.bytesWritten.set(mediaSid, media.bytes.length);
  }

  /** Streams the body in 64 KB pieces as the client reads them, under whatever length it was told to claim. */
  private stream(mediaSid: string, media: StoredMedia, response: ServerResponse, contentLength: number | null): void {
    const socket = response.socket!;
    // Written on the socket itself: Node's server would refuse a body longer than its own Content-Length.
    const head = [`HTTP/1.1 200 OK`, `Content-Type: ${media.contentType}`, contentLength === null ? 'Transfer-Encoding: chunked' : `Content-Length: ${contentLength}`, 'Connection: close', '', ''].join('\r\n');
    socket.write(head);
    let sent = 0;
    const next = (): void => {
      while (sent < media.bytes.length && !socket.destroyed) {
        const piece = media.bytes.subarray(sent, sent + 65_536);
        sent += piece.length;
        this.bytesWritten.set(mediaSid, sent);
        const frame = contentLength === null ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
        if (!socket.write(frame)) {
          socket.once('drain', next);
          return;
        }
      }
      if (socket.destroyed) return;
      if (contentLength === null) socket.end('0\r\n\r\n');
      else socket.end();
    };
    socket.on('error', () => undefined);
    next();
  }

  private authorized(header: string | undefined, accountSid: string): boolean {
    if (!header?.startsWith('Basic ')) return false;
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const separator = decoded.indexOf(':');
    const [user, password] = [decoded.slice(0, separator), decoded.slice(separator + 1)];
    if (user === this.api.accountSid) return password === this.api.authToken && accountSid === this.api.accountSid;
    return this.apiKeys.get(user) === password && accountSid === this.api.accountSid;
  }

  private sign(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('hex');
  }
}

function describeAuthorization(header: string | undefined): string | undefined {
  if (!header) return undefined;
  if (!header.startsWith('Basic ')) return header.split(' ')[0];
  const user = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':')[0];
  return `Basic ${user}`;
}

function twilioError(response: ServerResponse, status: number, code: number | null, message: string): void {
  const payload = JSON.stringify({ code, message, more_info: code ? `https://www.twilio.com/docs/errors/${code}` : 'https://www.twilio.com/docs/errors', status });
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }).end(payload);
}
