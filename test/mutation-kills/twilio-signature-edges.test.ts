import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedUrl } from '../../src/channels/twilio-signed-url.js';
import { verifyTwilioSignature } from '../../src/http/twilio-signature.js';

/**
 * Twilio's webhook signature against its near misses (issue 32 item 8): one character of the
 * signature, of a parameter or of the URL changed; and, without an auth token, loopback
 * requests carrying any header a proxy adds. A small Fastify app with the hook in front of a
 * route that says "ok": what passes is what the real webhook would let in.
 */
const TOKEN = 'auth-token-0123456789abcdef0123456';
const BASE = 'https://herald.example.com/base';

async function appWith(authToken: string | undefined): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(formbody);
  app.post('/twilio/messages', { preValidation: verifyTwilioSignature({ publicBaseUrl: `${BASE}/`, authToken }) }, async () => 'ok');
  app.get('/twilio/messages', { preValidation: verifyTwilioSignature({ publicBaseUrl: BASE, authToken }) }, async () => 'ok');
  await app.ready();
  return app;
}

const form = (params: Record<string, string>) => new URLSearchParams(params).toString();
const sign = (url: string, params: Record<string, string>) => twilio.getExpectedTwilioSignature(TOKEN, url, params);
const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;

describe('signed webhooks', () => {
  let app: FastifyInstance;
  const params = { From: '+14155550100', To: '+15005550006', Body: 'hello', MessageSid: 'SM123' };
  const url = `${BASE}/twilio/messages`;

  beforeAll(async () => {
    app = await appWith(TOKEN);
  });
  afterAll(async () => {
    await app.close();
  });
  const post = (body: string, signature?: string | string[], path = '/twilio/messages') =>
    app.inject({ method: 'POST', url: path, payload: body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...(signature === undefined ? {} : { 'x-twilio-signature': signature }) } });

  it('lets in exactly the signed request', async () => {
    const response = await post(form(params), sign(url, params));
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('ok');
  });

  it('refuses a signature one character off, cut short, extended, absent, empty, or sent twice', async () => {
    const signature = sign(url, params);
    for (const miss of [flip(signature, 0), flip(signature, signature.length - 2), signature.slice(0, -1), `${signature}A`, '', [signature, signature]]) {
      const response = await post(form(params), miss);
      expect(response.statusCode, String(miss)).toBe(403);
      expect(response.body).toBe('Forbidden');
    }
    expect((await post(form(params))).statusCode).toBe(403);
  });

  it('refuses a parameter changed, added or dropped after signing', async () => {
    const signature = sign(url, params);
    expect((await post(form({ ...params, Body: 'hellp' }), signature)).statusCode).toBe(403);
    expect((await post(form({ ...params, NumMedia: '0' }), signature)).statusCode).toBe(403);
    const { Body: _dropped, ...rest } = params;
    expect((await post(form(rest), signature)).statusCode).toBe(403);
  });

  it('refuses a signature made for another URL: http, another host, another path, a trailing slash', async () => {
    for (const other of [url.replace('https:', 'http:'), url.replace('herald.example.com', 'herald.example.org'), `${BASE}/twilio/status`, `${url}/`, `${BASE}twilio/messages`]) {
      expect((await post(form(params), sign(other, params))).statusCode, other).toBe(403);
    }
  });

  it('signs the query string too: a query the signature does not cover is refused', async () => {
    expect((await post(form(params), sign(`${url}?x=1`, params), '/twilio/messages?x=1')).statusCode).toBe(200);
    expect((await post(form(params), sign(url, params), '/twilio/messages?x=1')).statusCode).toBe(403);
  });

  it('a request with no form body is checked as one with no parameters', async () => {
    const response = await app.inject({ method: 'GET', url: '/twilio/messages', headers: { 'x-twilio-signature': sign(url, {}) } });
    expect(response.statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/twilio/messages', headers: { 'x-twilio-signature': sign(url, params) } })).statusCode).toBe(403);
  });
});

describe('unsigned webhooks (no TWILIO_AUTH_TOKEN): this machine only', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    app = await appWith(undefined);
  });
  afterAll(async () => {
    await app.close();
  });
  const post = (remoteAddress: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/twilio/messages', remoteAddress, payload: form({ Body: 'hi' }), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });

  it('lets in loopback, IPv4 and IPv6, with no proxy header', async () => {
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1']) expect((await post(address)).statusCode, address).toBe(200);
  });

  it('refuses any other address, even one claiming loopback in a header', async () => {
    for (const address of ['10.0.0.1', '128.0.0.1', '::2', '192.168.1.1', '']) expect((await post(address, { 'x-forwarded-for': '127.0.0.1' })).statusCode, address).toBe(403);
    expect((await post('10.0.0.1')).statusCode).toBe(403);
  });

  it.each([
    'via', 'forwarded', 'forwarded-for', 'x-real-ip', 'x-client-ip', 'x-cluster-client-ip', 'x-original-forwarded-for', 'true-client-ip', 'cf-connecting-ip', 'cf-connecting-ipv6', 'cf-ray', 'cf-visitor',
    'fastly-client-ip', 'x-envoy-external-address', 'x-azure-clientip', 'x-appengine-user-ip', 'fly-client-ip', 'x-vercel-forwarded-for', 'x-nf-client-connection-ip', 'do-connecting-ip',
    'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-forwarded', 'X-Forwarded-Server',
  ])('refuses loopback relayed by a proxy (%s)', async (header) => {
    const response = await post('127.0.0.1', { [header]: '203.0.113.9' });
    expect(response.statusCode).toBe(403);
    expect(response.body).toBe('Forbidden');
  });

  it('an ordinary header that merely resembles a proxy’s is no relay', async () => {
    for (const header of ['x-forward', 'vias', 'x-realip', 'user-agent']) expect((await post('127.0.0.1', { [header]: 'x' })).statusCode, header).toBe(200);
  });
});

describe('the URL Twilio signed', () => {
  it('is the public base, without trailing slashes, and the path and query, without a fragment', () => {
    expect(signedUrl('https://h.example/', '/twilio/messages?a=1')).toBe('https://h.example/twilio/messages?a=1');
    expect(signedUrl('https://h.example/base///', '/x')).toBe('https://h.example/base/x');
    expect(signedUrl('https://h.example', 'x#frag')).toBe('https://h.example/x');
    expect(signedUrl('https://h.example', '/x#a#b')).toBe('https://h.example/x');
    expect(signedUrl('https://h.example', '')).toBe('https://h.example/');
  });
});
