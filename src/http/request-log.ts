import type { FastifyRequest } from 'fastify';

/** A page token in a path: `/p/<token>` and anything under it. */
const PAGE_TOKEN = /^(\/p\/)[^/?#]+/;

/** The request path as it may be logged: a page's URL is its key, so its token never is. */
export function loggableUrl(url: string): string {
  return url.replace(PAGE_TOKEN, '$1[token]');
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
