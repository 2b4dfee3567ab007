import http from 'node:http';
import https from 'node:https';
import { OutboundRefusedError, pinnedLookup, type OutboundPolicy, type OutboundTarget, type OutboundTrust } from './outbound-policy.js';

/** A `fetch` for URLs a user gave (or a server they chose handed back): checked, pinned, redirects followed by hand. */
type OutboundFetch = (input: Parameters<typeof fetch>[0], init?: RequestInit) => Promise<Response>;

/** HTTP to user-chosen servers under the outbound policy. */
export interface OutboundHttp {
  fetch: OutboundFetch;
  /** Checks a URL as `fetch` would before contacting it; throws {@link OutboundRefusedError}. Nothing is contacted. */
  check(url: string | URL): Promise<OutboundTarget>;
}

/** Settings of one {@link OutboundHttp}. */
export interface OutboundHttpOptions {
  trust: OutboundTrust;
  /** One call, redirects included. */
  timeoutMs: number;
  /** The most a response body may be (default 32 MiB). */
  maxResponseBytes?: number | undefined;
  /** The most redirects one call follows (default 5). */
  maxRedirects?: number | undefined;
}

/** Headers that carry the caller's identity: never sent to an origin a redirect leads to. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * HTTP(S) through the outbound policy, for clients that take a `fetch` (tsdav, the CalDAV
 * provider). Every request's URL (and every redirect's) is checked before anything is
 * sent: http(s) only, a public address (or one the operator allowed), and plain http only
 * where the operator vouched for the host. The connection goes to the addresses checked
 * (a pinned `lookup`, no second DNS query), with the host name kept for TLS and Host.
 * Redirects are followed by hand, each hop checked; credentials (Authorization, Cookie)
 * never follow a redirect to another origin, and `redirect: 'manual'` hands the 3xx back.
 * Connections are kept alive within this client only (one account's requests).
 */
export function createOutboundHttp(policy: OutboundPolicy, options: OutboundHttpOptions): OutboundHttp {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, timeout: 5000, scheduling: 'lifo' }),
    'https:': new https.Agent({ keepAlive: true, timeout: 5000, scheduling: 'lifo' }),
  };
  const maxBytes = options.maxResponseBytes ?? 32 * 1024 * 1024;

  const check = async (input: string | URL): Promise<OutboundTarget> => {
    const url = new URL(input);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefusedError('not a host');
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    const checked = await policy.check(url.hostname, port, options.trust);
    if (!checked.ok) throw checked.error;
    if (url.protocol === 'http:' && !checked.target.vouched) throw new OutboundRefusedError('plain http');
    return checked.target;
  };

  const fetch: OutboundFetch = async (input, init = {}) => {
    // Clients hand a URL; a Request object would carry its own method and body past these checks.
    if (typeof input !== 'string' && !(input instanceof URL)) throw new TypeError('outbound fetch takes a URL, not a Request');
    const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(options.timeoutMs)]) : AbortSignal.timeout(options.timeoutMs);
    let url = new URL(input);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = bodyBytes(init.body);
    const headers = new Headers(init.headers);
    for (let hop = 0; ; hop += 1) {
      const target = await check(url);
      signal.throwIfAborted();
      const answer = await send(url, target, method, headers, body, signal, agents, maxBytes);
      const location = answer.headers.get('location');
      if (answer.status < 300 || answer.status >= 400 || answer.status === 304 || !location || init.redirect === 'manual') return toResponse(answer, url, method);
      if (init.redirect === 'error') throw new TypeError(`redirected to ${location}`);
      if (hop >= (options.maxRedirects ?? 5)) throw new TypeError('too many redirects');
      const next = new URL(location, url);
      if (next.origin !== url.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
      if (answer.status === 303 ? method !== 'HEAD' : (answer.status === 301 || answer.status === 302) && method === 'POST') {
        method = 'GET';
        body = undefined;
        headers.delete('content-type');
        headers.delete('content-length');
      }
      url = next;
    }
  };

  return { fetch, check };
}

