import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { HeraldMetrics } from '../../observability/metrics.js';

/** What the metrics route needs. */
export interface MetricsRouteOptions {
  metrics: HeraldMetrics;
  /** METRICS_TOKEN: the only credential accepted, as `Authorization: Bearer <token>`. */
  token: string;
}

/** Compares two secrets in time independent of where they differ (hashing first evens out their lengths). */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * `GET /metrics`: Prometheus text, to `Authorization: Bearer <METRICS_TOKEN>` only. A token
 * in the query string is refused even when right (query strings end up in proxies' and
 * servers' access logs), so a misconfigured scraper learns at once instead of leaking it.
 * Registered only when METRICS_TOKEN is set.
 */
export async function metricsRoute(app: FastifyInstance, options: MetricsRouteOptions): Promise<void> {
  app.get('/metrics', { logLevel: 'warn' }, async (request, reply) => {
    const query = request.url.indexOf('?');
    if (query !== -1 && request.url.length > query + 1) {
      request.log.warn('metrics request with a query string refused (send the token as Authorization: Bearer)');
      return reply.code(400).type('text/plain').send('Credentials in the query string are refused; send Authorization: Bearer <token>');
    }
    const header = request.headers.authorization ?? '';
    const match = /^Bearer +(\S+)\s*$/i.exec(header);
    if (!match || !sameSecret(match[1]!, options.token)) {
      request.log.warn({ scheme: header.split(' ')[0]?.slice(0, 10) || undefined }, 'metrics request refused: missing or wrong bearer token');
      return reply.code(401).header('www-authenticate', 'Bearer realm="herald-metrics"').type('text/plain').send('Unauthorized');
    }
    const { contentType, body } = await options.metrics.scrape();
    return reply.code(200).header('cache-control', 'no-store').type(contentType).send(body);
  });
}
