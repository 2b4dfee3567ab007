import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ConnectResponse } from '../../connections/connect-service.js';
import { renderNotice } from '../../pages/page-renderer.js';
import { parseCookies, serializeCookie } from '../cookies.js';
import { sendDocument } from './pages.js';

/** What the connect routes need. */
export interface ConnectRouteOptions {
  connect: {
    open(token: string): Promise<ConnectResponse>;
    submit(token: string, body: Record<string, unknown>): Promise<ConnectResponse>;
    oauthCallback(query: Record<string, unknown>, cookies: Record<string, string>): Promise<ConnectResponse>;
  };
  /** The built-in calendar's ICS feed by token. */
  calendarFeed: { render(token: string): Promise<string | undefined> };
  /** Herald is served over https (links go to an https origin): cookies are marked Secure. */
  secureCookies: boolean;
}

const crossSiteDocument = renderNotice('Not accepted', 'This form could not be accepted from another site.');

/**
 * `/connect/<token>` (a connect page and its form), `/oauth/google/callback` (back from
 * Google's consent page) and `/calendar/<token>.ics` (the calendar feed). Thin: the
 * connect service and the feed decide everything.
 */
export async function connectRoutes(app: FastifyInstance, options: ConnectRouteOptions): Promise<void> {
  const send = (reply: FastifyReply, response: ConnectResponse): FastifyReply => {
    for (const cookie of response.cookies ?? []) reply.header('set-cookie', serializeCookie(cookie, options.secureCookies));
    // 303: the browser GETs the provider's consent page; the form is never re-posted.
    if (response.kind === 'redirect') return reply.code(303).header('cache-control', 'no-store').redirect(response.url, 303);
    return sendDocument(reply, response.status, response.document);
  };

  app.get<{ Params: { token: string } }>('/connect/:token', async (request, reply) => send(reply, await options.connect.open(request.params.token)));

  app.post<{ Params: { token: string } }>('/connect/:token', async (request, reply) => {
    if (request.headers['sec-fetch-site'] === 'cross-site') return sendDocument(reply, 403, crossSiteDocument);
    const body = typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {};
    return send(reply, await options.connect.submit(request.params.token, body));
  });

  app.get('/oauth/google/callback', async (request, reply) =>
    send(reply, await options.connect.oauthCallback((request.query ?? {}) as Record<string, unknown>, parseCookies(request.headers.cookie))),
  );

  app.get<{ Params: { file: string } }>('/calendar/:file', async (request, reply) => {
    const token = /^([\w-]{43})\.ics$/.exec(request.params.file)?.[1];
    const feed = token ? await options.calendarFeed.render(token) : undefined;
    if (feed === undefined) return reply.code(404).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('No calendar here.');
    return reply
      .code(200)
      .header('content-type', 'text/calendar; charset=utf-8')
      .header('content-disposition', 'inline; filename="herald.ics"')
      .header('cache-control', 'private, max-age=300')
      .header('x-robots-tag', 'noindex, nofollow')
      .send(feed);
  });
}
