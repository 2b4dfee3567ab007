import formbody from '@fastify/formbody';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import type { InboundSpool } from '../conversation/inbound-spool.js';
import type { Logger } from '../logging/logger.js';
import { twilioMessagesRoute } from './routes/twilio-messages.js';

/** The database is not there yet: what the spool's guard is told, so it keeps every webhook. */
function unreachable(): Error {
  return Object.assign(new Error('the database is not reachable yet (Herald is starting)'), { code: 'ECONNREFUSED' });
}

/**
 * What listens on Herald's port while it waits for its database at start-up (src/server.ts):
 * a signed inbound webhook is verified and parsed exactly as the real route does it (the same
 * route), then written to the inbound spool and answered 200, to be replayed once Herald is up;
 * `/healthz` answers (the process is alive) and `/readyz` says it is not ready. Nothing else is
 * served. Without it, a Herald that starts while Postgres is down refuses connections, and
 * Twilio drops what it could not deliver.
 */
export async function buildStandbyApp(config: Config, spool: InboundSpool, logger: Logger): Promise<FastifyInstance> {
  // Typed as Fastify's logger to keep FastifyInstance's default generics (as in src/app.ts).
  const loggerInstance: FastifyBaseLogger = logger.child({ component: 'standby' });
  const app = Fastify({ loggerInstance, bodyLimit: config.http.bodyLimitBytes, return503OnClosing: true });
  await app.register(formbody, { bodyLimit: config.http.bodyLimitBytes });
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (_request, reply) => reply.code(503).send({ status: 'starting', database: 'unreachable' }));
  await app.register(twilioMessagesRoute, {
    signature: { publicBaseUrl: config.http.publicBaseUrl, authToken: config.twilio.authToken },
    inbound: spool.guard({ receive: async () => Promise.reject(unreachable()) }),
    rateLimitPerMinute: config.http.rateLimitPerMinute,
  });
  app.setNotFoundHandler(async (_request, reply) => reply.code(503).type('text/plain').send('Herald is starting: its database is not reachable yet'));
  return app;
}
