import twilio from 'twilio';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** How webhook requests are authenticated. */
export interface SignatureOptions {
  /** The public origin (and optional path prefix) Twilio calls, e.g. https://herald.example.com. */
  publicBaseUrl: string;
  /** Without it (local use) unsigned webhooks are accepted from loopback only. */
  authToken?: string | undefined;
}

const loopbackAddresses = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** True for a connection from this machine. */
export function isLoopbackAddress(address: string | undefined): boolean {
  return loopbackAddresses.has(address ?? '');
}

/**
 * The URL Twilio signed: the configured public base plus the request's path and query.
 * The public base is used rather than the Host header, which a proxy may rewrite.
 */
export function signedUrl(publicBaseUrl: string, requestUrl: string): string {
  const base = publicBaseUrl.replace(/\/+$/, '');
  const pathAndQuery = requestUrl.split('#')[0] ?? '';
  return `${base}${pathAndQuery.startsWith('/') ? '' : '/'}${pathAndQuery}`;
}

/**
 * A preValidation hook verifying `X-Twilio-Signature` (HMAC-SHA1 of the URL and the
 * sorted form parameters, keyed with the auth token). Anything unverified gets 403 and
 * goes no further: nothing is stored, nothing is sent.
 */
export function verifyTwilioSignature(options: SignatureOptions) {
  return async function verify(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!options.authToken) {
      if (isLoopbackAddress(request.socket.remoteAddress)) return;
      request.log.warn('unsigned webhook from a non-loopback address refused (no TWILIO_AUTH_TOKEN configured)');
      return reply.code(403).type('text/plain').send('Forbidden');
    }
    const signature = request.headers['x-twilio-signature'];
    const params = isFormObject(request.body) ? request.body : {};
    const url = signedUrl(options.publicBaseUrl, request.url);
    if (typeof signature !== 'string' || !twilio.validateRequest(options.authToken, signature, url, params)) {
      request.log.warn({ signed: typeof signature === 'string' }, 'webhook signature invalid; refused');
      return reply.code(403).type('text/plain').send('Forbidden');
    }
  };
}

function isFormObject(body: unknown): body is Record<string, string | string[]> {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}
