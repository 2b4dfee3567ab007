import twilio from 'twilio';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isLoopbackAddress } from '../net/address-ranges.js';
import { signedUrl, type SignatureOptions } from '../channels/twilio-signed-url.js';


/** Headers a reverse proxy adds: a request carrying any of them was relayed, whatever its socket says. */
const PROXY_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip', 'x-forwarded-host', 'x-forwarded-proto'];

/**
 * True for a request made on this machine itself: from a loopback socket and not relayed.
 * Behind a reverse proxy on the same machine every request arrives from loopback, so a
 * request with a proxy's headers is someone else's, relayed.
 */
export function isFromThisMachine(request: FastifyRequest): boolean {
  return isLoopbackAddress(request.socket.remoteAddress ?? '') && PROXY_HEADERS.every((name) => request.headers[name] === undefined);
}

/**
 * A preValidation hook verifying `X-Twilio-Signature` (HMAC-SHA1 of the URL and the
 * sorted form parameters, keyed with the auth token). Anything unverified gets 403 and
 * goes no further: nothing is stored, nothing is sent.
 */
export function verifyTwilioSignature(options: SignatureOptions) {
  return async function verify(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!options.authToken) {
      if (isFromThisMachine(request)) return;
      request.log.warn({ relayed: isLoopbackAddress(request.socket.remoteAddress ?? '') }, 'unsigned webhook not from this machine refused (no TWILIO_AUTH_TOKEN configured)');
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