interface Answer {
  status: number;
  statusText: string;
  headers: Headers;
  body: Buffer;
}

/** One request to the checked addresses; the whole body read (up to `maxBytes`). */
function send(url: URL, target: OutboundTarget, method: string, headers: Headers, body: Buffer | undefined, signal: AbortSignal, agents: Record<'http:' | 'https:', http.Agent>, maxBytes: number): Promise<Answer> {
  const secure = url.protocol === 'https:';
  const outgoing: Record<string, string> = {};
  headers.forEach((value, name) => {
    outgoing[name] = value;
  });
  if (body !== undefined) outgoing['content-length'] = String(body.length);
  return new Promise<Answer>((resolve, reject) => {
    let received: http.IncomingMessage | undefined;
    const request = (secure ? https : http).request(
      {
        protocol: url.protocol,
        host: target.host,
        port: target.port,
        path: `${url.pathname}${url.search}`,
        method,
        headers: outgoing,
        agent: agents[secure ? 'https:' : 'http:'],
        lookup: pinnedLookup(target.addresses),
        signal,
      },
      (response) => {
        received = response;
        // A body declared too large is refused before it is read.
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          response.destroy();
          reject(new ResponseTooLargeError(maxBytes, declared));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            response.destroy();
            reject(new ResponseTooLargeError(maxBytes, size));
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', (error) => reject(signal.aborted ? abortReason(signal) : error));
        response.on('end', () => {
          const answerHeaders = new Headers();
          for (let index = 0; index + 1 < response.rawHeaders.length; index += 2) {
            try {
              answerHeaders.append(response.rawHeaders[index]!, response.rawHeaders[index + 1]!);
            } catch {
              // A header value fetch cannot hold (it is dropped, as a browser would).
            }
          }
          resolve({ status: response.statusCode ?? 0, statusText: response.statusMessage ?? '', headers: answerHeaders, body: Buffer.concat(chunks) });
        });
      },
    );
    request.on('error', (error) => {
      // Bytes after a complete answer (a server sending more than its Content-Length) are the
      // server's fault and not read: the answer stands, as fetch would have it.
      if (received?.complete && !signal.aborted) return;
      reject(signal.aborted ? abortReason(signal) : error);
    });
    request.end(body);
  });
}

/** Why the call was aborted (the deadline's TimeoutError, or the caller's reason), as an Error. */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason));
}

/** A response body over the client's limit: declared (Content-Length) or read; the rest was never read. */
export class ResponseTooLargeError extends Error {
  readonly code = 'ERESPONSETOOLARGE';

  constructor(
    readonly maxBytes: number,
    /** The declared length, or the bytes read when reading stopped (just past the limit). */
    readonly sizeBytes: number,
  ) {
    super(`the server's answer was larger than ${maxBytes} bytes`);
  }
}

function toResponse(answer: Answer, url: URL, method: string): Response {
  if (answer.status < 200 || answer.status > 599) throw Object.assign(new TypeError(`the server answered with HTTP status ${answer.status}`), { code: 'EBADSTATUS' });
  const empty = NULL_BODY_STATUSES.has(answer.status) || method === 'HEAD';
  const response = new Response(empty ? null : new Uint8Array(answer.body), { status: answer.status, statusText: answer.statusText, headers: answer.headers });
  // A constructed Response has no URL; clients (tsdav) read it to know where the answer came from.
  Object.defineProperty(response, 'url', { value: url.href });
  return response;
}

function bodyBytes(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  throw new TypeError('outbound fetch sends string or byte bodies only');
}

/** Words for why a request or connection failed: "it did not answer in time", "connection refused"… */
export function networkFailureText(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'it did not answer in time';
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  return code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'no such server' : code === 'ERESPONSETOOLARGE' ? 'its answer was too large' : 'network error';
}
