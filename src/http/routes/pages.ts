import type { FastifyInstance, FastifyReply } from 'fastify';
import type { RenderedDocument } from '../../pages/page-document.js';
import type { PageResponse } from '../../pages/page-service.js';
import { renderNotice } from '../../pages/page-renderer.js';

/** What the page routes need. */
export interface PagesRouteOptions {
  pages: {
    open(token: string): Promise<PageResponse>;
    submit(token: string, body: Record<string, unknown>): Promise<PageResponse>;
  };
}

const crossSiteDocument = renderNotice('Not accepted', 'This form could not be accepted from another site.');

/**
 * `GET /p/<token>` shows a page; `POST /p/<token>` is its checklist ticks and forms (the
 * page's own URL, so a page never needs to know its token). Every answer is a whole HTML
 * document with its strict CSP, never indexed, never cached.
 */
export async function pagesRoute(app: FastifyInstance, options: PagesRouteOptions): Promise<void> {
  app.get<{ Params: { token: string } }>('/p/:token', async (request, reply) => send(reply, await options.pages.open(request.params.token), request.url));

  app.post<{ Params: { token: string } }>('/p/:token', async (request, reply) => {
    // Browsers say where a form came from; one posted from another site is refused outright.
    if (request.headers['sec-fetch-site'] === 'cross-site') return sendDocument(reply, 403, crossSiteDocument);
    const body = typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {};
    return send(reply, await options.pages.submit(request.params.token, body), request.url);
  });
}

function send(reply: FastifyReply, response: PageResponse, url: string): FastifyReply {
  if (response.kind === 'redirect') {
    // 303: the browser GETs the page again, so reloading it never repeats the tick.
    return reply.code(303).header('cache-control', 'no-store').redirect(`${url.split(/[?#]/)[0]}#${response.fragment}`, 303);
  }
  return sendDocument(reply, response.status, response.document);
}

/** An HTML document with the headers every Herald page carries. */
export function sendDocument(reply: FastifyReply, status: number, document: RenderedDocument): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', document.contentSecurityPolicy)
    .header('x-robots-tag', 'noindex, nofollow')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send(document.html);
}
