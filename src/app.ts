import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger } from './logging/logger.js';
import { healthRoutes, type HealthOptions } from './http/routes/health.js';
import { twilioMessagesRoute, type TwilioMessagesRouteOptions } from './http/routes/twilio-messages.js';
import { twilioStatusRoute, type TwilioStatusRouteOptions } from './http/routes/twilio-status.js';
import { devPhoneRoute, type DevPhoneRouteOptions } from './http/routes/dev-phone.js';
import { pagesRoute, type PagesRouteOptions } from './http/routes/pages.js';
import { connectRoutes, type ConnectRouteOptions } from './http/routes/connect.js';
import { dataExportRoute, type DataExportRouteOptions } from './http/routes/data-export.js';
import { serializeRequest } from './http/request-log.js';
import { metricsRoute } from './http/routes/metrics.js';
import type { HeraldMetrics } from './observability/metrics.js';

/** Everything the HTTP layer needs; services are handed in, so tests build the app with fakes. */
export interface AppDependencies {
  logger: Logger;
  http: {
    publicBaseUrl: string;
    bodyLimitBytes: number;
    rateLimitPerMinute: number;
  };
  /** Absent in local use: unsigned webhooks are then accepted from loopback only. */
  twilioAuthToken?: string | undefined;
  inbound: TwilioMessagesRouteOptions['inbound'];
  statusCallbacks: TwilioStatusRouteOptions['statusCallbacks'];
  readiness: HealthOptions['readiness'];
  /** `/p/<token>` pages; absent only in the webhook benchmark's stripped-down app. */
  pages?: PagesRouteOptions['pages'];
  /** `/connect/<token>`, `/oauth/google/callback` and `/calendar/<token>.ics`; absent only in stripped-down benchmark apps. */
  connect?: ConnectRouteOptions;
  /** `/p/<token>/<file>`: MY DATA's downloads. */
  exports?: DataExportRouteOptions['exports'];
  /** `/dev/phone`, in local mode only (Twilio not configured). */
  devPhone?: Omit<DevPhoneRouteOptions, 'signature'>;
  /** Prometheus metrics: request durations are recorded when enabled; `GET /metrics` exists only with a token (METRICS_TOKEN). */
  metrics?: { registry: HeraldMetrics; token?: string | undefined };
}

/** Builds the Fastify app: plugins, then thin routes that call the services. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  // pino's Logger is a FastifyBaseLogger; typing it as such keeps FastifyInstance's default generics.
  // Request logs never carry a page's token (its URL is its key).
  const loggerInstance: FastifyBaseLogger = deps.logger.child({}, { serializers: { req: serializeRequest } });
  const app = Fastify({
    loggerInstance,
    bodyLimit: deps.http.bodyLimitBytes,
    genReqId: () => randomUUID(),
    return503OnClosing: true,
  });

  await app.register(helmet, { global: true });
  await app.register(formbody, { bodyLimit: deps.http.bodyLimitBytes });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status < 500) {
      // Oversized, unparseable or wrongly typed bodies: the client's mistake, stated plainly.
      request.log.warn({ code: error.code, status }, 'request refused');
      return reply.code(status).type('text/plain').send(error.message);
    }
    // Twilio does NOT retry a failed messaging webhook: a 500 here loses the message unless the
    // number has a Fallback URL (another instance; the same MessageSid, so de-duplication makes
    // that safe). A webhook the database could not take never gets here: it is spooled
    // (src/conversation/inbound-spool.ts) unless the spool is full or the disk failed.
    request.log.error({ error: { message: error.message, code: error.code } }, 'request failed');
    return reply.code(500).type('text/plain').send('Internal error; please retry');
  });

  const metrics = deps.metrics?.registry;
  if (metrics?.enabled) {
    // The route's pattern (`/p/:token`), never the URL: no token or id becomes a label.
    app.addHook('onResponse', async (request, reply) => {
      metrics.httpRequest(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000);
    });
  }
  if (metrics && deps.metrics?.token) await app.register(metricsRoute, { metrics, token: deps.metrics.token });

  const signature = { publicBaseUrl: deps.http.publicBaseUrl, authToken: deps.twilioAuthToken };
  await app.register(twilioMessagesRoute, { signature, inbound: deps.inbound, rateLimitPerMinute: deps.http.rateLimitPerMinute });
  await app.register(twilioStatusRoute, { signature, statusCallbacks: deps.statusCallbacks });
  await app.register(healthRoutes, { readiness: deps.readiness });
  if (deps.pages) await app.register(pagesRoute, { pages: deps.pages });
  if (deps.exports) await app.register(dataExportRoute, { exports: deps.exports });
  if (deps.connect) await app.register(connectRoutes, deps.connect);
  if (deps.devPhone) await app.register(devPhoneRoute, { ...deps.devPhone, signature });
  return app;
}
