import { createHash } from 'node:crypto';
import type { Logger } from '../logging/logger.js';

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
export type MediaFetchProblem =
  /** The URL is not on Twilio's API origin: never fetched. */
  | 'refused_host'
  /** Twilio refused the credentials (401/403). */
  | 'unauthorized'
  /** Twilio (or its media store) no longer has it (404/410). */
  | 'not_found'
  /** More than the allowed number of redirects. */
  | 'redirect_loop'
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
 * origin) is followed by hand, without the credentials. The body is read as a stream and
 * abandoned past `maxBytes` (a lying or missing Content-Length changes nothing), the
 * whole exchange within `timeoutMs`. The bytes are returned, never stored or logged.
 */
export class TwilioMediaFetcher {
  private readonly apiOrigin: string;

  constructor(
    private readonly source: TwilioMediaSource,
    private readonly limits: MediaFetchLimits,
    private readonly logger: Logger,
  ) {
    this.apiOrigin = new URL(source.apiBaseUrl).origin;
  }

  /** Whether a media URL is on Twilio's API origin (the only place Herald fetches media from). */
  isTwilioUrl(url: string): boolean {
    try {
      return new URL(url).origin === this.apiOrigin;
    } catch {
      return false;
    }
  }

  async fetch(url: string, signal?: AbortSignal): Promise<MediaFetchResult> {
    if (!this.isTwilioUrl(url)) {
      // A signed webhook naming another host is Twilio's bug or a forged signature: either way, no request leaves.
      this.logger.warn({ host: safeHost(url), allowed: this.apiOrigin }, 'media URL is not on the Twilio API origin; refused without fetching');
      return { ok: false, problem: 'refused_host', detail: `not on ${this.apiOrigin}` };
    }
    const deadline = AbortSignal.timeout(this.limits.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    try {
      return await this.download(url, combined);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (deadline.aborted) return { ok: false, problem: 'timeout', detail: `no complete answer within ${this.limits.timeoutMs} ms` };
      return { ok: false, problem: 'unavailable', detail: error instanceof Error ? error.message : String(error) };
    }
  }

  private async download(url: string, signal: AbortSignal): Promise<MediaFetchResult> {
    let current = new URL(url);
    for (let hop = 0; ; hop += 1) {
      // Credentials go to Twilio's API origin only: the media store's signed URL needs none,
      // and a third party must never see the account's secret.
      const headers: Record<string, string> = { accept: '*/*' };
      if (current.origin === this.apiOrigin && hop === 0) headers.authorization = `Basic ${Buffer.from(`${this.source.username}:${this.source.password}`).toString('base64')}`;
      const response = await fetch(current, { method: 'GET', headers, redirect: 'manual', signal });
      if (response.status >= 300 && response.status < 400 && response.headers.has('location')) {
        await response.body?.cancel();
        if (hop >= MAX_REDIRECTS) return { ok: false, problem: 'redirect_loop', detail: `more than ${MAX_REDIRECTS} redirects` };
        const next = new URL(response.headers.get('location')!, current);
        if (next.protocol !== 'https:' && next.protocol !== 'http:') return { ok: false, problem: 'unavailable', detail: `redirect to ${next.protocol}` };
        // Twilio's own store is https; plain http is accepted only where the API itself is (a local fake).
        if (next.protocol === 'http:' && new URL(this.apiOrigin).protocol === 'https:') return { ok: false, problem: 'unavailable', detail: 'redirect to plain http' };
        current = next;
        continue;
      }
      if (response.status === 401 || response.status === 403) return await discard(response, { ok: false, problem: 'unauthorized', detail: `HTTP ${response.status}` });
      if (response.status === 404 || response.status === 410) return await discard(response, { ok: false, problem: 'not_found', detail: `HTTP ${response.status}` });
      if (response.status !== 200) return await discard(response, { ok: false, problem: 'unavailable', detail: `HTTP ${response.status}` });
      return this.readCapped(response);
    }
  }

  /** Reads the body, hashing as it goes, and stops at the first byte past the limit. */
  private async readCapped(response: Response): Promise<MediaFetchResult> {
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > this.limits.maxBytes) {
      await response.body?.cancel();
      return { ok: false, problem: 'too_large', detail: `Content-Length ${declared}`, sizeBytes: declared };
    }
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    let size = 0;
    const reader = response.body?.getReader();
    if (reader) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > this.limits.maxBytes) {
          await reader.cancel();
          return { ok: false, problem: 'too_large', detail: `more than ${this.limits.maxBytes} bytes`, sizeBytes: size };
        }
        const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
        hash.update(chunk);
        chunks.push(chunk);
      }
    }
    if (size === 0) return { ok: false, problem: 'empty', detail: 'a 0-byte body', sizeBytes: 0 };
    const contentType = response.headers.get('content-type') ?? undefined;
    return { ok: true, bytes: Buffer.concat(chunks, size), sizeBytes: size, sha256: hash.digest('hex'), contentType };
  }
}

async function discard<T>(response: Response, result: T): Promise<T> {
  await response.body?.cancel().catch(() => undefined);
  return result;
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(not a URL)';
  }
}
