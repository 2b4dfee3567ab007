import { createHash } from 'node:crypto';
import type { Logger } from '../logging/logger.js';
import { createOutboundHttp, ResponseTooLargeError, type OutboundHttp } from '../net/outbound-fetch.js';
import { OutboundRefusedError, type OutboundPolicy } from '../net/outbound-policy.js';

/** Where Twilio's API is, and how Herald proves it is the account. */
export interface TwilioMediaSource {
  /** The origin media URLs must be on: https://api.twilio.com, or TWILIO_API_BASE_URL's. */
  apiBaseUrl: string;
  /** HTTP Basic credentials: AccountSid and auth token, or an API key's SID and secret. */
  username: string;
  password: string;
}

/** Limits for one download. */
export interface MediaFetchLimits {
  /** Reading stops past this many bytes, whatever Content-Length said. */
  maxBytes: number;
  /** The whole download, redirects included. */
  timeoutMs: number;
}

/** Why a download did not give usable bytes. */
type MediaFetchProblem =
  /** The URL is not on Twilio's API origin: never fetched. */
  | 'refused_host'
  /** Twilio refused the credentials (401/403). */
  | 'unauthorized'
  /** Twilio (or its media store) no longer has it (404/410). */
  | 'not_found'
  /** More than the allowed number of redirects. */
  | 'redirect_loop'
  /** A redirect to where Herald does not go (a private, loopback or reserved address, plain http, another scheme): never fetched. */
  | 'refused_redirect'
  /** Over `maxBytes`. */
  | 'too_large'
  /** Nothing arrived (a 0-byte body). */
  | 'empty'
  /** The download took longer than `timeoutMs`. */
  | 'timeout'
  /** Any other HTTP answer, or a connection failure. */
  | 'unavailable';

/** A download's outcome: the bytes (for this turn only) with their size and SHA-256, or why not. */
export type MediaFetchResult =
  | { ok: true; bytes: Buffer; sizeBytes: number; sha256: string; contentType: string | undefined }
  | { ok: false; problem: MediaFetchProblem; detail: string; sizeBytes?: number };

/** Twilio answers a media URL with one redirect to its media store; a few more are tolerated. */
const MAX_REDIRECTS = 3;

/**
 * Downloads an attachment the way Twilio's media URLs must be read: only from Twilio's API
 * origin (any other host in a webhook, signed or not, is refused and logged, never
 * fetched), with HTTP Basic credentials; the redirect to Twilio's media store (another
 * origin) is followed by hand, without the credentials. Every hop goes through the outbound
 * policy (src/net): a hop on the API's own host (TWILIO_API_BASE_URL's, which the operator
 * chose: api.twilio.com, a local fake, local mode's own origin) is the operator's; any other
 * (the media store) is a server's answer, reached only at a public address over https, or
 * where CONNECT_ALLOWED_HOSTS allows, so a redirect can never turn Herald on the cloud's
 * metadata service or its own network. The body is cut at `maxBytes` (a lying or missing
 * Content-Length changes nothing), the whole exchange within `timeoutMs`. The bytes are
 * returned, never stored or logged.
 */
export class TwilioMediaFetcher {
  private readonly api: URL;

  constructor(
    private readonly source: TwilioMediaSource,
    private readonly limits: MediaFetchLimits,
    private readonly outbound: OutboundPolicy,
    private readonly logger: Logger,
  ) {
    this.api = new URL(source.apiBaseUrl);
  }

  /** Whether a media URL is on Twilio's API origin (the only place Herald fetches media from). */
  isTwilioUrl(url: string): boolean {
    try {
      return new URL(url).origin === this.api.origin;
    } catch {
      return false;
    }
  }

  async fetch(url: string, signal?: AbortSignal): Promise<MediaFetchResult> {
    if (!this.isTwilioUrl(url)) {
      // A signed webhook naming another host is Twilio's bug or a forged signature: either way, no request leaves.
      this.logger.warn({ host: safeHost(url), allowed: this.api.origin }, 'media URL is not on the Twilio API origin; refused without fetching');
      return { ok: false, problem: 'refused_host', detail: `not on ${this.api.origin}` };
    }
    const deadline = AbortSignal.timeout(this.limits.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const settings = { timeoutMs: this.limits.timeoutMs, maxResponseBytes: this.limits.maxBytes, maxRedirects: 0 };
    const clients = { operator: createOutboundHttp(this.outbound, { ...settings, trust: 'operator' }), server: createOutboundHttp(this.outbound, { ...settings, trust: 'user' }) };
    try {
      return await this.download(url, combined, clients);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (deadline.aborted) return { ok: false, problem: 'timeout', detail: `no complete answer within ${this.limits.timeoutMs} ms` };
      if (error instanceof ResponseTooLargeError) return { ok: false, problem: 'too_large', detail: `more than ${this.limits.maxBytes} bytes`, sizeBytes: error.sizeBytes };
      return { ok: false, problem: 'unavailable', detail: error instanceof Error ? error.message : String(error) };
    }
  }

  private async download(url: string, signal: AbortSignal, clients: { operator: OutboundHttp; server: OutboundHttp }): Promise<MediaFetchResult> {
    let current = new URL(url);
    for (let hop = 0; ; hop += 1) {
      // Credentials go to Twilio's API origin only: the media store's signed URL needs none,
      // and a third party must never see the account's secret.
      const headers: Record<string, string> = { accept: '*/*' };
      if (hop === 0) headers.authorization = `Basic ${Buffer.from(`${this.source.username}:${this.source.password}`).toString('base64')}`;
      const client = current.hostname === this.api.hostname ? clients.operator : clients.server;
      let response: Response;
      try {
        response = await client.fetch(current, { method: 'GET', headers, redirect: 'manual', signal });
      } catch (error) {
        if (!(error instanceof OutboundRefusedError) || hop === 0) throw error;
        // Nothing was sent there: the policy answered before any connection.
        this.logger.warn({ host: current.host, reason: error.reason }, 'media redirect refused by the outbound policy; not fetched');
        return { ok: false, problem: 'refused_redirect', detail: `redirect to a refused address (${error.reason})` };
      }
      if (response.status >= 300 && response.status < 400 && response.headers.has('location')) {
        if (hop >= MAX_REDIRECTS) return { ok: false, problem: 'redirect_loop', detail: `more than ${MAX_REDIRECTS} redirects` };
        const next = new URL(response.headers.get('location')!, current);
        if (next.protocol !== 'https:' && next.protocol !== 'http:') return { ok: false, problem: 'refused_redirect', detail: `redirect to ${next.protocol}` };
        // Twilio's own store is https; plain http is accepted only where the API itself is (a local fake).
        if (next.protocol === 'http:' && this.api.protocol === 'https:') return { ok: false, problem: 'refused_redirect', detail: 'redirect to plain http' };
        current = next;
        continue;
      }
      if (response.status === 401 || response.status === 403) return { ok: false, problem: 'unauthorized', detail: `HTTP ${response.status}` };
      if (response.status === 404 || response.status === 410) return { ok: false, problem: 'not_found', detail: `HTTP ${response.status}` };
      if (response.status !== 200) return { ok: false, problem: 'unavailable', detail: `HTTP ${response.status}` };
      // Read whole by the outbound client, which stopped at `maxBytes`.
      const bytes = Buffer.from(await response.arrayBuffer());
      if (bytes.length === 0) return { ok: false, problem: 'empty', detail: 'a 0-byte body', sizeBytes: 0 };
      const contentType = response.headers.get('content-type') ?? undefined;
      return { ok: true, bytes, sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), contentType };
    }
  }
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(not a URL)';
  }
}
