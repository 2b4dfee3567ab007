import type { FastifyInstance } from 'fastify';

/** What readiness checks. */
export interface HealthOptions {
  readiness: () => Promise<{ database: boolean; queue: boolean }>;
}

/** `GET /healthz` (the process is up) and `GET /readyz` (it can do its work: database and queue reachable). */
export async function healthRoutes(app: FastifyInstance, options: HealthOptions): Promise<void> {
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (_request, reply) => {
    const checks = await options.readiness().catch(() => ({ database: false, queue: false }));
    const ready = checks.database && checks.queue;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks });
  });
}
