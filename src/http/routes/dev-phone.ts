import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseTwilioAddress } from '../../channels/phone-number.js';
import { renderDevPhone } from '../../dev/dev-phone-page.js';
import { devInboundWebhook, devMessageSid, INBOUND_WEBHOOK_PATH } from '../../dev/dev-webhook.js';
import { DEV_ACCOUNT_SID, DEV_TWILIO_PREFIX, type DevMediaStore } from '../../dev/dev-media-store.js';
import type { FedMessage } from '../../dev/outbound-feed.js';
import type { SignatureOptions } from '../../channels/twilio-signed-url.js';
import { isFromThisMachine } from '../twilio-signature.js';
import { twimlMessageText } from '../twiml.js';
import { sendDocument } from './pages.js';

/** What the dev phone needs (only given in local mode: Twilio not configured). */
export interface DevPhoneRouteOptions {
  feed: { subscribe(phone: string, listener: (message: FedMessage) => void): () => void; publish(message: FedMessage): void };
  /** How the injected webhooks are signed (as Twilio would, when an auth token is set). */
  signature: SignatureOptions;
  /** The number messages are addressed to (Herald's). */
  heraldNumber: string;
  /** Seconds between keep-alive comments on an idle event stream. */
  heartbeatSeconds?: number;
  /** Files attached to dev messages, served like Twilio's media (absent: text only). */
  media?: DevMediaStore;
  /** MEDIA_MAX_BYTES: uploads may be larger (to try the limit), up to three times this. */
  mediaMaxBytes?: number;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

const phoneSchema = z
  .string()
  .trim()
  .transform((value, context) => {
    const address = parseTwilioAddress(value);
    if (!address || address.channel !== 'sms') {
      context.addIssue({ code: 'custom', message: 'must be a phone number in international form, such as +14155550123' });
      return z.NEVER;
    }
    return address.phone;
  });
const messageSchema = z
  .object({
    from: phoneSchema,
    body: z.string().trim().max(1600).default(''),
    /** Files uploaded to /dev/phone/media first, by id: Twilio's MediaUrlN. */
    media: z.array(z.string().regex(/^ME[0-9a-f]{32}$/, 'is not a media id from /dev/phone/media')).max(10, 'Twilio takes at most 10 attachments').default([]),
  })
  .refine((message) => message.body.length > 0 || message.media.length > 0, { path: ['body'], message: 'must not be empty' });
const mediaPath = `${DEV_TWILIO_PREFIX}/2010-04-01/Accounts/:account/Messages/:message/Media/:media`;

/**
 * `/dev/phone`: try Herald in a browser without Twilio. Registered only when Twilio is not
 * configured, and answering only this machine (a loopback client naming a local host, not
 * relayed by a proxy); anything else gets the same 404 as an unknown path. Messages go
 * through the real webhook route; replies come back as server-sent events.
 */
export async function devPhoneRoute(app: FastifyInstance, options: DevPhoneRouteOptions): Promise<void> {
  const streams = new Set<() => void>();
  // Open event streams would keep the server from closing.
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!isThisMachine(request)) return reply.callNotFound();
  });

  app.get('/dev/phone', async (_request, reply) => sendDocument(reply, 200, renderDevPhone()));

  app.post('/dev/phone/messages', async (request, reply) => {
    // JSON only (a cross-site form cannot send it without a preflight we never grant), and
    // a browser's Origin, when sent, must be this very host.
    if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) return reply.code(415).type('text/plain').send('Send JSON: {"from": "+1…", "body": "…"}');
    const origin = request.headers.origin;
    if (origin && safeHost(origin) !== request.headers.host) return reply.code(403).type('text/plain').send('Forbidden');
    const parsed = messageSchema.safeParse(request.body);
    if (!parsed.success) return reply.code(400).type('text/plain').send(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
    const store = options.media;
    if (parsed.data.media.length > 0 && (!store || parsed.data.media.some((id) => !store.has(id)))) {
      return reply.code(400).type('text/plain').send('media: unknown or expired file; upload it to /dev/phone/media again');
    }
    // Each file as Twilio names one: a URL on the (dev) Twilio API, under this message's SID.
    const sid = devMessageSid(parsed.data.media.length > 0);
    const api = `http://127.0.0.1:${listeningPort(request)}${DEV_TWILIO_PREFIX}`;
    const media = parsed.data.media.map((id) => ({ url: `${api}/2010-04-01/Accounts/${DEV_ACCOUNT_SID}/Messages/${sid}/Media/${id}`, contentType: store!.get(id)!.contentType }));
    const webhook = devInboundWebhook({ from: parsed.data.from, to: options.heraldNumber, body: parsed.data.body, sid, media }, options.signature);
    const response = await app.inject({ method: 'POST', url: INBOUND_WEBHOOK_PATH, headers: webhook.headers, payload: webhook.payload, remoteAddress: '127.0.0.1' });
    if (response.statusCode !== 200) return reply.code(response.statusCode).type('text/plain').send(response.body);
    // A sender Herald does not serve is answered in the webhook's TwiML (src/access): Twilio
    // would text that back, so the dev phone shows it too.
    const answered = twimlMessageText(response.body);
    const sender = parseTwilioAddress(parsed.data.from);
    if (answered !== undefined && sender) options.feed.publish({ to: sender.phone, channel: sender.channel, body: answered, at: new Date().toISOString() });
    return reply.code(202).send({ accepted: true });
  });

  if (options.media) devMediaRoutes(app, options.media, options.mediaMaxBytes ?? 10 * 1024 * 1024);

  app.get<{ Querystring: { from?: string } }>('/dev/phone/events', async (request, reply) => {
    const phone = phoneSchema.safeParse(request.query.from ?? '');
    if (!phone.success) return reply.code(400).type('text/plain').send('from: must be a phone number in international form, such as +14155550123');
    openEventStream(request, reply, phone.data, options, streams);
  });
}

