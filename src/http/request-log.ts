import type { FastifyRequest } from 'fastify';

/** A secret token in a path: a page (`/p/<token>`), a connect link, a calendar feed; and anything under it. */
const PATH_TOKEN = /^(\/(?:p|connect|calendar)\/)[^/?#]+/;
/** An OAuth callback's query holds the authorization code and state. */
const OAUTH_QUERY = /^(\/oauth\/[^?#]*)\?.*$/;
/** A scraper that put the metrics token in the query string (refused, and never logged). */
const METRICS_QUERY = /^(\/metrics)\?.*$/;

/** The request path as it may be logged: a page's URL is its key, so its token never is (nor a link's, a feed's, or an OAuth code). */
function loggableUrl(url: string): string {
  return url.replace(PATH_TOKEN, '$1[token]').replace(OAUTH_QUERY, '$1?[redacted]').replace(METRICS_QUERY, '$1?[redacted]');
}

/**
 * Fastify's request serializer (what "incoming request" logs) with the page token masked:
 * method, path, host and client address, as Fastify's own, and nothing else.
 */
export function serializeRequest(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: loggableUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
