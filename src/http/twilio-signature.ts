import twilio from 'twilio';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isLoopbackAddress } from '../net/address-ranges.js';
import { signedUrl, type SignatureOptions } from '../channels/twilio-signed-url.js';

/**
 * Headers proxies, load balancers, tunnels and CDNs add to what they relay: a request carrying
 * any of them was relayed, whatever its socket says. `Via` (RFC 9110: every HTTP proxy adds
 * it), `Forwarded` (RFC 7239) and every `X-Forwarded-*` (For, Host, Proto, Port, Server,
 * Prefix, and the bare `X-Forwarded`) by the rule below; then the client-address headers of
 * nginx (`X-Real-IP`), Cloudflare (`CF-Connecting-IP`, `CF-Connecting-IPv6`, `CF-Ray`,
 * `CF-Visitor`), Akamai and Cloudflare Enterprise (`True-Client-IP`), Fastly, Rackspace and
 * others (`X-Client-IP`, `X-Cluster-Client-IP`), ingress chains (`X-Original-Forwarded-For`),
 * Envoy, Azure Front Door, App Engine, Fly.io, Vercel, Netlify and DigitalOcean.
 */
const PROXY_HEADERS = new Set([
  'via',
  'forwarded',
  'forwarded-for',
  'x-real-ip',
  'x-client-ip',
  'x-cluster-client-ip',
  'x-original-forwarded-for',
  'true-client-ip',
  'cf-connecting-ip',
  'cf-connecting-ipv6',
  'cf-ray',
  'cf-visitor',
  'fastly-client-ip',
  'x-envoy-external-address',
  'x-azure-clientip',
  'x-appengine-user-ip',
  'fly-client-ip',
  'x-vercel-forwarded-for',
  'x-nf-client-connection-ip',
  'do-connecting-ip',
]);

/** Whether a request's headers (names lower-cased, as Node gives them) show a proxy relayed it. */
function isRelayed(headers: FastifyRequest['headers']): boolean {
  return Object.keys(headers).some((name) => PROXY_HEADERS.has(name) || name.startsWith('x-forwarded'));
}

/**
 * True for a request made on this machine itself: from a loopback socket and not relayed.
 * Behind a reverse proxy or tunnel on the same machine every request arrives from loopback,
 * so a request with a proxy's headers is someone else's, relayed.
 */
export function isFromThisMachine(request: FastifyRequest): boolean {
  return isLoopbackAddress(request.socket.remoteAddress ?? '') && !isRelayed(request.headers);
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
