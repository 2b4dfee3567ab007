import { withoutTrailingSlashes } from '../shared/text-ends.js';
/** How Twilio webhooks are signed and checked. */
export interface SignatureOptions {
  /** The public origin (and optional path prefix) Twilio calls, e.g. https://herald.example.com. */
  publicBaseUrl: string;
  /** Without it (local use) unsigned webhooks are accepted only from this machine itself: loopback, not relayed by a proxy. */
  authToken?: string | undefined;
}

/**
 * The URL Twilio signed: the configured public base plus the request's path and query.
 * The public base is used rather than the Host header, which a proxy may rewrite.
 */
export function signedUrl(publicBaseUrl: string, requestUrl: string): string {
  const base = withoutTrailingSlashes(publicBaseUrl);
  const pathAndQuery = requestUrl.split('#')[0] ?? '';
  return `${base}${pathAndQuery.startsWith('/') ? '' : '/'}${pathAndQuery}`;
}