/**
 * Files for dev messages, served as Twilio serves media: uploaded with POST /dev/phone/media
 * (the raw file, its type as Content-Type); read at a media URL that wants the account's
 * HTTP Basic credentials and redirects to a signed store URL that wants none; removed with
 * the Media DELETE. Herald downloads them with the same fetcher, credentials and limits as
 * a real number's media.
 */
function devMediaRoutes(app: FastifyInstance, store: DevMediaStore, maxBytes: number): void {
  const uploadLimit = Math.min(maxBytes * 3, 100 * 1024 * 1024);
  // Any file type, as bytes; JSON keeps its own parser.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: uploadLimit }, (_request, body, done) => done(null, body));
  app.post('/dev/phone/media', { bodyLimit: uploadLimit }, async (request, reply) => {
    const origin = request.headers.origin;
    if (origin && safeHost(origin) !== request.headers.host) return reply.code(403).type('text/plain').send('Forbidden');
    const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!type || !Buffer.isBuffer(request.body)) return reply.code(415).type('text/plain').send('Send the file itself as the body, with its type as Content-Type');
    return reply.code(201).send({ id: store.put(request.body, type), contentType: type, bytes: request.body.length });
  });
  app.get<{ Params: { account: string; message: string; media: string } }>(mediaPath, async (request, reply) => {
    if (!store.authorizes(request.headers.authorization) || request.params.account !== DEV_ACCOUNT_SID) return reply.code(401).send({ code: 20003, message: 'Authenticate', status: 401 });
    if (!store.has(request.params.media)) return reply.code(404).send({ code: 20404, message: 'The requested resource was not found', status: 404 });
    // Twilio answers with a redirect to its media store: a signed URL that needs no credentials.
    return reply.redirect(`/dev/media-store/${request.params.media}?signature=${store.sign(request.params.media)}`, 307);
  });
  app.get<{ Params: { media: string }; Querystring: { signature?: string } }>('/dev/media-store/:media', async (request, reply) => {
    const file = store.get(request.params.media);
    if (!file || !store.verify(request.params.media, request.query.signature ?? '')) return reply.code(404).type('text/plain').send('Not found');
    return reply.type(file.contentType).send(file.bytes);
  });
  app.delete<{ Params: { account: string; message: string; media: string } }>(`${mediaPath}.json`, async (request, reply) => {
    if (!store.authorizes(request.headers.authorization) || request.params.account !== DEV_ACCOUNT_SID) return reply.code(401).send({ code: 20003, message: 'Authenticate', status: 401 });
    return store.delete(request.params.media) ? reply.code(204).send() : reply.code(404).send({ code: 20404, message: 'The requested resource was not found', status: 404 });
  });
}

/** The port this server listens on (the dev media API is reached through it). */
function listeningPort(request: FastifyRequest): number {
  const address = request.server.server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

/** Server-sent events for one number: `ready` once listening, then a `message` per text Herald sends it. */
function openEventStream(request: FastifyRequest, reply: FastifyReply, phone: string, options: DevPhoneRouteOptions, streams: Set<() => void>): void {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  const unsubscribe = options.feed.subscribe(phone, (message) => raw.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
  raw.write(`event: ready\ndata: ${JSON.stringify({ phone })}\n\n`);
  const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), (options.heartbeatSeconds ?? 15) * 1000);
  heartbeat.unref();
  const end = () => {
    clearInterval(heartbeat);
    unsubscribe();
    streams.delete(end);
    if (!raw.writableEnded) raw.end();
  };
  streams.add(end);
  request.raw.on('close', end);
  request.log.info('dev phone listening');
}

/** A request from this machine to this machine: not relayed, not reached through another host name. */
function isThisMachine(request: FastifyRequest): boolean {
  if (!isFromThisMachine(request)) return false;
  const host = (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
  return LOCAL_HOSTS.has(host);
}

function safeHost(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}
